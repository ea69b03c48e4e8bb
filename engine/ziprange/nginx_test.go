package ziprange

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/netconf"
	"braid/engine/netconf/netconftest"
	"braid/engine/transport"
)

// nginxSent sums the body bytes nginx's access log (combined format)
// records for GET requests of path, once it records want of them: nginx
// writes a line after the response, which the client may have read
// before.
func nginxSent(t *testing.T, dir, path string, want int) (requests int, sent int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		requests, sent = nginxLog(t, dir, path)
		if requests >= want || time.Now().After(deadline) {
			return requests, sent
		}
		<-tick.C
	}
}

// nginxLog reads the access log once.
func nginxLog(t *testing.T, dir, path string) (requests int, sent int64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.Contains(line, `"GET `+path+` `) {
			continue
		}
		// ... "GET /p HTTP/1.1" 206 1234 "-" "ua"
		_, after, _ := strings.Cut(line, `HTTP/1.1" `)
		f := strings.Fields(after)
		if len(f) < 2 {
			t.Fatalf("unreadable log line %q", line)
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			t.Fatalf("unreadable log line %q", line)
		}
		requests++
		sent += n
	}
	return requests, sent
}

// TestNginxMembersMatchUnzip reads a ZIP from Debian's nginx behind a
// login given as Braid's session (so logins apply), and compares each
// member with what Info-ZIP's unzip extracts from the same archive.
func TestNginxMembersMatchUnzip(t *testing.T) {
	t.Parallel()
	unzip, err := exec.LookPath("unzip")
	if err != nil {
		if runtime.GOOS == "windows" {
			t.Skip("needs unzip and nginx, Linux programs (Debian packages unzip, nginx); a test binary under Wine finds only Windows programs")
		}
		t.Skip("unzip is not installed (Debian package unzip): skipping")
	}
	deflated := text(3<<20, 11)
	stored := mirrortest.Bytes(2<<20, 12)
	archive := makeZip(t,
		entry{Name: "data/log.txt", Data: deflated, Method: zip.Deflate},
		entry{Name: "data/", Method: zip.Store},
		entry{Name: "blob.bin", Data: stored, Method: zip.Store},
		entry{Name: "small.txt", Data: text(700, 13), Method: zip.Deflate},
		entry{Name: "empty", Method: zip.Deflate},
	)
	srv := netconftest.Nginx(t, map[string][]byte{"a.zip": archive}, "zipper", "zip-pass")
	link := srv.URL + "/basic/a.zip"
	session, err := netconf.Settings{HTTPUser: "zipper", HTTPPasswd: "zip-pass", NoNetrc: true, Links: []string{link}}.Open()
	if err != nil {
		t.Fatal(err)
	}
	src, err := transport.NewHTTP(link, transport.Options{Size: -1, Session: session})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := Open(ctx, src, -1)
	if err != nil {
		t.Fatal(err)
	}
	reqs, sent := nginxSent(t, srv.Dir, "/basic/a.zip", a.Requests())
	if sent != tailLen || a.BytesRead() != tailLen {
		t.Errorf("nginx sent %d bytes in %d GETs for the list (read %d), want the %d-byte tail", sent, reqs, a.BytesRead(), tailLen)
	}

	local := filepath.Join(t.TempDir(), "a.zip")
	if err := os.WriteFile(local, archive, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, m := range a.Members {
		if m.Dir {
			continue
		}
		_, before := nginxSent(t, srv.Dir, "/basic/a.zip", a.Requests())
		got, err := a.Extract(ctx, m, dir)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		want, err := exec.Command(unzip, "-p", local, m.Name).Output()
		if err != nil {
			t.Fatalf("unzip -p %s: %v", m.Name, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(got.Name)))
		if err != nil || !bytes.Equal(b, want) {
			t.Errorf("%s: %d bytes differ from unzip's %d (%v)", m.Name, len(b), len(want), err)
		}
		_, after := nginxSent(t, srv.Dir, "/basic/a.zip", a.Requests())
		// Members in the tail come from it; the others cost their
		// header and their compressed bytes.
		if m.HeaderOffset >= a.Size-tailLen {
			if after != before {
				t.Errorf("%s lies in the tail, yet nginx sent %d bytes for it", m.Name, after-before)
			}
		} else if after-before != 30+m.CompressedSize {
			t.Errorf("%s: nginx sent %d bytes for %d compressed bytes", m.Name, after-before, m.CompressedSize)
		}
	}
}

// TestNginxWrongLogin: a login the server refuses is the transport's
// login error, not a broken archive.
func TestNginxWrongLogin(t *testing.T) {
	t.Parallel()
	archive := makeZip(t, entry{Name: "x", Data: []byte("x"), Method: zip.Store})
	srv := netconftest.Nginx(t, map[string][]byte{"a.zip": archive}, "zipper", "zip-pass")
	src, err := transport.NewHTTP(srv.URL+"/basic/a.zip", transport.Options{Size: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), src, -1)
	var le *transport.LoginError
	if !errors.As(err, &le) {
		t.Fatalf("Open: %v; want a login error", err)
	}
}
