package netconf

import (
	"maps"
	"slices"
	"testing"
)

// TestParseWindowsProxy: the registry's Internet Settings as the control
// panel writes them, and what Braid routes by them.
func TestParseWindowsProxy(t *testing.T) {
	for _, tc := range []struct {
		name             string
		enable           bool
		server, override string
		byScheme         map[string]string
		all              string
		bypass           []string
		simple           bool
		direct, proxied  []string // hosts the setting sends direct, through a proxy
	}{
		{name: "one proxy for all", enable: true, server: "proxy.corp:8080", override: "*.corp.example;10.*;192.168.1.*;<local>;intranet:8443",
			byScheme: map[string]string{"http": "http://proxy.corp:8080", "https": "http://proxy.corp:8080", "ftp": "http://proxy.corp:8080"},
			bypass:   []string{".corp.example", "10.0.0.0/8", "192.168.1.0/24", "intranet"}, simple: true,
			direct:  []string{"a.corp.example", "10.9.8.7", "192.168.1.20", "printer", "intranet"},
			proxied: []string{"example.org", "192.168.2.1", "corp.example.org"}},
		{name: "per scheme", enable: true, server: "http=h1:3128;https=h2:3129;socks=s:1080",
			byScheme: map[string]string{"http": "http://h1:3128", "https": "http://h2:3129"}, all: "socks5://s:1080",
			proxied: []string{"example.org", "printer"}},
		{name: "disabled", enable: false, server: "proxy.corp:8080", override: "<local>",
			byScheme: map[string]string{}, direct: []string{"example.org"}},
		{name: "a pattern no_proxy cannot say is left out", enable: true, server: "p:1", override: "*foo*;10.*.3.*",
			byScheme: map[string]string{"http": "http://p:1", "https": "http://p:1", "ftp": "http://p:1"},
			proxied:  []string{"foo.example", "10.1.3.4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := parseWindowsProxy(tc.enable, tc.server, tc.override)
			if !maps.Equal(st.byScheme, tc.byScheme) || st.all != tc.all || !slices.Equal(st.bypass, tc.bypass) || st.simple != tc.simple {
				t.Errorf("got %+v", st)
			}
			checkRoutes(t, st, tc.direct, tc.proxied)
		})
	}
}

// checkRoutes checks that the hosts go direct, or through some proxy,
// for http traffic (other traffic for a SOCKS-only setting).
func checkRoutes(t *testing.T, st systemSetting, direct, proxied []string) {
	t.Helper()
	ps, err := st.proxies("")
	if err != nil {
		t.Fatal(err)
	}
	scheme := "http"
	if len(st.byScheme) == 0 {
		scheme = ""
	}
	for _, h := range direct {
		if u := ps.forScheme(scheme, h); u != nil {
			t.Errorf("%s goes through %s, want direct", h, u)
		}
	}
	for _, h := range proxied {
		if u := ps.forScheme(scheme, h); u == nil {
			t.Errorf("%s goes direct, want a proxy", h)
		}
	}
}

// scutilOutput is `scutil --proxy` of a Mac with a web proxy, a secure
// web proxy, SOCKS off, and the default exceptions.
const scutilOutput = `<dictionary> {
  ExceptionsList : <array> {
    0 : *.local
    1 : 169.254/16
    2 : build.example.net
  }
  ExcludeSimpleHostnames : 1
  FTPPassive : 1
  HTTPEnable : 1
  HTTPPort : 3128
  HTTPProxy : proxy.example.net
  HTTPSEnable : 1
  HTTPSPort : 3129
  HTTPSProxy : fe80::1
  ProxyAutoConfigEnable : 0
  SOCKSEnable : 0
  SOCKSPort : 1080
  SOCKSProxy : socks.example.net
  __SCOPED__ : <dictionary> {
    en0 : <dictionary> {
      ExceptionsList : <array> {
        0 : scoped.example
      }
    }
  }
}
`

