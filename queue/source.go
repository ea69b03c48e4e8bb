package queue

import (
	"net/url"
	"path/filepath"
	"strings"

	"braid/engine/redact"
)

// defaultPorts are the ports a URL need not name.
var defaultPorts = map[string]string{"http": "80", "https": "443", "ftp": "21"}

// canonical is the one spelling of a source, so that a source is one job
// however it was written: a file's absolute path with symlinks resolved
// ("f.meta4", "./f.meta4" and "/home/ann/f.meta4" are one), and a URL
// without credentials or fragment, its scheme and host in lower case and
// without the scheme's default port. A magnet link stays as it is.
func canonical(source string) string {
	if strings.HasPrefix(source, "magnet:") {
		return source
	}
	if strings.Contains(source, "://") {
		u, err := url.Parse(redact.URL(source))
		if err != nil || u.Host == "" {
			return redact.Text(source)
		}
		u.Fragment, u.RawFragment = "", ""
		u.Scheme = strings.ToLower(u.Scheme)
		host, port := strings.ToLower(u.Hostname()), u.Port()
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		if port != "" && port != defaultPorts[u.Scheme] {
			host += ":" + port
		}
		u.Host = host
		if u.Path == "" && u.RawQuery == "" {
			u.Path = "/"
		}
		return u.String()
	}
	abs, err := filepath.Abs(source)
	if err != nil {
		return source
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs
}
