package netconf

import (
	"bufio"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// The system's proxy setting (ProxySystem): where the environment names
// no proxy, Windows keeps one in the registry (the Internet Settings
// that the control panel and browsers write) and macOS in its system
// configuration (what `scutil --proxy` prints). The readers are in
// system_windows.go and system_darwin.go; the parsers are here, so that
// their tests run everywhere. A proxy auto-config (PAC) script is not
// read: only the proxies the settings name.

// systemSetting is a system's proxy setting as its store says it.
type systemSetting struct {
	byScheme map[string]string // "http", "https", "ftp": the proxy, as a URL
	all      string            // a SOCKS proxy for the rest; "" none
	bypass   []string          // hosts reached directly, in no_proxy's syntax
	simple   bool              // host names without a dot go direct
}

// envNamesProxy reports whether the environment names a proxy, as
// ProxyEnvironment reads it.
func envNamesProxy(getenv func(string) string) bool {
	for _, v := range []struct {
		name  string
		upper bool
	}{{"http_proxy", false}, {"https_proxy", true}, {"ftp_proxy", true}, {"all_proxy", true}} {
		if _, val := env(getenv, v.name, v.upper); val != "" {
			return true
		}
	}
	return false
}

// systemProxies reads the system's setting; extra names hosts to reach
// directly besides those the system names.
func systemProxies(extra string) (*proxies, error) {
	st, err := readSystemSetting()
	if err != nil {
		return nil, fmt.Errorf("the system's proxy setting: %w", err)
	}
	return st.proxies(extra)
}

// proxies makes the setting ready for a Network.
func (st systemSetting) proxies(extra string) (*proxies, error) {
	ps := &proxies{byScheme: map[string]*url.URL{}}
	for scheme, raw := range st.byScheme {
		u, err := parseProxy(raw)
		if err != nil {
			return nil, fmt.Errorf("the system's %s proxy: %w", scheme, err)
		}
		ps.byScheme[scheme] = u
	}
	if st.all != "" {
		u, err := parseProxy(st.all)
		if err != nil {
			return nil, fmt.Errorf("the system's SOCKS proxy: %w", err)
		}
		ps.all = u
	}
	ps.direct = parseNoProxy(strings.Join(append(append([]string(nil), st.bypass...), extra), ","))
	ps.direct.simple = st.simple
	return ps, nil
}

// parseWindowsProxy reads the registry's Internet Settings: ProxyEnable,
// ProxyServer ("host:port" for every scheme, or
// "http=host:port;https=host:port;ftp=…;socks=host:port") and
// ProxyOverride ("*.example.org;10.*;<local>", <local> being the names
// without a dot). A disabled setting is no proxy at all.
func parseWindowsProxy(enable bool, server, override string) systemSetting {
	st := systemSetting{byScheme: map[string]string{}}
	server = strings.TrimSpace(server)
	if !enable || server == "" {
		return st
	}
	if !strings.Contains(server, "=") {
		for _, scheme := range []string{"http", "https", "ftp"} {
			st.byScheme[scheme] = withScheme("http", server)
		}
	} else {
		for _, part := range strings.FieldsFunc(server, func(r rune) bool { return r == ';' || r == ' ' }) {
			scheme, addr, ok := strings.Cut(part, "=")
			scheme = strings.ToLower(strings.TrimSpace(scheme))
			if addr = strings.TrimSpace(addr); !ok || addr == "" {
				continue
			}
			switch scheme {
			case "http", "https", "ftp":
				st.byScheme[scheme] = withScheme("http", addr)
			case "socks":
				st.all = withScheme("socks5", addr)
			}
		}
	}
	for _, e := range strings.Split(override, ";") {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
		case strings.EqualFold(e, "<local>"):
			st.simple = true
		default:
			if b, ok := bypassEntry(e); ok {
				st.bypass = append(st.bypass, b)
			}
		}
	}
	return st
}

// withScheme is addr as a URL, scheme:// added when it has none.
func withScheme(scheme, addr string) string {
	if strings.Contains(addr, "://") {
		return addr
	}
	return scheme + "://" + addr
}

