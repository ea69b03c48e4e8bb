package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"braid/engine/ftptest"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/engine/torrent/torrenttest"
	"braid/engine/transport"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
	"braid/ui"
)

// TestLoginThroughBridge: a job whose file nginx keeps behind auth_basic
// fails asking for a login; the window is told which server asks (Log in
// as its mend). A wrong password, remembered, fails again as refused,
// the user name kept; the right one lands the file. Remembered, the
// password is in the keyring (go-keyring's in-memory one here) and not in
// the state folder.
//
// Not parallel: it sets the queue's process-wide keyring
// (queue.UseKeyring), which also resets the once-per-process note that
// secrets are kept for the session only.
func TestLoginThroughBridge(t *testing.T) {
	keyring.MockInit()
	queue.UseKeyring(keyringOf{})
	t.Cleanup(func() { queue.UseKeyring(nil) })
	const user, pass = "ann", "bridge-login-pw-31"
	data := mirrortest.Bytes(200<<10, 61)
	origin := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, user, pass)
	state := t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	b := newBackend(t, q)
	if !b.CanRemember() {
		t.Fatal("the mock keyring is not available")
	}
	dir := t.TempDir()
	link := origin.URL + "/basic/f.bin"
	doc := &metalink.Document{Version: 4, Files: []metalink.File{describeData(t, "f.bin", data, link)}}
	id64, err := q.Add(queue.NewJob{Source: link, Dest: dir, Doc: doc})
	if err != nil {
		t.Fatal(err)
	}
	id := ui.JobID(id64)
	state1 := func() queue.State { s, _ := q.StateOf(id64); return s }
	if err := b.Start(true); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the job to stop for a login", func() bool { return state1() == queue.Failed })
	req, ok := b.LoginWanted(id)
	host := strings.TrimPrefix(origin.URL, "http://")
	if !ok || req.Host != host || req.Refused || req.User != "" {
		t.Fatalf("LoginWanted = %+v, %v; want %s asking", req, ok, host)
	}
	if v := jobByID(t, b, id); v.Mend != ui.MendLogin {
		t.Errorf("the window's row has mend %d, want Log in", v.Mend)
	}

	if _, err := b.GiveLogin(id, user, "wrong-"+pass, true); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the wrong password refused", func() bool {
		r, ok := b.LoginWanted(id)
		return state1() == queue.Failed && ok && r.Refused
	})
	if r, _ := b.LoginWanted(id); r.User != user {
		t.Errorf("after a refusal the user name is %q, want %q kept", r.User, user)
	}
	if _, err := b.GiveLogin(id, user, pass, true); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the file after the login", func() bool { return state1() == queue.Done })
	if got, _ := os.ReadFile(filepath.Join(dir, "f.bin")); !bytes.Equal(got, data) {
		t.Error("f.bin is not the origin's")
	}
	if _, ok := b.LoginWanted(id); ok {
		t.Error("a done job still wants a login")
	}
	kept, err := keyring.Get("braid", fmt.Sprintf("job %d of %s", id64, q.Path()))
	if err != nil || !strings.Contains(kept, pass) {
		t.Errorf("the remembered password is not in the keyring: %v", err)
	}
	if files := folderHoldsIn(state, pass); len(files) > 0 {
		t.Errorf("the state folder holds the password: %v", files)
	}
}

// keyringOf is go-keyring as the queue's Keyring.
type keyringOf struct{}

func (keyringOf) Set(s, u, p string) error        { return keyring.Set(s, u, p) }
func (keyringOf) Get(s, u string) (string, error) { return keyring.Get(s, u) }
func (keyringOf) Delete(s, u string) error        { return keyring.Delete(s, u) }

// folderHoldsIn names the files under dir that hold s.
func folderHoldsIn(dir, s string) []string {
	var found []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if raw, _ := os.ReadFile(p); bytes.Contains(raw, []byte(s)) {
				found = append(found, p)
			}
		}
		return nil
	})
	return found
}

