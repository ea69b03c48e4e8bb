package runner

import (
	"fmt"
	"net/url"
	"strings"

	"braid/engine/netconf"
	"braid/queue"
)

// StoredNetwork is the network of the proxy setting stored in q (the
// window's: Settings.Proxy, its password queue.ProxyPassword): the
// system's when none is stored. A stored setting that cannot be used
// (its URL does not parse) gives the system's network and an error that
// says why; the network is never nil.
func StoredNetwork(q *queue.Queue) (*netconf.Network, error) {
	p, err := storedProxy(q)
	if err == nil {
		var n *netconf.Network
		if n, err = netconf.NewNetwork(p); err == nil {
			return n, nil
		}
	}
	n, nerr := netconf.NewNetwork(netconf.Proxy{Mode: netconf.ProxySystem})
	if nerr != nil {
		n, _ = netconf.NewNetwork(netconf.Proxy{Mode: netconf.ProxyNone})
	}
	return n, fmt.Errorf("the proxy set in Settings → Network cannot be used, so the system's proxy is used instead: %w", err)
}

func storedProxy(q *queue.Queue) (netconf.Proxy, error) {
	s, err := q.Settings()
	if err != nil {
		return netconf.Proxy{}, err
	}
	switch s.Proxy.Mode {
	case netconf.ProxyNone.String():
		return netconf.Proxy{Mode: netconf.ProxyNone}, nil
	case netconf.ProxyManual.String():
		password, _ := q.Secret(queue.ProxyPassword)
		return netconf.Proxy{Mode: netconf.ProxyManual, URL: ProxyURL(s.Proxy.URL, password), NoProxy: s.Proxy.NoProxy}, nil
	}
	return netconf.Proxy{Mode: netconf.ProxySystem}, nil
}

// ProxyURL is the proxy URL raw with password put in for its user; raw as
// it is when there is no password or no user.
func ProxyURL(raw, password string) string {
	raw = strings.TrimSpace(raw)
	if password == "" {
		return raw
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw // netconf's default scheme
	}
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		u.User = url.UserPassword(u.User.Username(), password)
		return u.String()
	}
	return raw
}
