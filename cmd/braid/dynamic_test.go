package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/queue"
)

// get of a dynamic metalink whose mirrors fail asks its origin, which
// lists another mirror, and finishes from it.
func TestGetDynamicMetalink(t *testing.T) {
	t.Parallel()
	data := getData(300_000)
	gone := mirrortest.New(t, data, mirrortest.Status(http.StatusNotFound), mirrortest.Addr("127.0.0.2"))
	good := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"))
	dir := t.TempDir()
	fresh := readDoc(t, signedMeta4(t, t.TempDir(), data, "", gone.URL(), good.URL()))
	var fetches atomic.Int32
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		w.Header().Set("Content-Type", "application/metalink4+xml")
		w.Write(fresh)
	}))
	defer origin.Close()
	fresh = dynamicDoc(t, fresh, origin.URL+"/image.meta4")
	local := filepath.Join(t.TempDir(), "local.meta4")
	if err := os.WriteFile(local, dynamicDoc(t, readDoc(t, signedMeta4(t, t.TempDir(), data, "", gone.URL())), origin.URL+"/image.meta4"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runIn(t, cmdGet, "--state", t.TempDir(), "-d", dir, local)
	if code != 0 || !strings.Contains(errs, "origin lists 1 more mirrors") || fetches.Load() != 1 {
		t.Fatalf("get: %d (origin fetched %d times)\n%s\n%s", code, fetches.Load(), out, errs)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "image.iso")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("file: %v", err)
	}
}

func readDoc(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dynamicDoc marks a metalink document dynamic, with origin.
func dynamicDoc(t *testing.T, doc []byte, origin string) []byte {
	t.Helper()
	d, err := metalink.Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	d.Origin, d.Dynamic = origin, true
	var b bytes.Buffer
	if err := metalink.Write(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// get resuming a dynamic download last refreshed long ago asks the origin
// before it starts, keeping the pieces it has.
func TestGetDynamicRefreshesBeforeResuming(t *testing.T) {
	const pl = 64 << 10
	data := getData(1 << 20)
	bad := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Corrupt(pl, func(i int) bool { return i >= 4 }))
	good := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"))
	var up atomic.Bool
	var fetches atomic.Int32
	var fresh []byte
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		if !up.Load() {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/metalink4+xml")
		w.Write(fresh)
	}))
	defer origin.Close()
	meta := origin.URL + "/image.meta4"
	fresh = dynamicDoc(t, []byte(writeMeta4Doc(t, data, pl, good.URL())), meta)
	local := filepath.Join(t.TempDir(), "local.meta4")
	if err := os.WriteFile(local, dynamicDoc(t, []byte(writeMeta4Doc(t, data, pl, bad.URL())), meta), 0o644); err != nil {
		t.Fatal(err)
	}
	state, dir := t.TempDir(), t.TempDir()
	if code, out, errs := runIn(t, cmdGet, "--state", state, "-d", dir, local); code != 1 {
		t.Fatalf("first get: %d\n%s\n%s", code, out, errs)
	}
	up.Store(true)
	saved := queue.RefreshAfter
	queue.RefreshAfter = 0
	defer func() { queue.RefreshAfter = saved }()
	served, asked := good.BytesServed(), len(good.Ranges())
	code, out, errs := runIn(t, cmdGet, "--state", state, "-d", dir, local)
	if code != 0 || strings.Contains(errs, "braid get:") || !strings.Contains(errs, "lists 1 more mirrors") {
		t.Fatalf("second get: %d; want the origin asked before the download\n%s\n%s", code, out, errs)
	}
	if good.BytesServed() == served {
		t.Fatal("the new mirror served nothing")
	}
	// The 4 good pieces are kept: no request asks for them again. (The
	// mirror's count of bytes written is not the measure: it sends a
	// range whole into the kernel's buffers, though braid stops reading
	// where another mirror took over the rest of the segment.)
	for _, r := range good.Ranges()[asked:] {
		if r.Method == http.MethodGet && r.Off < 4*pl {
			t.Errorf("the new mirror was asked for bytes %d-%d; the 4 good pieces are kept", r.Off, r.Off+r.N-1)
		}
	}
	if !strings.Contains(out, "256 KiB were on disk from before") {
		t.Errorf("second get says %q; want the 256 KiB kept named", out)
	}
}

// writeMeta4Doc is a .meta4 for data named image.iso with sha-256 pieces
// of pl bytes and mirrors urls.
func writeMeta4Doc(t *testing.T, data []byte, pl int, urls ...string) string {
	t.Helper()
	b, err := os.ReadFile(writeMeta4(t, t.TempDir(), "image.iso", data, pl, "", urls...))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