func TestParseScutil(t *testing.T) {
	st := parseScutil(scutilOutput)
	want := map[string]string{"http": "http://proxy.example.net:3128", "https": "http://[fe80::1]:3129"}
	if !maps.Equal(st.byScheme, want) || st.all != "" || !st.simple {
		t.Errorf("got %+v", st)
	}
	if wantBypass := []string{".local", "169.254.0.0/16", "build.example.net"}; !slices.Equal(st.bypass, wantBypass) {
		t.Errorf("bypass %q, want %q", st.bypass, wantBypass)
	}
	checkRoutes(t, st, []string{"mac.local", "169.254.3.4", "build.example.net", "nas"}, []string{"example.org", "scoped.example", "169.255.0.1"})

	socks := parseScutil("<dictionary> {\n  SOCKSEnable : 1\n  SOCKSPort : 1080\n  SOCKSProxy : 10.0.0.9\n}\n")
	if socks.all != "socks5://10.0.0.9:1080" || len(socks.byScheme) != 0 {
		t.Errorf("SOCKS only: %+v", socks)
	}
	checkRoutes(t, socks, nil, []string{"example.org"})
	if none := parseScutil("<dictionary> {\n  HTTPEnable : 0\n  HTTPProxy : p\n}\n"); len(none.byScheme) != 0 || none.all != "" {
		t.Errorf("disabled: %+v", none)
	}
	if junk := parseScutil("not scutil at all\n : \n{{"); len(junk.byScheme) != 0 {
		t.Errorf("junk: %+v", junk)
	}
}

// TestSystemModeTakesEnvironmentFirst: ProxySystem with a proxy in the
// environment is ProxyEnvironment.
func TestSystemModeTakesEnvironmentFirst(t *testing.T) {
	env := map[string]string{"https_proxy": "http://envproxy:3128"}
	n, err := NewNetwork(Proxy{Mode: ProxySystem, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if u := n.ProxyFor("https", "example.org"); u == nil || u.Host != "envproxy:3128" {
		t.Errorf("https through %v, want envproxy:3128", u)
	}
	if !envNamesProxy(func(k string) string { return env[k] }) || envNamesProxy(func(string) string { return "" }) {
		t.Error("envNamesProxy")
	}
}

// TestSetProxy: a Network's proxy changes for the connections that follow;
// a setting it cannot use leaves the old one.
func TestSetProxy(t *testing.T) {
	n, err := NewNetwork(Proxy{Mode: ProxyNone})
	if err != nil {
		t.Fatal(err)
	}
	if u := n.ProxyFor("http", "example.org"); u != nil {
		t.Fatalf("none: %v", u)
	}
	if err := n.SetProxy(Proxy{Mode: ProxyManual, URL: "http://u:secret-pw@p.example:3128", NoProxy: "intranet"}); err != nil {
		t.Fatal(err)
	}
	if u := n.ProxyFor("http", "example.org"); u == nil || u.Host != "p.example:3128" {
		t.Errorf("manual: %v", u)
	}
	if u := n.ProxyFor("http", "intranet"); u != nil {
		t.Errorf("no-proxy host: %v", u)
	}
	if err := n.SetProxy(Proxy{Mode: ProxyManual, URL: "gopher://x"}); err == nil {
		t.Error("an unusable proxy was taken")
	}
	if u := n.ProxyFor("http", "example.org"); u == nil || u.Host != "p.example:3128" {
		t.Errorf("after a refused setting: %v", u)
	}
	if s := n.String(); s != "manual http://***@p.example:3128 (not for intranet)" {
		t.Errorf("String = %q", s)
	}
}

// FuzzSystemSetting: any scutil output and any registry values give a
// setting whose proxies are made or refused, never a panic.
func FuzzSystemSetting(f *testing.F) {
	f.Add(scutilOutput, "proxy.corp:8080", "*.corp;10.*;<local>")
	f.Add("<dictionary> {\n  HTTPEnable : 1\n  HTTPProxy : [\n}", "http=;https=h:1;socks=", "*;1.2.3.4/33;*.*.*")
	f.Add("}}}{{{ : : ", "=:=", "<local>;;;")
	f.Fuzz(func(t *testing.T, scutil, server, override string) {
		for _, st := range []systemSetting{parseScutil(scutil), parseWindowsProxy(true, server, override)} {
			if ps, err := st.proxies(""); err == nil {
				ps.forScheme("http", "example.org")
				ps.forScheme("", "10.1.2.3")
			}
		}
	})
}
