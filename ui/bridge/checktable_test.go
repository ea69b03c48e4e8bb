package bridge

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
	"braid/ui"
)

// TestCheckTable walks the table in check.go for the kinds of job a
// bridge can set up alone (the torrent and sync rows are tried through
// the real window, cmd/braid/verify_window_test.go): a done job whose
// file is good or has bytes changed at its size, then Verify or Repair,
// and what the job, its file and the queue's record say after.
func TestCheckTable(t *testing.T) {
	t.Parallel()
	data := payload(8 * pieceLen)
	bad := slices.Clone(data)
	bad[3*pieceLen+7] ^= 0xff
	m := mirrortest.New(t, data)
	full := describeData(t, "f.bin", data, m.URL())
	kinds := map[string]metalink.File{
		"no hash":         {Name: "f.bin", Size: int64(len(data)), URLs: full.URLs},
		"whole-file hash": {Name: "f.bin", Size: int64(len(data)), URLs: full.URLs, Hashes: full.Hashes},
		"piece hashes":    full,
	}
	type want struct {
		state    ui.JobState
		mismatch bool
		refused  string // Repair's refusal, "" when it runs
		says     string // in the file's Verification
	}
	cells := []struct {
		kind, action string
		corrupt      bool
		want         want
	}{
		{"no hash", "verify", false, want{state: ui.Done, says: "nothing was published to check it against. Verify found it in its folder with its 524,288 bytes"}},
		{"no hash", "verify", true, want{state: ui.Done, says: "nothing was published to check it against. Verify found it in its folder with its 524,288 bytes"}},
		{"no hash", "repair", false, want{state: ui.Done, refused: "none was published for f.bin: there is nothing to repair it against"}},
		{"no hash", "repair", true, want{state: ui.Done, refused: "none was published for f.bin: there is nothing to repair it against"}},
		{"whole-file hash", "verify", false, want{state: ui.Done, says: "verified (sha-256)"}},
		{"whole-file hash", "verify", true, want{state: ui.Failed, mismatch: true, says: "did not match its hash"}},
		{"whole-file hash", "repair", false, want{state: ui.Done, refused: "only a whole-file hash (sha-256) was published for it"}},
		{"whole-file hash", "repair", true, want{state: ui.Done, refused: "only a whole-file hash (sha-256) was published for it"}},
		{"piece hashes", "verify", false, want{state: ui.Done, says: "verified (sha-256)"}},
		{"piece hashes", "verify", true, want{state: ui.Failed, mismatch: true, says: "did not match its hash"}},
		{"piece hashes", "repair", false, want{state: ui.Done, says: "verified (sha-256)"}},
		{"piece hashes", "repair", true, want{state: ui.Done, says: "verified (sha-256"}},
	}
	for _, c := range cells {
		name := c.kind + "/" + c.action
		if c.corrupt {
			name += "/corrupted"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			on := data
			if c.corrupt {
				on = bad
			}
			if err := os.WriteFile(filepath.Join(dir, "f.bin"), on, 0o644); err != nil {
				t.Fatal(err)
			}
			q := openQueue(t)
			qid := doneJob(t, q, dir, kinds[c.kind])
			b := newBackend(t, q)
			id := ui.JobID(qid)
			act := b.Verify
			if c.action == "repair" {
				act = b.Repair
			}
			err := act(id)
			switch {
			case c.want.refused != "" && (err == nil || !strings.Contains(err.Error(), c.want.refused)):
				t.Fatalf("Repair: %v, want the refusal %q", err, c.want.refused)
			case c.want.refused == "" && err != nil:
				t.Fatal(err)
			}
			testkit.WaitFor(t, c.action, func() bool { return len(b.Active()) == 0 })
			j := jobByID(t, b, id)
			if j.State != c.want.state || j.Mismatch != c.want.mismatch {
				t.Errorf("the job is %s (mismatch %v, %q), want %s (mismatch %v)", j.State, j.Mismatch, j.Err, c.want.state, c.want.mismatch)
			}
			d, err := b.Detail(id, false)
			if err != nil {
				t.Fatal(err)
			}
			if v := d.Files[0].Verification; !strings.Contains(v, c.want.says) {
				t.Errorf("the file's verification says %q, want %q", v, c.want.says)
			}
			qj, err := q.Get(qid)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(qj.Error, "( mismatch)") || (c.kind == "no hash" && qj.Error != "") {
				t.Errorf("the queue records the error %q", qj.Error)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "f.bin")); c.action == "repair" && c.want.refused == "" && !slices.Equal(got, data) {
				t.Error("Repair left the file unlike the mirror's")
			} else if c.want.refused != "" && !slices.Equal(got, on) {
				t.Error("a refused Repair changed the file")
			}
		})
	}
}

