package netconf

// SetProxy makes p the Network's proxy setting from now on: connections
// opened afterwards take its routes, those open now end on theirs (a
// download under way keeps its connections; its next ones follow). The
// Network keeps the DirectDial and TLSClientConfig it was made with; p's
// are not used. A setting Braid cannot use fails as NewNetwork's does,
// and the Network keeps the one it had. Safe for concurrent use.
func (n *Network) SetProxy(p Proxy) error {
	ps, err := loadProxies(p)
	if err != nil {
		return err
	}
	old := n.setting.Load()
	p.DirectDial, p.TLSClientConfig = old.DirectDial, old.TLSClientConfig
	n.ps.Store(ps)
	n.setting.Store(&p)
	return nil
}

// Setting is the proxy setting in force.
func (n *Network) Setting() Proxy { return *n.setting.Load() }
