package torrent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/mirrortest"
)

// TestHeldPartWaits: another program (a player, a virus scanner) holds a
// torrent file's NAME.part open without sharing it for deletion, as Go's
// os.Open does on Windows, when its last piece arrives. The job neither
// fails nor loses a byte: it waits, says so in its snapshot, and ends with
// the file at its name once the handle is closed.
func TestHeldPartWaits(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 16*testPieceLen)
	m := mirrortest.New(t, data, mirrortest.Rate(int64(len(data))))
	mi := makeTorrent(t, src, "held.bin", []testFile{{Path: "", Data: data}}, m.URL())
	dest := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	j, err := newTestClient(t).Start(ctx, &Request{Dir: dest, Spec: specOf(t, mi)})
	if err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dest, "held.bin"+partSuffix)
	var held *os.File
	deadline := time.Now().Add(time.Minute)
	for held == nil {
		if time.Now().After(deadline) {
			t.Fatal("no .part appeared")
		}
		if f, err := os.Open(part); err == nil {
			held = f
		}
		time.Sleep(5 * time.Millisecond)
	}
	defer held.Close()
	for {
		s := j.Snapshot()
		if s.Held != "" {
			if s.State != engine.StateWaiting || !strings.Contains(s.Held, "held.bin.part is open in another program") {
				t.Fatalf("while held: state %s, Held %q", s.State, s.Held)
			}
			break
		}
		if s.State >= engine.StateDone || time.Now().After(deadline) {
			t.Fatalf("no wait reported while held.bin.part is held; state %s, err %v", s.State, s.Err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // a few tries while it is still held
	if s := j.Snapshot(); s.State != engine.StateWaiting {
		t.Fatalf("state %s (err %v) while the file is still held", s.State, s.Err)
	}
	held.Close()
	if err := j.Err(); err != nil {
		t.Fatal(err)
	}
	if s := j.Snapshot(); s.State != engine.StateDone || s.Held != "" {
		t.Fatalf("after the handle closed: state %s, Held %q", s.State, s.Held)
	}
	sameFile(t, dest, "held.bin", data)
}