// TestVerifyNoHashChangedSize: a file no hash was published for that is
// not the size its download left is the one thing Verify can find wrong
// with it; it says so, and calls it no checksum mismatch.
func TestVerifyNoHashChangedSize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.bin"), payload(1000), 0o644); err != nil {
		t.Fatal(err)
	}
	q := openQueue(t)
	qid := doneJob(t, q, dir, metalink.File{Name: "f.bin", Size: 4096, URLs: []metalink.URL{{URL: "http://127.0.0.1:1/f.bin", Priority: 1}}})
	b := newBackend(t, q)
	if err := b.Verify(ui.JobID(qid)); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "verify", func() bool { return len(b.Active()) == 0 })
	j := jobByID(t, b, ui.JobID(qid))
	if j.State != ui.Failed || j.Mismatch || !strings.Contains(j.Err+j.ErrDetail, "1,000 bytes, not the size its download left") {
		t.Errorf("the job is %s (mismatch %v): %q / %q", j.State, j.Mismatch, j.Err, j.ErrDetail)
	}
}

// doneJob adds a job of the one file f in dir as a download that ended
// done, its file marked verified by the strongest hash f has ("" when
// none: not verified).
func doneJob(t *testing.T, q *queue.Queue, dir string, f metalink.File) int64 {
	t.Helper()
	qid, err := q.Add(queue.NewJob{Source: "http://example.org/f.bin", Dest: dir, Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}})
	if err != nil {
		t.Fatal(err)
	}
	bits, _, err := q.Pieces(qid, f.Name)
	if err != nil {
		t.Fatal(err)
	}
	for i := range bits.Len() {
		bits.Set(i)
	}
	by := ""
	if len(f.Hashes) > 0 {
		by = "sha-256"
	}
	if err := q.SetPieces(qid, f.Name, bits); err != nil {
		t.Fatal(err)
	}
	if err := q.SetFile(qid, f.Name, queue.VerifiedBy(by)); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Finish(qid); err != nil {
		t.Fatal(err)
	}
	return qid
}

// TestVerifySeedingTorrent: Verify runs beside a torrent's seeding (the
// window offers it there), checks the file against the torrent's piece
// hashes, and leaves it seeding; a changed byte found so stops the
// seeding, so no peer is sent the bad piece.
func TestVerifySeedingTorrent(t *testing.T) {
	t.Parallel()
	state, id, file, _, _ := seedingAtQuit(t)
	q := queuetest.Open(t, queue.Open, state)
	b := startedBackend(t, q)
	testkit.WaitFor(t, "it to seed again", func() bool { return jobByID(t, b, id).State == ui.Seeding })
	if err := b.Verify(id); err != nil {
		t.Fatalf("Verify of a seeding torrent: %v", err)
	}
	testkit.WaitFor(t, "the check", func() bool { return jobByID(t, b, id).State == ui.Seeding })
	if qj, err := q.Get(int64(id)); err != nil || qj.State != queue.Done || !qj.Files[0].Verified || qj.Files[0].Mismatch {
		t.Errorf("the queue after Verify: %+v, %v", qj, err)
	}
	if !slices.Contains(b.runner.Seeding(), int64(id)) {
		t.Error("a good torrent stopped seeding for Verify")
	}
	if d, _ := b.Detail(id, false); !strings.HasPrefix(d.Files[0].Verification, "verified (BitTorrent piece hashes); Verify checked it again at ") {
		t.Errorf("the seeding torrent's file after Verify: %q", d.Files[0].Verification)
	}

	f, err := os.OpenFile(file, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xee}, 2*64<<10+9); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := b.Verify(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the check", func() bool { return jobByID(t, b, id).State == ui.Failed })
	if j := jobByID(t, b, id); !j.Mismatch {
		t.Errorf("after a changed byte: %s, mismatch %v", j.State, j.Mismatch)
	}
	if slices.Contains(b.runner.Seeding(), int64(id)) {
		t.Error("the torrent seeds on with a piece it knows bad")
	}
	// Its piece map is what the check found, not its last seeding's.
	if d, err := b.Detail(id, true); err != nil || len(d.Files[0].Pieces.State) <= 2 || d.Files[0].Pieces.State[2] == ui.PieceDone {
		t.Errorf("after Verify found piece 2 bad the map says %+v (%v)", d.Files[0].Pieces, err)
	}
}
