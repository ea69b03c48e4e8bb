package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestNetworkSection: the section shows the stored setting, lets the
// manual fields be edited only in Manual, refuses a proxy URL Braid
// cannot use (naming no password), and reads a typed password without
// ever showing the kept one.
func TestNetworkSection(t *testing.T) {
	test.NewTempApp(t)
	s := newNetworkSection(ProxySetting{Mode: ProxySystem, HasPassword: true, CanRemember: false})
	if !s.URL.Disabled() || !s.Password.Disabled() {
		t.Error("the manual fields are editable in System mode")
	}
	if s.Password.Text != "" || !s.Remember.Disabled() {
		t.Errorf("password %q shown, or Remember enabled without a keyring", s.Password.Text)
	}
	if p, changed, err := s.value(); err != nil || changed || p.Mode != ProxySystem {
		t.Errorf("unchanged: %+v %v %v", p, changed, err)
	}
	s.Mode.SetSelected(modeNames()[ProxyManual])
	if s.URL.Disabled() {
		t.Error("the URL is not editable in Manual mode")
	}
	if _, _, err := s.value(); err == nil {
		t.Error("Manual without a URL was taken")
	}
	s.URL.SetText("gopher://u:hidden-pw@proxy.example")
	_, _, err := s.value()
	if err == nil || !strings.Contains(err.Error(), "proxy") || strings.Contains(err.Error(), "hidden-pw") {
		t.Errorf("an unusable URL: %v", err)
	}
	s.URL.SetText("socks5h://u@127.0.0.1:1080")
	s.Password.SetText("typed-pw")
	s.NoProxy.SetText("intranet, 10.0.0.0/8")
	p, changed, err := s.value()
	if err != nil || !changed || p.Mode != ProxyManual || p.URL != "socks5h://u@127.0.0.1:1080" || p.Password != "typed-pw" || p.NoProxy != "intranet, 10.0.0.0/8" || p.Remember {
		t.Errorf("manual: %+v %v %v", p, changed, err)
	}
	var texts []string
	textsOf(s.Password, &texts)
	if len(texts) != 0 {
		t.Errorf("a password entry's text is dumped: %q", texts)
	}
}
