package torrent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"braid/engine"
)

// A running torrent's file is read through the library's reader on
// Streams' loopback server, with ranges: from a real seeder through a
// 1 MiB/s limit, in order (so the job itself asks only for a window at
// the front), a range 12 MiB into a 16 MiB file comes back with the
// file's bytes within seconds, while pieces before it are still missing
// (the job alone would reach them after some 12 s). A plain GET's length
// is the file's; an unknown address is not found; once the job stops
// before the file is whole, its address says it is gone.
func TestStreamReadsAheadOfTheDownload(t *testing.T) {
	t.Parallel()
	data := randomBytes(t, 16<<20+7)
	src := t.TempDir()
	mi := makeTorrent(t, src, "one", []testFile{{Path: "film.mkv", Data: data}})
	addr := seeder(t, src, mi)
	c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, DownloadLimit: 1 << 20})
	t.Cleanup(func() { c.Close() })
	spec := specOf(t, mi)
	spec.Peers = []string{addr}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := c.Start(ctx, &Request{Dir: t.TempDir(), Spec: spec, InOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Stop)
	for end := time.Now().Add(time.Minute); len(j.Files()) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the torrent's files were not known within a minute")
		}
	}
	s, err := NewStreams()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.URL(j, "one/nothing.bin"); err == nil {
		t.Error("a name the torrent does not hold was given an address")
	}
	u, err := s.URL(j, "one/film.mkv")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("served at %s", u)

	const from, to = 12 << 20, 12<<20 + 300<<10 - 1
	get := func(u, rng string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	start := time.Now()
	resp, body := get(u, fmt.Sprintf("bytes=%d-%d", from, to))
	took := time.Since(start)
	snap := j.Snapshot()
	if resp.StatusCode != http.StatusPartialContent {
		t.Fatalf("a range read: %s", resp.Status)
	}
	if !bytes.Equal(body, data[from:to+1]) {
		t.Fatalf("a range read returned %d bytes that are not the file's %d at %d", len(body), to+1-from, from)
	}
	missing := -1 // a piece before the range not done when it was read
	for i, st := range snap.Pieces[:from/testPieceLen] {
		if st != engine.PieceDone {
			missing = i
			break
		}
	}
	t.Logf("the range at %d MiB took %s; first missing piece before it: %d of %d", from>>20, took.Round(time.Millisecond), missing, len(snap.Pieces))
	if missing < 0 {
		t.Fatalf("every piece before %d MiB was done when the range was read: the test shows nothing of the reader", from>>20)
	}

	req, _ := http.NewRequestWithContext(ctx, http.MethodHead, u, nil)
	head, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	head.Body.Close()
	if head.ContentLength != int64(len(data)) || head.Header.Get("Accept-Ranges") != "bytes" {
		t.Errorf("HEAD: length %d, Accept-Ranges %q; want %d, bytes", head.ContentLength, head.Header.Get("Accept-Ranges"), len(data))
	}
	if resp, _ := get(u[:len(u)-len("/film.mkv")-3]+"abc/film.mkv", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a guessed address: %s, want 404", resp.Status)
	}

	j.Stop()
	if resp, body := get(u, "bytes=0-99"); resp.StatusCode != http.StatusGone {
		t.Errorf("after the job stopped: %s %q, want 410", resp.Status, body)
	} else if !bytes.Contains(body, []byte(ErrStreamEnded.Error())) {
		t.Errorf("after the job stopped the server says %q", body)
	}
}
