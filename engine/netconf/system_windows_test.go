package netconf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"golang.org/x/sys/windows/registry"
)

// setInternetSettings writes the user's proxy setting to the registry as
// the control panel does, and puts back what was there when the test ends.
func setInternetSettings(t *testing.T, enable uint32, server, override string) {
	t.Helper()
	k, _, err := registry.CreateKey(registry.CURRENT_USER, internetSettings, registry.QUERY_VALUE|registry.SET_VALUE)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	type value struct {
		name   string
		exists bool
		typ    uint32
		number uint64
		text   string
	}
	var saved []value
	for _, name := range []string{"ProxyEnable", "ProxyServer", "ProxyOverride"} {
		v := value{name: name}
		var err error
		if v.number, v.typ, err = k.GetIntegerValue(name); errors.Is(err, registry.ErrUnexpectedType) {
			v.text, v.typ, err = k.GetStringValue(name)
		}
		switch {
		case err == nil:
			v.exists = true
		case !errors.Is(err, registry.ErrNotExist):
			t.Fatalf("reading %s: %v", name, err)
		}
		saved = append(saved, v)
	}
	t.Cleanup(func() {
		k, err := registry.OpenKey(registry.CURRENT_USER, internetSettings, registry.SET_VALUE)
		if err != nil {
			t.Errorf("restoring the Internet Settings: %v", err)
			return
		}
		defer k.Close()
		for _, v := range saved {
			switch {
			case !v.exists:
				err = k.DeleteValue(v.name)
			case v.typ == registry.DWORD:
				err = k.SetDWordValue(v.name, uint32(v.number))
			case v.typ == registry.QWORD:
				err = k.SetQWordValue(v.name, v.number)
			case v.typ == registry.EXPAND_SZ:
				err = k.SetExpandStringValue(v.name, v.text)
			default:
				err = k.SetStringValue(v.name, v.text)
			}
			if err != nil && !errors.Is(err, registry.ErrNotExist) {
				t.Errorf("restoring %s: %v", v.name, err)
			}
		}
	})
	if err := k.SetDWordValue("ProxyEnable", enable); err != nil {
		t.Fatal(err)
	}
	if err := k.SetStringValue("ProxyServer", server); err != nil {
		t.Fatal(err)
	}
	if err := k.SetStringValue("ProxyOverride", override); err != nil {
		t.Fatal(err)
	}
}

// httpProxy is a real HTTP proxy in the test process: it answers every
// request for an absolute URL itself, saying which URL it was asked for,
// and keeps the list.
type httpProxy struct {
	*httptest.Server
	mu   sync.Mutex
	asks []string
}

func newHTTPProxy(t *testing.T) *httpProxy {
	p := &httpProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.IsAbs() {
			http.Error(w, "not a proxy request", http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		p.asks = append(p.asks, r.URL.String())
		p.mu.Unlock()
		fmt.Fprintf(w, "proxied %s", r.URL)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *httpProxy) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.asks)
}

// The system proxy of a Windows user, the Internet Settings in the
// registry, carries Braid's requests when neither a flag nor the
// environment names a proxy: both forms of ProxyServer, ProxyOverride's
// <local> and wildcards, a disabled setting, and the environment first.
func TestSystemProxyFromRegistry(t *testing.T) {
	noEnv := func(string) string { return "" }
	proxy := newHTTPProxy(t)
	addr := proxy.Listener.Addr().String()
	// Hosts reached directly are recorded and refused: these names do not
	// exist, so only the proxy can answer for them.
	var (
		mu     sync.Mutex
		direct []string
	)
	refuse := func(ctx context.Context, network, a string) (net.Conn, error) {
		if a == addr {
			var d net.Dialer
			return d.DialContext(ctx, network, a)
		}
		mu.Lock()
		direct = append(direct, a)
		mu.Unlock()
		return nil, errors.New("direct connection refused by the test")
	}
	get := func(t *testing.T, n *Network, url string) (string, error) {
		t.Helper()
		resp, err := n.HTTPClient().Get(url)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	wentDirect := func(a string) bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(direct, a)
	}

	t.Run("one proxy for all, with exceptions", func(t *testing.T) {
		setInternetSettings(t, 1, addr, "*.corp.test;10.*;<local>")
		n, err := NewNetwork(Proxy{Mode: ProxySystem, Getenv: noEnv, DirectDial: refuse})
		if err != nil {
			t.Fatal(err)
		}
		if body, err := get(t, n, "http://files.example.test/big.bin"); err != nil || body != "proxied http://files.example.test/big.bin" {
			t.Errorf("through the proxy: %q, %v", body, err)
		}
		for _, host := range []string{"printer", "build.corp.test", "10.1.2.3"} {
			if _, err := get(t, n, "http://"+host+"/f"); err == nil || !wentDirect(host+":80") {
				t.Errorf("%s: err %v, direct %v: want a direct connection", host, err, direct)
			}
		}
		if got := proxy.asked(); !slices.Equal(got, []string{"http://files.example.test/big.bin"}) {
			t.Errorf("the proxy was asked for %q", got)
		}
		if u := n.ProxyFor("https", "files.example.test"); u == nil || u.Host != addr {
			t.Errorf("https through %v, want %s", u, addr)
		}
	})

	t.Run("per scheme", func(t *testing.T) {
		setInternetSettings(t, 1, "http="+addr+";https=127.0.0.1:9;socks=127.0.0.1:1080", "")
		n, err := NewNetwork(Proxy{Mode: ProxySystem, Getenv: noEnv, DirectDial: refuse})
		if err != nil {
			t.Fatal(err)
		}
		if body, err := get(t, n, "http://per-scheme.example.test/a"); err != nil || body != "proxied http://per-scheme.example.test/a" {
			t.Errorf("http through its proxy: %q, %v", body, err)
		}
		if u := n.ProxyFor("https", "example.org"); u == nil || u.String() != "http://127.0.0.1:9" {
			t.Errorf("https through %v, want http://127.0.0.1:9", u)
		}
		if u := n.ProxyFor("", "peer.example.org"); u == nil || u.String() != "socks5://127.0.0.1:1080" {
			t.Errorf("other traffic through %v, want the SOCKS proxy", u)
		}
	})

	t.Run("disabled", func(t *testing.T) {
		setInternetSettings(t, 0, addr, "")
		n, err := NewNetwork(Proxy{Mode: ProxySystem, Getenv: noEnv, DirectDial: refuse})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := get(t, n, "http://off.example.test/f"); err == nil || !wentDirect("off.example.test:80") {
			t.Errorf("err %v: want a direct connection", err)
		}
	})

	t.Run("the environment first", func(t *testing.T) {
		setInternetSettings(t, 1, "127.0.0.1:9", "")
		env := map[string]string{"http_proxy": "http://" + addr}
		n, err := NewNetwork(Proxy{Mode: ProxySystem, Getenv: func(k string) string { return env[k] }, DirectDial: refuse})
		if err != nil {
			t.Fatal(err)
		}
		if body, err := get(t, n, "http://env.example.test/f"); err != nil || body != "proxied http://env.example.test/f" {
			t.Errorf("through the environment's proxy: %q, %v", body, err)
		}
	})
}