// TestOpenWithLogin: a plain link behind auth_basic cannot be opened
// without a login (the error is the transport's LoginError, which the
// window asks a login for); with one it opens, and the job Add makes of it
// carries the login from its first run (not remembered: for the session).
//
// Not parallel: it sets the queue's process-wide keyring
// (queue.UseKeyring), which also resets the once-per-process note that
// secrets are kept for the session only.
func TestOpenWithLogin(t *testing.T) {
	queue.UseKeyring(nil)
	const user, pass = "bob", "open-login-pw-8"
	data := mirrortest.Bytes(150<<10, 62)
	// A .torrent behind the same login asks for it as a link does.
	var torrentFile bytes.Buffer
	mi := torrenttest.Make(t, t.TempDir(), "t.bin", 16<<10, []torrenttest.File{{Data: data[:40<<10]}})
	if err := mi.Write(&torrentFile); err != nil {
		t.Fatal(err)
	}
	origin := netconftest.Nginx(t, map[string][]byte{"g.bin": data, "t.torrent": torrentFile.Bytes()}, user, pass)
	state := t.TempDir()
	q := queuetest.Open(t, queue.Open, state)
	b := startedBackend(t, q)
	link := origin.URL + "/basic/g.bin"
	ctx := context.Background()
	var le *transport.LoginError
	for _, l := range []string{link, origin.URL + "/basic/t.torrent"} {
		if _, err := b.Open(ctx, l); !errors.As(err, &le) || le.Proxy || le.Refused {
			t.Fatalf("Open %s without a login: %v; want the server's LoginError", l, err)
		}
	}
	if doc, err := b.OpenWithLogin(ctx, origin.URL+"/basic/t.torrent", user, pass, false); err != nil || len(doc.Files) != 1 || doc.Files[0].Name != "t.bin" {
		t.Fatalf("the .torrent opened with the login: %+v, %v", doc, err)
	}
	if _, err := b.OpenWithLogin(ctx, link, user, "wrong", false); !errors.As(err, &le) || !le.Refused {
		t.Fatalf("Open with a wrong login: %v; want a refused LoginError", err)
	}
	addWithLogin(t, q, b, link, user, pass, data)
	if files := folderHoldsIn(state, pass); len(files) > 0 {
		t.Errorf("the state folder holds the password: %v", files)
	}
}

// addWithLogin opens link with the login (OpenWithLogin), adds its one
// file into a folder of its own, waits until the job is done and checks
// the file against data; it returns the folder.
func addWithLogin(t *testing.T, q *queue.Queue, b *Backend, link, user, pass string, data []byte) string {
	t.Helper()
	ctx := context.Background()
	doc, err := b.OpenWithLogin(ctx, link, user, pass, false)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	id, err := b.Add(ctx, ui.AddRequest{Source: link, Doc: doc, Files: []string{doc.Files[0].Name}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the file read with the login", func() bool { s, _ := q.StateOf(int64(id)); return s == queue.Done })
	if got, _ := os.ReadFile(filepath.Join(dir, doc.Files[0].Name)); !bytes.Equal(got, data) {
		t.Errorf("%s is not the server's", doc.Files[0].Name)
	}
	return dir
}

// TestOpenWithLoginFTP: an ftp link whose server takes no anonymous login
// asks for one when opened (the transport's LoginError, as for HTTP 401);
// opened with the login the user gives, its job downloads with it. Later
// a job of the same server that failed for want of a login is given one
// (GiveLogin) and completes: a login answers an FTP server's question as
// it answers an HTTP server's.
//
// Not parallel: it sets the queue's process-wide keyring
// (queue.UseKeyring), which also resets the once-per-process note that
// secrets are kept for the session only.
func TestOpenWithLoginFTP(t *testing.T) {
	queue.UseKeyring(nil)
	const user, pass = "cy", "ftp-open-login-pw-2"
	data := mirrortest.Bytes(150<<10, 63)
	more := mirrortest.Bytes(90<<10, 64)
	s := ftptest.New(t, ftptest.File("pub/g.bin", data), ftptest.File("pub/h.bin", more), ftptest.User(user, pass))
	state := t.TempDir()
	q := queuetest.Open(t, queue.Open, state)
	b := startedBackend(t, q)
	link := s.URL("pub/g.bin")
	var le *transport.LoginError
	if _, err := b.Open(context.Background(), link); !errors.As(err, &le) || le.Refused {
		t.Fatalf("Open without a login: %v; want the server's LoginError", err)
	}
	dir := addWithLogin(t, q, b, link, user, pass, data)

	// A job of h.bin that ran without a login fails asking for one.
	other := s.URL("pub/h.bin")
	hdoc := &metalink.Document{Version: 4, Files: []metalink.File{describeData(t, "h.bin", more, other)}}
	h64, err := q.Add(queue.NewJob{Source: other, Dest: dir, Doc: hdoc})
	if err != nil {
		t.Fatal(err)
	}
	b.Wake()
	testkit.WaitFor(t, "h.bin to stop for a login", func() bool { s, _ := q.StateOf(h64); return s == queue.Failed })
	if req, ok := b.LoginWanted(ui.JobID(h64)); !ok || req.Refused {
		t.Fatalf("LoginWanted = %+v, %v; want the server asking", req, ok)
	}
	if _, err := b.GiveLogin(ui.JobID(h64), user, pass, false); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "h.bin after the login", func() bool { s, _ := q.StateOf(h64); return s == queue.Done })
	if files := folderHoldsIn(state, pass); len(files) > 0 {
		t.Errorf("the state folder holds the password: %v", files)
	}
}
