package queue

import (
	"strings"
	"testing"

	"braid/queue/queuetest"

	"github.com/zalando/go-keyring"
)

// TestSetNetRemember: a login given after a server asked joins the job's
// settings (its headers stay), as the window gives it. Remembered, the password is in the keyring
// and found by a new process; not remembered, it is in memory only, the
// keyring's copy is gone, and a new process finds it lost. Neither way is
// it in the state folder.
//
// Not parallel: it sets the package's keyring (UseKeyring), which the
// other tests read.
func TestSetNetRemember(t *testing.T) {
	keyring.MockInit()
	UseKeyring(systemKeyring{})
	t.Cleanup(func() { UseKeyring(nil) })
	if !KeyringAvailable() {
		t.Fatal("the mock keyring is not available")
	}
	dir := t.TempDir()
	q := queuetest.Open(t, Open, dir)
	withHeader := secretSettings
	withHeader.HTTPUser, withHeader.HTTPPasswd = "", ""
	id, err := q.Add(NewJob{Source: "https://files.example/f.bin", Dest: t.TempDir(), Doc: queuetest.Doc(100, 0, "f.bin"), Net: &withHeader, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	login := func(user, password string, remember bool) error {
		s, _, _, err := q.Net(id)
		if err != nil {
			return err
		}
		s.HTTPUser, s.HTTPPasswd = user, password
		_, err = q.SetNet(id, s, remember)
		return err
	}
	const pass = "typed-in-the-prompt-5"
	if err := login("ann", pass, true); err != nil {
		t.Fatal(err)
	}
	service, user := q.secretKey(id)
	if v, err := keyring.Get(service, user); err != nil || !strings.Contains(v, pass) {
		t.Fatalf("remembered: the keyring holds %q (%v)", v, err)
	}
	secrets.mu.Lock()
	clear(secrets.m)
	secrets.mu.Unlock()
	got, _, lost, err := q.Net(id)
	if err != nil || lost || got.HTTPUser != "ann" || got.HTTPPasswd != pass || len(got.Headers) != 2 {
		t.Fatalf("remembered, in a new process: %v lost %v err %v", got, lost, err)
	}

	if err := login("bob", pass+"-b", false); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(service, user); err == nil {
		t.Error("not remembered: the keyring still holds the job's secret")
	}
	if got, _, lost, _ := q.Net(id); lost || got.HTTPUser != "bob" || got.HTTPPasswd != pass+"-b" {
		t.Errorf("not remembered, this session: %v lost %v", got, lost)
	}
	secrets.mu.Lock()
	clear(secrets.m)
	secrets.mu.Unlock()
	if got, _, lost, _ := q.Net(id); !lost || got.HTTPPasswd != "" || got.HTTPUser != "bob" {
		t.Errorf("not remembered, a new process: %v lost %v, want the password lost", got, lost)
	}
	if stateHolds(t, dir, pass) {
		t.Error("the state folder holds the password")
	}
}

// TestProxyPassword: remembered in the keyring and found by a new
// process; not remembered, for this process only; "" forgets it. Never in
// the state folder.
//
// Not parallel: it sets the package's keyring (UseKeyring), which the
// other tests read.
func TestProxyPassword(t *testing.T) {
	keyring.MockInit()
	UseKeyring(systemKeyring{})
	t.Cleanup(func() { UseKeyring(nil) })
	dir := t.TempDir()
	q := queuetest.Open(t, Open, dir)
	const pw = "proxy-pw-in-keyring-3"
	if note := q.SetSecret(ProxyPassword, pw, true); note != "" {
		t.Errorf("note %q", note)
	}
	secrets.mu.Lock()
	clear(secrets.m)
	secrets.mu.Unlock()
	if got, ok := q.Secret(ProxyPassword); !ok || got != pw {
		t.Errorf("remembered, a new process: %q %v", got, ok)
	}
	q.SetSecret(ProxyPassword, pw+"-s", false)
	secrets.mu.Lock()
	clear(secrets.m)
	secrets.mu.Unlock()
	if got, ok := q.Secret(ProxyPassword); ok {
		t.Errorf("not remembered, a new process found %q", got)
	}
	q.SetSecret(ProxyPassword, pw, false)
	q.SetSecret(ProxyPassword, "", false)
	if got, ok := q.Secret(ProxyPassword); ok {
		t.Errorf("forgotten, found %q", got)
	}
	if stateHolds(t, dir, pw) {
		t.Error("the state folder holds the proxy password")
	}
	UseKeyring(nil)
	if note := q.SetSecret(ProxyPassword, pw, true); note != NoKeyringNote {
		t.Errorf("without a keyring: note %q", note)
	}
}
