package queue

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/zalando/go-keyring"

	"braid/engine/netconf"
	"braid/queue/queuetest"
)

// stateHolds reports whether any file of the state folder dir holds s.
func stateHolds(t *testing.T, dir, s string) bool {
	t.Helper()
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err == nil && bytes.Contains(raw, []byte(s)) {
			found = true
		}
		return nil
	})
	return found
}

var secretSettings = netconf.Settings{HTTPUser: "ann", HTTPPasswd: "pw-in-memory-only",
	Headers: []string{"Cookie: sid=cookie-value-7", "X-Token: token-value-9"}, UserAgent: "UA/1",
	Links: []string{"https://ann:link-pw-3@files.example/f.bin"}, NoNetrc: true}

// Not parallel: it sets the package's keyring (UseKeyring), which the
// other tests read.
func TestNetKeptWithoutKeyring(t *testing.T) {
	UseKeyring(nil)
	dir := t.TempDir()
	q := queuetest.Open(t, Open, dir)
	var note, note2 string
	id, err := q.Add(NewJob{Source: "https://files.example/f.bin", Dest: t.TempDir(), Doc: queuetest.Doc(100, 0, "f.bin"), Net: &secretSettings, NetNote: &note})
	if err != nil {
		t.Fatal(err)
	}
	if note != NoKeyringNote {
		t.Errorf("note %q, want the no-keyring sentence once", note)
	}
	if s, _ := q.StateOf(id); s != Queued {
		t.Errorf("added as %s, want queued", s)
	}
	if _, err := q.Add(NewJob{Source: "https://files.example/g.bin", Dest: t.TempDir(), Doc: queuetest.Doc(100, 0, "g.bin"), Net: &secretSettings, NetNote: &note2, Paused: true}); err != nil || note2 != "" {
		t.Errorf("the sentence said twice: %q", note2)
	}
	// Another Queue of the same folder in this process (the window's and
	// a get's) finds the secret.
	q2 := queuetest.Open(t, Open, dir)
	got, ok, lost, err := q2.Net(id)
	if err != nil || !ok || lost {
		t.Fatalf("Net: ok %v lost %v err %v", ok, lost, err)
	}
	if got.HTTPPasswd != secretSettings.HTTPPasswd || len(got.Headers) != 2 || got.UserAgent != "UA/1" || got.HTTPUser != "ann" {
		t.Errorf("settings back: %v", got)
	}
	for _, s := range []string{"pw-in-memory-only", "cookie-value-7", "token-value-9", "link-pw-3"} {
		if stateHolds(t, dir, s) {
			t.Errorf("the state folder holds %q", s)
		}
	}
	if !stateHolds(t, dir, "UA/1") {
		t.Error("the public part was not kept")
	}
	// A process that did not see the secret (simulated by forgetting it)
	// gets the public part and is told the secret is lost.
	secrets.mu.Lock()
	clear(secrets.m)
	secrets.mu.Unlock()
	got, ok, lost, err = q.Net(id)
	if err != nil || !ok || !lost || got.HTTPUser != "ann" || got.HTTPPasswd != "" {
		t.Errorf("after the session: %v ok %v lost %v err %v", got, ok, lost, err)
	}
}

// Not parallel: it sets the package's keyring (UseKeyring), which the
// other tests read.
func TestNetInKeyringRemovedWithJob(t *testing.T) {
	keyring.MockInit() // go-keyring's in-memory provider
	UseKeyring(systemKeyring{})
	t.Cleanup(func() { UseKeyring(nil) })
	dir := t.TempDir()
	q := queuetest.Open(t, Open, dir)
	note := "unset"
	id, err := q.Add(NewJob{Source: "https://files.example/f.bin", Dest: t.TempDir(), Doc: queuetest.Doc(100, 0, "f.bin"), Net: &secretSettings, NetNote: &note, Paused: true})
	if err != nil || note != "" {
		t.Fatalf("add: note %q err %v", note, err)
	}
	service, user := q.secretKey(id)
	if v, err := keyring.Get(service, user); err != nil || !bytes.Contains([]byte(v), []byte("cookie-value-7")) {
		t.Fatalf("the keyring holds %q (%v)", v, err)
	}
	secrets.mu.Lock()
	clear(secrets.m) // a new process: only the keyring has it
	secrets.mu.Unlock()
	got, _, lost, err := q.Net(id)
	if err != nil || lost || got.HTTPPasswd != "pw-in-memory-only" {
		t.Errorf("from the keyring: lost %v err %v", lost, err)
	}
	if err := q.Remove(id); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(service, user); err == nil {
		t.Error("the keyring item outlived its job")
	}
	if _, ok, _, err := q.Net(id); ok || err != nil {
		t.Errorf("settings outlived the job: %v %v", ok, err)
	}
}
