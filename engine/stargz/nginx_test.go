package stargz

import (
	"bytes"
	"context"
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
	"braid/engine/stargz/stargztest"
	"braid/engine/transport"
	"braid/engine/ziprange/ziptest"
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

// TestNginxFilesMatchTar reads eStargz blobs from Debian's nginx behind a
// login given as Braid's session, and compares each file with what GNU
// tar extracts from the same blob: a test blob, and the reference
// writer's. nginx's log shows the list cost the footer and the TOC, and
// each file its own chunks.
func TestNginxFilesMatchTar(t *testing.T) {
	t.Parallel()
	gnuTar, err := exec.LookPath("tar")
	if err != nil {
		if runtime.GOOS == "windows" {
			t.Skip("needs tar and nginx, Linux programs (Debian packages tar, nginx); a test binary under Wine finds only Windows programs")
		}
		t.Skip("tar is not installed (Debian package tar): skipping")
	}
	sb := stargztest.Make(t, stargztest.Options{ChunkSize: 512 << 10},
		stargztest.File{Name: "pad.bin", Data: mirrortest.Bytes(2<<20, 21)},
		stargztest.File{Name: "data/", Type: "dir"},
		stargztest.File{Name: "data/log.txt", Data: ziptest.Text(3<<20, 22)},
		stargztest.File{Name: "data/small.txt", Data: ziptest.Text(700, 23)},
		stargztest.File{Name: "empty"},
	)
	ref, err := os.ReadFile(realBlob)
	if err != nil {
		t.Fatal(err)
	}
	srv := netconftest.Nginx(t, map[string][]byte{"a.tar.gz": sb.Bytes, "ref.tar.gz": ref}, "tarrer", "tar-pass")
	for _, c := range []struct {
		name  string
		data  []byte
		index int64 // the footer's and TOC's bytes; 0: not checked
		test  *stargztest.Blob
	}{
		{"a.tar.gz", sb.Bytes, sb.IndexBytes(), sb},
		{"ref.tar.gz", ref, 0, nil},
	} {
		path := "/basic/" + c.name
		link := srv.URL + path
		session, err := netconf.Settings{HTTPUser: "tarrer", HTTPPasswd: "tar-pass", NoNetrc: true, Links: []string{link}}.Open()
		if err != nil {
			t.Fatal(err)
		}
		src, err := transport.NewHTTP(link, transport.Options{Size: -1, Session: session})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		b, err := Open(ctx, src, -1)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		reqs, sent := nginxSent(t, srv.Dir, path, b.Requests())
		if reqs != 2 || sent != b.BytesRead() || c.index != 0 && sent != c.index {
			t.Errorf("%s: nginx sent %d bytes in %d GETs for the list (read %d), want the footer and TOC's %d in 2", c.name, sent, reqs, b.BytesRead(), c.index)
		}
		local := filepath.Join(t.TempDir(), c.name)
		if err := os.WriteFile(local, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		files := 0
		for _, e := range b.Entries {
			if e.Type != TypeFile || strings.HasPrefix(e.Name, ".") { // the landmark's mode is 0
				continue
			}
			files++
			_, before := nginxSent(t, srv.Dir, path, b.Requests())
			got, err := b.Extract(ctx, e, dir)
			if err != nil {
				t.Fatalf("%s: %s: %v", c.name, e.Name, err)
			}
			want, err := exec.Command(gnuTar, "-xzOf", local, e.Name).Output()
			if err != nil {
				t.Fatalf("tar -xzO %s: %v", e.Name, err)
			}
			have, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(got.Name)))
			if err != nil || !bytes.Equal(have, want) {
				t.Errorf("%s: %s: %d bytes differ from tar's %d (%v)", c.name, e.Name, len(have), len(want), err)
			}
			_, after := nginxSent(t, srv.Dir, path, b.Requests())
			if after-before != e.CompressedSize() || c.test != nil && after-before != c.test.ChunkBytes(e.Name) {
				t.Errorf("%s: %s: nginx sent %d bytes, want its chunks' %d", c.name, e.Name, after-before, e.CompressedSize())
			}
		}
		if files < 4 {
			t.Errorf("%s: %d files compared", c.name, files)
		}
	}
}