// bypassEntry turns one host pattern of a system's exceptions into
// no_proxy's syntax: "*.example.org" and ".example.org" are the domain
// and its subdomains, "10.*" and "192.168.*.*" address ranges,
// "169.254/16" a range with its zero octets left out, a scheme or a port
// dropped. A pattern no_proxy cannot say ("*example*") is left out.
func bypassEntry(e string) (string, bool) {
	if i := strings.Index(e, "://"); i >= 0 {
		e = e[i+3:]
	}
	if e == "*" {
		return "*", true
	}
	if strings.HasPrefix(e, "*.") {
		e = e[1:]
	}
	if host, port, ok := strings.Cut(e, ":"); ok && !strings.Contains(port, ":") && isDigits(port) {
		e = host
	}
	if strings.Contains(e, "*") {
		// An IPv4 range: leading octets, then only wildcards.
		parts := strings.Split(e, ".")
		n := 0
		for n < len(parts) && isOctet(parts[n]) {
			n++
		}
		if n == 0 || n > 3 || len(parts) > 4 {
			return "", false
		}
		for _, p := range parts[n:] {
			if p != "*" {
				return "", false
			}
		}
		return cidr(parts[:n], n*8), true
	}
	if addr, bits, ok := strings.Cut(e, "/"); ok {
		parts := strings.Split(addr, ".")
		if b, err := strconv.Atoi(bits); err == nil && len(parts) < 4 && allOctets(parts) {
			return cidr(parts, b), true
		}
	}
	return e, e != ""
}

// cidr writes the leading octets of an IPv4 range, zeros for the rest,
// with its prefix length.
func cidr(octets []string, bits int) string {
	full := append(append([]string(nil), octets...), "0", "0", "0", "0")[:4]
	return strings.Join(full, ".") + "/" + strconv.Itoa(bits)
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func isOctet(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && isDigits(s) && n <= 255
}

func allOctets(parts []string) bool {
	for _, p := range parts {
		if !isOctet(p) {
			return false
		}
	}
	return len(parts) > 0
}

// parseScutil reads what `scutil --proxy` prints on macOS:
//
//	<dictionary> {
//	  ExceptionsList : <array> {
//	    0 : *.local
//	    1 : 169.254/16
//	  }
//	  ExcludeSimpleHostnames : 1
//	  HTTPEnable : 1
//	  HTTPPort : 3128
//	  HTTPProxy : proxy.example.org
//	  SOCKSEnable : 0
//	}
//
// HTTP, HTTPS and FTP proxies are taken for their schemes when enabled,
// a SOCKS proxy for the rest.
func parseScutil(out string) systemSetting {
	st := systemSetting{byScheme: map[string]string{}}
	kv := map[string]string{}
	var exceptions []string
	// depth is how deep in dictionaries and arrays the line is: the
	// settings are at 1 (nested ones, __SCOPED__'s, are per interface and
	// not read); inExceptions while in the top ExceptionsList.
	depth, inExceptions := 0, false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "}" {
			depth--
			inExceptions = inExceptions && depth >= 2
			continue
		}
		k, v, ok := strings.Cut(line, " : ")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case strings.HasSuffix(line, "{"):
			inExceptions = depth == 1 && ok && k == "ExceptionsList"
			depth++
		case !ok:
		case inExceptions && depth == 2:
			exceptions = append(exceptions, v)
		case depth == 1:
			kv[k] = v
		}
	}
	proxy := func(prefix, scheme string) string {
		host := kv[prefix+"Proxy"]
		if kv[prefix+"Enable"] != "1" || host == "" {
			return ""
		}
		if port := kv[prefix+"Port"]; isDigits(port) {
			return scheme + "://" + joinHost(host, port)
		}
		return scheme + "://" + host
	}
	for _, s := range []struct{ prefix, scheme string }{{"HTTP", "http"}, {"HTTPS", "https"}, {"FTP", "ftp"}} {
		if u := proxy(s.prefix, "http"); u != "" {
			st.byScheme[s.scheme] = u
		}
	}
	st.all = proxy("SOCKS", "socks5")
	st.simple = kv["ExcludeSimpleHostnames"] == "1"
	for _, e := range exceptions {
		if b, ok := bypassEntry(e); ok {
			st.bypass = append(st.bypass, b)
		}
	}
	return st
}

// joinHost is host:port, an IPv6 address in brackets.
func joinHost(host, port string) string {
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		return "[" + host + "]:" + port
	}
	return host + ":" + port
}
