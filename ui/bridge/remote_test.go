package bridge

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/queue"
	"braid/ui"
)

// Settings → Remote control: on, the window answers aria2 clients with
// the session's secret (a wrong token gets 400); the choice is kept for
// the next start, the secret is not (never in the database); off, nothing
// answers.
func TestRemoteControl(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	b := New(q, nil)
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	if r := b.Remote(); r.On || r.Endpoint != "" || r.Secret == "" || r.Address != "127.0.0.1:6800" {
		t.Fatalf("before it is turned on: %+v", r)
	}
	r, err := b.SetRemote(ui.Remote{On: true, Address: "127.0.0.1:0", Secret: b.Remote().Secret})
	if err != nil || !r.On || !strings.HasSuffix(r.Endpoint, "/jsonrpc") {
		t.Fatalf("on: %+v, %v", r, err)
	}
	call := func(endpoint, token string) int {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "1", "method": "aria2.getVersion", "params": []any{"token:" + token}})
		resp, err := http.Post(endpoint, "application/json", bytes.NewReader(body))
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := call(r.Endpoint, r.Secret); code != http.StatusOK {
		t.Errorf("getVersion with the secret: HTTP %d", code)
	}
	if code := call(r.Endpoint, "wrong"); code != http.StatusBadRequest {
		t.Errorf("getVersion with a wrong token: HTTP %d, want 400", code)
	}
	b.Close()
	if code := call(r.Endpoint, r.Secret); code != 0 {
		t.Errorf("the window closed, and the remote control still answers (HTTP %d)", code)
	}
	q.Close()
	filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(r.Secret)) {
				t.Errorf("%s holds the remote control's secret", p)
			}
		}
		return nil
	})

	// The next start turns it on again, with a new secret.
	q2, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q2.Close() })
	b2 := newBackend(t, q2)
	if err := b2.Start(false); err != nil {
		t.Fatal(err)
	}
	r2 := b2.Remote()
	if !r2.On || r2.Secret == r.Secret {
		t.Fatalf("after a restart: %+v (secret kept: %v)", r2, r2.Secret == r.Secret)
	}
	if code := call(r2.Endpoint, r2.Secret); code != http.StatusOK {
		t.Errorf("after a restart, getVersion: HTTP %d", code)
	}
	if r3, err := b2.SetRemote(ui.Remote{Address: r2.Address}); err != nil || r3.On {
		t.Fatalf("off: %+v, %v", r3, err)
	}
	if code := call(r2.Endpoint, r2.Secret); code != 0 {
		t.Errorf("turned off, the remote control still answers (HTTP %d)", code)
	}
}
