package netconf

import (
	"errors"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestProxyFromEnvironment holds the environment to curl's reading of it.
func TestProxyFromEnvironment(t *testing.T) {
	type want struct{ scheme, host, proxy string }
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []want
	}{
		{"HTTP_PROXY in upper case is not read (a CGI header can set it)",
			map[string]string{"HTTP_PROXY": "http://evil:3128"},
			[]want{{"http", "example.com", ""}}},
		{"http_proxy in lower case is",
			map[string]string{"http_proxy": "http://p:3128"},
			[]want{{"http", "example.com", "http://p:3128"}, {"https", "example.com", ""}}},
		{"HTTPS_PROXY and https_proxy, lower case first",
			map[string]string{"HTTPS_PROXY": "http://upper:1", "https_proxy": "http://lower:2"},
			[]want{{"https", "example.com", "http://lower:2"}}},
		{"HTTPS_PROXY alone",
			map[string]string{"HTTPS_PROXY": "socks5h://s:1080"},
			[]want{{"https", "example.com", "socks5h://s:1080"}, {"http", "example.com", ""}}},
		{"ALL_PROXY for every scheme without its own, peers too",
			map[string]string{"ALL_PROXY": "socks5://s", "http_proxy": "h:8080"},
			[]want{{"http", "a.example", "http://h:8080"}, {"https", "a.example", "socks5://s:1080"},
				{"ftp", "a.example", "socks5://s:1080"}, {"", "a.example", "socks5://s:1080"}}},
		{"FTP_PROXY",
			map[string]string{"FTP_PROXY": "http://f:21"},
			[]want{{"ftp", "x", "http://f:21"}, {"http", "x", ""}}},
		{"loopback is proxied when a proxy is set",
			map[string]string{"all_proxy": "http://p:1"},
			[]want{{"http", "127.0.0.1", "http://p:1"}, {"http", "localhost", "http://p:1"}, {"http", "::1", "http://p:1"}}},
		{"no_proxy names, subdomains, addresses, ranges",
			map[string]string{"all_proxy": "http://p:1", "NO_PROXY": "example.com, .internal,10.0.0.0/8 ::1,192.168.1.5,localhost."},
			[]want{
				{"http", "example.com", ""}, {"http", "www.EXAMPLE.com", ""}, {"http", "notexample.com", "http://p:1"},
				{"http", "a.internal", ""}, {"http", "internal", ""}, {"http", "10.2.3.4", ""}, {"http", "11.0.0.1", "http://p:1"},
				{"http", "::1", ""}, {"http", "192.168.1.5", ""}, {"http", "192.168.1.6", "http://p:1"}, {"http", "localhost", ""},
			}},
		{"no_proxy *",
			map[string]string{"all_proxy": "http://p:1", "no_proxy": "*"},
			[]want{{"http", "example.com", ""}, {"", "1.2.3.4", ""}}},
		{"an empty variable counts as unset",
			map[string]string{"https_proxy": "", "HTTPS_PROXY": "http://u:1"},
			[]want{{"https", "x", "http://u:1"}}},
		{"https proxy defaults to port 443",
			map[string]string{"all_proxy": "https://p"},
			[]want{{"http", "x", "https://p:443"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := NewNetwork(Proxy{Getenv: envOf(tc.env)})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				got := ""
				if u := n.ProxyFor(w.scheme, w.host); u != nil {
					got = u.String()
				}
				if got != w.proxy {
					t.Errorf("%s to %s: proxy %q, want %q", w.scheme, w.host, got, w.proxy)
				}
			}
		})
	}
}

func TestProxyManualAndNone(t *testing.T) {
	env := envOf(map[string]string{"http_proxy": "http://env:1", "no_proxy": "example.com"})
	n, err := NewNetwork(Proxy{Mode: ProxyManual, URL: "socks5h://u:pw@s:9050", NoProxy: "direct.example", Getenv: env})
	if err != nil {
		t.Fatal(err)
	}
	if u := n.ProxyFor("http", "example.com"); u == nil || u.Host != "s:9050" {
		t.Errorf("manual: example.com goes %v, want the manual proxy (the environment's no_proxy is not read)", Redacted(u))
	}
	if u := n.ProxyFor("ftp", "direct.example"); u != nil {
		t.Errorf("manual: --no-proxy host goes through %s", Redacted(u))
	}
	n, err = NewNetwork(Proxy{Mode: ProxyNone, Getenv: env})
	if err != nil {
		t.Fatal(err)
	}
	if u := n.ProxyFor("http", "x"); u != nil {
		t.Errorf("none: proxy %s", Redacted(u))
	}
	n, err = NewNetwork(Proxy{NoProxy: "*", Getenv: env})
	if err != nil {
		t.Fatal(err)
	}
	if u := n.ProxyFor("http", "x"); u != nil {
		t.Errorf("--no-proxy '*' over the environment: proxy %s", Redacted(u))
	}
}

// TestProxyErrors: a proxy Braid cannot use is refused with a sentence
// that names it without its password.
func TestProxyErrors(t *testing.T) {
	for _, p := range []Proxy{
		{Mode: ProxyManual, URL: "socks4://u:hunter2@h:1"},
		{Mode: ProxyManual, URL: "http://u:hunter2@:8080"},
		{Mode: ProxyManual, URL: "http://u:hunter2@h:port"},
		{Mode: ProxyManual},
		{Getenv: envOf(map[string]string{"all_proxy": "gopher://u:hunter2@h"})},
	} {
		_, err := NewNetwork(p)
		if err == nil || !errors.Is(err, ErrProxyURL) {
			t.Errorf("%v: error %v, want ErrProxyURL", p, err)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
	p := Proxy{Mode: ProxyManual, URL: "http://u:hunter2@h:1"}
	if s := p.String(); strings.Contains(s, "hunter2") || !strings.Contains(s, "h:1") {
		t.Errorf("String() = %q", s)
	}
}
