package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
)

// fileFor describes data as a metalink file named name: sha-256 whole-file
// hash, and sha-256 piece hashes when pieceLen > 0.
func fileFor(name string, data []byte, pieceLen int64, urls ...string) metalink.File {
	sum := sha256.Sum256(data)
	f := metalink.File{
		Name:   name,
		Size:   int64(len(data)),
		Hashes: []metalink.Hash{{Type: "sha-256", Value: hex.EncodeToString(sum[:])}},
	}
	if pieceLen > 0 {
		p := &metalink.Pieces{Type: "sha-256", Length: pieceLen}
		for off := int64(0); off < int64(len(data)); off += pieceLen {
			s := sha256.Sum256(data[off:min(off+pieceLen, int64(len(data)))])
			p.Hashes = append(p.Hashes, hex.EncodeToString(s[:]))
		}
		f.Pieces = p
	}
	for i, u := range urls {
		f.URLs = append(f.URLs, metalink.URL{URL: u, Priority: i + 1})
	}
	return f
}

// urls lists the mirrors' URLs.
func urls(ms ...*mirrortest.Mirror) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.URL())
	}
	return out
}

// get runs one download to its end with a test timeout.
func get(t *testing.T, c *Client, req *Request) (Snapshot, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dl := c.Do(ctx, req)
	err := dl.Err()
	return dl.Snapshot(), err
}

// getWatching is get, calling watch with the download's snapshot every
// 10 ms while it runs, and with its last.
func getWatching(t *testing.T, c *Client, req *Request, watch func(*Snapshot)) (Snapshot, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dl := c.Do(ctx, req)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var snap Snapshot
	for {
		select {
		case <-dl.Done():
			err := dl.Err()
			dl.SnapshotInto(&snap)
			watch(&snap)
			return snap, err
		case <-tick.C:
			dl.SnapshotInto(&snap)
			watch(&snap)
		}
	}
}

// wantFile checks that dir holds name with exactly data and no .part.
func wantFile(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("final file: %v", err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("final file differs from the data (%d bytes, want %d)", len(got), len(data))
	}
	if _, err := os.Stat(filepath.Join(dir, name+partSuffix)); !os.IsNotExist(err) {
		t.Fatalf(".part still there: %v", err)
	}
}

// noFile checks that nothing is at the final name.
func noFile(t *testing.T, dir, name string) {
	t.Helper()
	if _, err := os.Lstat(filepath.Join(dir, name)); !os.IsNotExist(err) {
		t.Fatalf("%s exists (err %v), want no file at the final name", name, err)
	}
}

// mirrorByURL finds a mirror's snapshot.
func mirrorByURL(t *testing.T, s Snapshot, u string) MirrorSnapshot {
	t.Helper()
	for _, m := range s.Mirrors {
		if m.URL == u {
			return m
		}
	}
	t.Fatalf("no mirror %s in snapshot", u)
	return MirrorSnapshot{}
}

// filledBy counts the pieces each mirror filled, by URL.
func filledBy(s Snapshot) map[string]int {
	out := map[string]int{}
	for i, f := range s.Filler {
		if f >= 0 && s.Pieces[i] == PieceDone {
			out[s.Mirrors[f].URL]++
		}
	}
	return out
}
