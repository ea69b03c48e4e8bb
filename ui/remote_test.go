package ui

import (
	"sync"
	"testing"

	"fyne.io/fyne/v2/test"

	"braid/internal/testkit"
)

// remoteBackend is the in-memory backend with a remote control.
type remoteBackend struct {
	*memBackend
	mu  sync.Mutex
	r   Remote
	set []Remote
}

func (b *remoteBackend) Remote() Remote {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.r
}

func (b *remoteBackend) SetRemote(r Remote) (Remote, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.set = append(b.set, r)
	if r.Secret == "" {
		r.Secret = "fresh-secret"
	}
	if r.On {
		r.Endpoint = "http://" + r.Address + "/jsonrpc"
	}
	b.r = r
	return r, nil
}

// Settings → Remote control shows the secret with Copy, and Save turns the
// remote control on at the address given; New makes a new secret.
func TestRemoteControlSection(t *testing.T) {
	b := &remoteBackend{memBackend: newMemBackend(), r: Remote{Address: "127.0.0.1:6800", Secret: "s3cret"}}
	w, _ := newTestWindow(t, b)
	w.Locked(w.ShowSettings)
	w.Locked(func() {
		f := w.SettingsForm.Remote
		if f == nil || f.Secret.Text != "s3cret" || f.On.Checked {
			t.Fatalf("the section: %+v", f)
		}
		test.Tap(f.Copy)
		f.On.SetChecked(true)
		f.Address.SetText("127.0.0.1:7800")
		test.Tap(overlayButton(t, w, "Save"))
	})
	if got := w.App.Clipboard().Content(); got != "s3cret" {
		t.Errorf("Copy put %q on the clipboard", got)
	}
	testkit.WaitFor(t, "remote control on", func() bool { return b.Remote().On })
	if r := b.Remote(); r.Address != "127.0.0.1:7800" || r.Secret != "s3cret" {
		t.Errorf("after Save: %+v", r)
	}
	w.Locked(w.ShowSettings)
	w.Locked(func() {
		f := w.SettingsForm.Remote
		if f.Status.Text == "" || !f.On.Checked {
			t.Errorf("the section says %q, on %v", f.Status.Text, f.On.Checked)
		}
		test.Tap(f.Renew)
		test.Tap(overlayButton(t, w, "Save"))
	})
	testkit.WaitFor(t, "the fresh secret", func() bool { return b.Remote().Secret == "fresh-secret" })
}
