package ui

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

// memKeeper is a ConnectionKeeper in memory: the ui's side of the
// interface whose real keeper (cmd/braid, the queue and the keyring) the
// window tests drive.
type memKeeper struct {
	mu       sync.Mutex
	c        Connections
	secrets  map[string]string
	switched []string
}

func (k *memKeeper) Connections() (Connections, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.c, nil
}

func (k *memKeeper) SetConnections(c Connections, secrets map[string]string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.c.List, k.c.Active = c.List, c.Active
	for u, s := range secrets {
		k.secrets[u] = s
	}
	return "", nil
}

func (k *memKeeper) Address(typed string) (string, error) {
	if !strings.Contains(typed, ":") {
		return "", errors.New("not an address")
	}
	if !strings.HasPrefix(typed, "http") {
		typed = "http://" + typed + "/jsonrpc"
	}
	return typed, nil
}

func (k *memKeeper) SwitchTo(url string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.switched = append(k.switched, url)
}

// The tab offers this computer or another; another adds the connection
// typed, normalised, with its secret, and chooses it; Forget takes the
// picked one off the list. Nothing changed is no change.
func TestConnectionsSection(t *testing.T) {
	newTestWindow(t, newMemBackend())
	nas := Connection{Name: "nas", URL: "http://nas.local:6800/jsonrpc", HasSecret: true}
	k := &memKeeper{secrets: map[string]string{}}
	s := newConnectionsSection(Connections{List: []Connection{nas}})
	if s.Where.Selected != "This computer" || s.Status.Text != "Now: this computer's downloads." || !s.Address.Disabled() {
		t.Errorf("on this computer the tab shows %q, %q, address enabled %v", s.Where.Selected, s.Status.Text, !s.Address.Disabled())
	}
	c, secrets, err := s.value(k.Address)
	if err != nil || s.changed(c, secrets) {
		t.Errorf("nothing touched: %+v, %v, changed %v", c, err, s.changed(c, secrets))
	}

	s.Where.SetSelected("Another computer")
	s.Pick.SetSelected("New connection")
	s.Address.SetText("127.0.0.1:6800")
	s.Secret.SetText("typed-secret")
	c, secrets, err = s.value(k.Address)
	want := "http://127.0.0.1:6800/jsonrpc"
	if err != nil || c.Active != want || len(c.List) != 2 || c.List[1].URL != want || secrets[want] != "typed-secret" || !s.changed(c, secrets) {
		t.Errorf("another computer typed: %+v, %v, %v", c, secrets, err)
	}
	s.Address.SetText("")
	if _, _, err := s.value(k.Address); err == nil || !strings.Contains(err.Error(), "give the address") {
		t.Errorf("no address: %v", err)
	}

	s.Pick.SetSelected(connectionLabel(nas))
	if s.Address.Text != nas.URL || s.Secret.PlaceHolder != "kept; type a new one to change it" || s.Forget.Disabled() {
		t.Errorf("the nas picked: %q, %q, Forget enabled %v", s.Address.Text, s.Secret.PlaceHolder, !s.Forget.Disabled())
	}
	s.Forget.OnTapped()
	s.Where.SetSelected("This computer")
	c, _, _ = s.value(k.Address)
	if len(c.List) != 0 || c.Active != "" || !s.changed(c, nil) {
		t.Errorf("the nas forgotten: %+v", c)
	}
}

// The side panel lists This computer and the saved connections under
// Computers, the one shown marked. A click on another switches at once,
// keeping the choice; leaving this computer's downloads, which stops
// them, is asked first. The marked one asks nothing.
func TestSidePanelConnections(t *testing.T) {
	w, _ := newTestWindow(t, newMemBackend())
	nas := Connection{Name: "nas", URL: "http://nas.local:6800/jsonrpc"}
	k := &memKeeper{c: Connections{List: []Connection{nas}, Active: nas.URL, Shown: nas.URL}, secrets: map[string]string{}}
	w.Locked(func() {
		w.Connections = k
		w.ShowConnections()
	})
	var labels []string
	var marked []string
	for _, e := range w.Side.entries {
		labels = append(labels, e.label)
		if e.mark {
			marked = append(marked, e.label)
		}
	}
	if !slices.Contains(labels, "Computers") || !slices.Contains(labels, "This computer") || !slices.Contains(labels, "nas") || !slices.Equal(marked, []string{"nas"}) {
		t.Fatalf("side panel %v, marked %v", labels, marked)
	}
	if _, ok := w.Side.Count("nas"); !ok {
		t.Error("the connection is not an entry one can click")
	}
	// The marked one: nothing asked.
	w.Locked(func() { w.Side.Choose("nas") })
	if len(overlayLabels(w)) != 0 {
		t.Errorf("a click on the connection shown asked %v", overlayLabels(w))
	}
	// From the nas to this computer: at once.
	w.Locked(func() { w.Side.Choose("This computer") })
	w.Settle()
	if asked := overlayLabels(w); len(asked) != 0 {
		t.Errorf("a click on This computer from the nas asked %v", asked)
	}
	if w.Side.chosen != (sideKey{}) {
		t.Errorf("a click on a connection changed the filter to %+v", w.Side.chosen)
	}
	k.mu.Lock()
	if k.c.Active != "" || !slices.Equal(k.switched, []string{""}) {
		t.Errorf("after the click: chosen %q, switched to %q", k.c.Active, k.switched)
	}
	k.c.Shown = ""
	k.mu.Unlock()

	// From this computer to the nas: asked, as its downloads stop.
	w.Locked(func() {
		w.ShowConnections()
		w.Side.Choose("nas")
	})
	asked := overlayLabels(w)
	if !slices.ContainsFunc(asked, func(s string) bool {
		return strings.Contains(s, "This window shows the downloads at http://nas.local:6800/jsonrpc instead. Downloads running on this computer stop and wait in its queue.")
	}) {
		t.Fatalf("a click on the nas from this computer asked %v", asked)
	}
	k.mu.Lock()
	if len(k.switched) != 1 {
		t.Errorf("switched before the answer: %q", k.switched)
	}
	k.mu.Unlock()
	// Yes.
	w.Locked(func() { w.switchConnection(nas.URL) })
	w.Settle()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.c.Active != nas.URL || !slices.Equal(k.switched, []string{"", nas.URL}) {
		t.Errorf("after Yes: chosen %q, switched to %q", k.c.Active, k.switched)
	}
}
