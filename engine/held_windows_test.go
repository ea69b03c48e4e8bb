package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
)

// TestHeldPartWaits: another program (a player, a virus scanner) holds
// NAME.part open without sharing it for deletion, as Go's os.Open does on
// Windows, when every byte has arrived. The download neither fails nor
// loses a byte: it waits, says so in its snapshot, and ends verified at
// its name once the handle is closed.
func TestHeldPartWaits(t *testing.T) {
	t.Parallel()
	data := testkit.Data(1 << 20)
	m := mirrortest.New(t, data, mirrortest.Rate(2<<20))
	dir := t.TempDir()
	dl := (&Client{}).Do(t.Context(), &Request{Dir: dir, File: fileFor("f.bin", data, 256<<10, m.URL())})
	part := filepath.Join(dir, "f.bin"+partSuffix)
	var held *os.File
	deadline := time.Now().Add(30 * time.Second)
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
	var s Snapshot
	for {
		dl.SnapshotInto(&s)
		if s.Held != "" {
			break
		}
		if s.State >= StateDone || time.Now().After(deadline) {
			t.Fatalf("no wait reported while f.bin.part is held; state %s, err %v", s.State, s.Err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s.State != StateWaiting || !strings.Contains(s.Held, "f.bin.part is open in another program") {
		t.Fatalf("while held: state %s, Held %q", s.State, s.Held)
	}
	time.Sleep(300 * time.Millisecond) // a few tries while it is still held
	if s := dl.Snapshot(); s.State != StateWaiting {
		t.Fatalf("state %s (err %v) while the file is still held", s.State, s.Err)
	}
	held.Close()
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	s = dl.Snapshot()
	if s.State != StateDone || s.Held != "" || s.VerifiedBy == "" {
		t.Fatalf("after the handle closed: state %s, Held %q, verified by %q", s.State, s.Held, s.VerifiedBy)
	}
	wantFile(t, dir, "f.bin", data)
	noFile(t, dir, "f.bin"+partSuffix+pieceLogSuffix)
}
