package bridge

import (
	"net/http"
	"net/url"

	"braid/engine/netconf"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

var _ ui.Networker = (*Backend)(nil)

// proxyModes are the stored names of the modes: netconf's.
var proxyModes = map[ui.ProxyMode]string{
	ui.ProxySystem: netconf.ProxySystem.String(),
	ui.ProxyNone:   netconf.ProxyNone.String(),
	ui.ProxyManual: netconf.ProxyManual.String(),
}

// Proxy is the window's proxy setting as stored.
func (b *Backend) Proxy() (ui.ProxySetting, error) {
	p := ui.ProxySetting{CanRemember: queue.KeyringAvailable()}
	s, err := b.q.Settings()
	if err != nil {
		return p, err
	}
	for m, name := range proxyModes {
		if name == s.Proxy.Mode {
			p.Mode = m
		}
	}
	p.URL, p.NoProxy = s.Proxy.URL, s.Proxy.NoProxy
	_, p.HasPassword = b.q.Secret(queue.ProxyPassword)
	return p, nil
}

// SetProxy checks p, stores it and applies it to the window's network:
// the downloads' connections opened from now on, the reading of
// sources, BitTorrent's trackers and web seeds. A URL Braid cannot use is
// refused (netconf.ErrProxyURL) and nothing changes. A password in the
// URL is taken out of it and kept as a typed one is.
func (b *Backend) SetProxy(p ui.ProxySetting) (string, error) {
	if u, err := url.Parse(p.URL); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			if p.Password == "" {
				p.Password = pw
			}
			u.User = url.User(u.User.Username())
			p.URL = u.String()
		}
	}
	password := p.Password
	if password == "" && !p.ForgetPassword {
		password, _ = b.q.Secret(queue.ProxyPassword)
	}
	np := netProxy(p, password)
	if _, err := netconf.NewNetwork(np); err != nil {
		return "", err
	}
	// The proxy URL is stored without its password, which is kept as
	// queue.Queue.SetSecret keeps it (queue.ProxyPassword).
	err := b.q.UpdateSettings(func(s *queue.Settings) {
		s.Proxy = queue.Proxy{Mode: proxyModes[p.Mode], URL: p.URL, NoProxy: p.NoProxy}
	})
	if err != nil {
		return "", err
	}
	note := ""
	switch {
	case p.Password != "":
		note = b.q.SetSecret(queue.ProxyPassword, p.Password, p.Remember)
	case p.ForgetPassword:
		b.q.SetSecret(queue.ProxyPassword, "", false)
	}
	b.mu.Lock()
	n := b.net
	b.mu.Unlock()
	if n != nil {
		return note, n.SetProxy(np)
	}
	return note, nil
}

// netProxy is the netconf setting of p, the password put into the URL.
func netProxy(p ui.ProxySetting, password string) netconf.Proxy {
	switch p.Mode {
	case ui.ProxyNone:
		return netconf.Proxy{Mode: netconf.ProxyNone}
	case ui.ProxyManual:
		return netconf.Proxy{Mode: netconf.ProxyManual, URL: runner.ProxyURL(p.URL, password), NoProxy: p.NoProxy}
	}
	return netconf.Proxy{Mode: netconf.ProxySystem}
}

// networkLocked is the window's Network, made from the stored setting on
// first use; one for the window's life, so every engine client and the
// BitTorrent client share it and follow SetProxy. A stored setting that
// cannot be used falls back to the system's. b.mu is held.
func (b *Backend) networkLocked() *netconf.Network {
	if b.net == nil {
		b.net, _ = runner.StoredNetwork(b.q)
	}
	return b.net
}

// sourceClient is the HTTP client that reads sources for the picker:
// the window's network.
func (b *Backend) sourceClient() *http.Client {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.networkLocked().HTTPClient()
}

// readOptions read a source through the window's network: its HTTP
// client, and the network itself for an ftp link.
func (b *Backend) readOptions() runner.ResolveOptions {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.networkLocked()
	return runner.ResolveOptions{HTTPClient: n.HTTPClient(), Network: n, Metadata: b.fetchMetadata}
}
