package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine"
	"braid/engine/metalink"
	"braid/queue"
	"braid/queue/queuetest"
	"braid/ui"
)

// parityJobDoc lists big.iso with a parity set of 120 recovery blocks
// (an index and volumes of 40 and 80), and notes.txt without one.
func parityJobDoc() *metalink.Document {
	url := func(n string) []metalink.URL { return []metalink.URL{{URL: "http://127.0.0.1:9/" + n, Priority: 1}} }
	return &metalink.Document{Version: 4, Files: []metalink.File{
		{Name: "big.iso", Size: 4 << 20, URLs: url("big.iso"), Hashes: []metalink.Hash{{Type: "sha-256", Value: "00"}}},
		{Name: "big.iso.par2", Size: 40 << 10, URLs: url("big.iso.par2")},
		{Name: "big.iso.vol00+40.par2", Size: 1 << 20, URLs: url("big.iso.vol00+40.par2")},
		{Name: "big.iso.vol40+80.par2", Size: 2 << 20, URLs: url("big.iso.vol40+80.par2")},
		{Name: "notes.txt", Size: 10, URLs: url("notes.txt")},
	}}
}

// TestRebuildingFromParityWords feeds the bridge snapshots that carry the
// engine's parity fields: while pieces are rebuilt the row and the file
// say how many; the pieces rebuilt keep parity's filler in the segment
// map; once the file is verified its words, and the row's, say how many
// pieces parity gave, also after the engine let go of the download.
func TestRebuildingFromParityWords(t *testing.T) {
	t.Parallel()
	if ui.RebuiltFromParity != int(engine.FilledByParity) {
		t.Fatalf("ui.RebuiltFromParity %d is not the engine's FilledByParity %d: the segment map would read parity's pieces as a mirror's", ui.RebuiltFromParity, engine.FilledByParity)
	}
	q := openQueue(t)
	id, err := q.Add(queue.NewJob{Source: "http://127.0.0.1:9/big.meta4", Dest: t.TempDir(), Doc: parityJobDoc(), Selected: []string{"big.iso", "notes.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	b := newBackend(t, q)
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}

	// The parity set is in the file's details; notes.txt has none.
	d, err := b.Detail(ui.JobID(id), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 2 {
		t.Fatalf("files %+v, want big.iso and notes.txt (the parity set is not a file of the job)", d.Files)
	}
	if f := d.Files[0]; !f.HasParity || f.ParityBlocks != 120 {
		t.Errorf("big.iso: parity %v with %d blocks, want 120", f.HasParity, f.ParityBlocks)
	}
	if f := d.Files[1]; f.HasParity {
		t.Errorf("notes.txt has parity: %+v", f)
	}

	// Rebuilding: three pieces no mirror could send good.
	snap := engine.Snapshot{Name: "big.iso", Size: 4 << 20, Bytes: 3 << 20, State: engine.StateDownloading, ETA: -1, Rebuilding: 3,
		Pieces:  []engine.PieceState{engine.PieceDone, engine.PieceActive, engine.PieceDone, engine.PieceDone},
		Filler:  []int16{0, engine.FilledByParity, engine.FilledByParity, 0},
		Mirrors: []engine.MirrorSnapshot{{URL: "http://127.0.0.1:9/big.iso", Host: "127.0.0.1:9"}}}
	var fd ui.FileDetail
	applySnapshot(&fd, &snap, true)
	if want := "rebuilding 3 pieces from parity"; fd.Verification != want {
		t.Errorf("file words %q, want %q", fd.Verification, want)
	}
	if got := fd.Pieces.Mirror; len(got) != 4 || got[1] != ui.RebuiltFromParity || got[2] != ui.RebuiltFromParity || got[0] != 0 {
		t.Errorf("pieces' fillers %v, want parity's for pieces 1 and 2", got)
	}
	// The engine tells the pieces no mirror sent good as failed: while
	// they are rebuilt the map shows them in hand, in parity's colour,
	// and the engine's fillers stay as they were.
	bad := engine.Snapshot{Name: "big.iso", Size: 4 << 20, Bytes: 3 << 20, State: engine.StateDownloading, ETA: -1, Rebuilding: 1,
		Pieces: []engine.PieceState{engine.PieceDone, engine.PieceBad, engine.PieceDone},
		Filler: []int16{0, 1, 1}}
	var bfd ui.FileDetail
	applySnapshot(&bfd, &bad, true)
	if bfd.Pieces.State[1] != ui.PieceActive || bfd.Pieces.Mirror[1] != ui.RebuiltFromParity || bfd.Pieces.Mirror[2] != 1 || bad.Filler[1] != 1 {
		t.Errorf("a failed piece being rebuilt: state %v fillers %v (engine's %v), want in hand by parity", bfd.Pieces.State, bfd.Pieces.Mirror, bad.Filler)
	}
	bad.Rebuilding = 0
	applySnapshot(&bfd, &bad, true)
	if bfd.Pieces.State[1] != ui.PieceBad || bfd.Pieces.Mirror[1] != 1 {
		t.Errorf("a failed piece, no rebuild: state %v fillers %v, want failed", bfd.Pieces.State, bfd.Pieces.Mirror)
	}
	l := newLive()
	l.job, l.state = j, ui.Running
	l.note(&snap)
	snap.Name, snap.Rebuilding = "notes.txt", 1 // a second file of the job, rebuilding too
	l.note(&snap)
	b.mu.Lock()
	v := b.viewLocked(j) // not live yet: no words
	b.live[id] = l
	live := b.viewLocked(j)
	delete(b.live, id)
	b.mu.Unlock()
	if v.Rebuilding != 0 {
		t.Errorf("a job not in hand rebuilds %d pieces", v.Rebuilding)
	}
	if live.Rebuilding != 4 {
		t.Errorf("the row rebuilds %d pieces, want 3 + 1", live.Rebuilding)
	}

	// Verified, with one piece rebuilt, live; then with three, let go of.
	done := engine.Snapshot{Name: "big.iso", Size: 4 << 20, Bytes: 4 << 20, State: engine.StateDone, VerifiedBy: "sha-256", Rebuilt: 1}
	fd = ui.FileDetail{}
	applySnapshot(&fd, &done, false)
	if want := "verified (sha-256), 1 piece rebuilt from parity"; fd.State != ui.FileVerified || fd.Verification != want {
		t.Errorf("verified live: %v %q, want %q", fd.State, fd.Verification, want)
	}
	done.Rebuilt = 0
	applySnapshot(&fd, &done, false)
	if want := "verified (sha-256)"; fd.Verification != want {
		t.Errorf("verified without parity: %q, want %q", fd.Verification, want)
	}

	done.Rebuilt = 3
	for _, name := range []string{"big.iso", "notes.txt"} {
		if err := q.SetFile(id, name, queue.VerifiedBy("sha-256")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Finish(id); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.keepLocked(id, &done)
	b.mu.Unlock()
	d, err = b.Detail(ui.JobID(id), false)
	if err != nil {
		t.Fatal(err)
	}
	if want := "verified (sha-256), 3 pieces rebuilt from parity"; d.Files[0].Verification != want {
		t.Errorf("big.iso, done: %q, want %q", d.Files[0].Verification, want)
	}
	if want := "verified (sha-256)"; d.Files[1].Verification != want {
		t.Errorf("notes.txt, done: %q, want %q", d.Files[1].Verification, want)
	}
	if want := "verified (sha-256), 3 pieces rebuilt from parity"; d.Outcome != want {
		t.Errorf("the row says %q, want %q", d.Outcome, want)
	}
}

// TestRebuiltFromParityAfterRestart: a file that landed with pieces
// rebuilt from parity says so after a restart, when the bridge has no
// snapshot of the download and reads the done job from the queue: the
// file's words and the row's.
func TestRebuiltFromParityAfterRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q, err := queue.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	id, err := q.Add(queue.NewJob{Source: "http://127.0.0.1:9/big.meta4", Dest: dest, Doc: parityJobDoc(), Selected: []string{"big.iso", "notes.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	// The files on disk, as their download left them.
	for name, size := range map[string]int{"big.iso": 4 << 20, "notes.txt": 10} {
		if err := os.WriteFile(filepath.Join(dest, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, n := range map[string]int{"big.iso": 3, "notes.txt": 0} {
		if err := q.Landed(id, name, &engine.Snapshot{Name: name, State: engine.StateDone, VerifiedBy: "sha-256", Rebuilt: n, Size: -1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Finish(id); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}

	// Braid started again.
	q = queuetest.Open(t, queue.Open, dir)
	b := newBackend(t, q)
	d, err := b.Detail(ui.JobID(id), false)
	if err != nil {
		t.Fatal(err)
	}
	const want = "verified (sha-256), 3 pieces rebuilt from parity"
	if len(d.Files) != 2 || d.Files[0].State != ui.FileVerified || d.Files[0].Verification != want || d.Files[1].Verification != "verified (sha-256)" {
		t.Fatalf("after a restart the files say %+v, want big.iso %q and notes.txt verified (sha-256)", d.Files, want)
	}
	if d.Outcome != want {
		t.Errorf("after a restart the details say %q, want %q", d.Outcome, want)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	v := b.viewLocked(j)
	b.mu.Unlock()
	if v.Outcome != want {
		t.Errorf("after a restart the row says %q, want %q", v.Outcome, want)
	}
}

// TestMirrorSaysWhyStillUsed: on the Mirrors tab a mirror still used after
// sending pieces that fail their hash says why (the engine's StrikesWhy),
// a mirror retrying or dropped says its reason; a waiting file's words
// take the reason it waits for, not a struck mirror's.
func TestMirrorSaysWhyStillUsed(t *testing.T) {
	t.Parallel()
	const every = "sent 3 pieces that fail their sha-256 hash; every mirror sent them so (the damage is in the published copies)"
	snap := engine.Snapshot{Name: "big.iso", Size: 4 << 20, State: engine.StateWaiting, ETA: -1, Mirrors: []engine.MirrorSnapshot{
		{URL: "http://a.example/big.iso", Host: "a.example", State: engine.MirrorIdle, Strikes: 3, StrikesWhy: every},
		{URL: "http://b.example/big.iso", Host: "b.example", State: engine.MirrorRetrying, Strikes: 3, StrikesWhy: every, Reason: "HTTP 503 Service Unavailable"},
		{URL: "http://c.example/big.iso", Host: "c.example", State: engine.MirrorDropped, Strikes: 3, Reason: "sent 3 pieces that fail their sha-256 hash (last: piece 57)"},
	}}
	var fd ui.FileDetail
	applySnapshot(&fd, &snap, false)
	if len(fd.Mirrors) != 3 {
		t.Fatalf("mirrors %+v", fd.Mirrors)
	}
	if got := fd.Mirrors[0].Err; got != every {
		t.Errorf("the mirror still used says %q, want %q", got, every)
	}
	// The retrying one says why it waits, in a sentence (Explain).
	if got := fd.Mirrors[1].Err; got == "" || got == every {
		t.Errorf("the retrying mirror says %q, want why it waits", got)
	}
	if got, want := fd.Mirrors[2].Err, "sent 3 pieces that fail their sha-256 hash (last: piece 57)"; got != want {
		t.Errorf("the dropped mirror says %q, want %q", got, want)
	}
	if strings.Contains(fd.Err, "every mirror") {
		t.Errorf("the waiting file says %q: a struck mirror's words, not why it waits", fd.Err)
	}
}
