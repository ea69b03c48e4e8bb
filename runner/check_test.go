package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/queue"
	"braid/queue/queuetest"
)

// checkLog is an Observer that keeps what it is told of checks.
type checkLog struct {
	Quiet
	mu       sync.Mutex
	progress []CheckProgress
	checked  []CheckedFile
	ended    chan error
}

func newCheckLog() *checkLog { return &checkLog{ended: make(chan error, 1)} }

func (c *checkLog) Check(e CheckEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e.Kind {
	case CheckProgressed:
		c.progress = append(c.progress, e.Progress)
	case CheckFileDone:
		c.checked = append(c.checked, e.File)
	case CheckEnded:
		c.ended <- e.Err
	}
}

// reset forgets what it was told, for the next check.
func (c *checkLog) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.progress, c.checked = nil, nil
}

// TestServiceChecksAJob verifies a finished file three pieces of which
// were damaged on disk, then repairs it from its mirror, as the service's
// checks: Verify fails the job naming the bad pieces and marks them not
// done; Repair fetches them, and the job is done, verified, the file
// right. A job that runs, a second check of a job being checked, and a
// repair of a file nothing was published for are refused, with their
// reason, before anything changes.
func TestServiceChecksAJob(t *testing.T) {
	t.Parallel()
	const pieceLen = 64 << 10
	data := mirrortest.Bytes(16*pieceLen, 5)
	m := mirrortest.New(t, data, mirrortest.Rate(256<<10))
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), "mend.bin", pieceLen, 2)
	if err != nil {
		t.Fatal(err)
	}
	f.URLs = []metalink.URL{{URL: m.URL(), Priority: 1}}
	dir := t.TempDir()
	damaged := slices.Clone(data)
	for _, p := range []int{3, 9, 12} {
		damaged[p*pieceLen+7] ^= 0xff
	}
	if err := os.WriteFile(filepath.Join(dir, "mend.bin"), damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	q := queuetest.Open(t, queue.Open, t.TempDir())
	id, err := q.Add(queue.NewJob{Source: "mend.meta4", Dest: dir, Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}})
	if err != nil {
		t.Fatal(err)
	}
	all := piece.NewBitfield(16)
	for i := range 16 {
		all.Set(i)
	}
	if err := q.SetPieces(id, "mend.bin", all); err != nil {
		t.Fatal(err)
	}
	if err := q.SetFile(id, "mend.bin", queue.VerifiedBy("sha-256")); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Finish(id); err != nil {
		t.Fatal(err)
	}
	log := newCheckLog()
	s := NewService(&Runner{Queue: q, Observer: log})
	t.Cleanup(s.Wait) // the test's context ends first
	ctx := t.Context()

	if working, began := s.Activity(); working || began != 0 {
		t.Fatalf("a new service: Activity %v, %d; want nothing under way, nothing begun", working, began)
	}
	if err := s.Check(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	if _, began := s.Activity(); began == 0 {
		t.Error("a check begun: Activity counts nothing")
	}
	if err := <-log.ended; err != nil {
		t.Fatal(err)
	}
	// Its end is told once its finding is recorded: nothing under way,
	// and the count moved again, so that a face reads the finding.
	if working, began := s.Activity(); working || began != 2 {
		t.Errorf("the check has ended: Activity %v, %d; want nothing under way, 2 (its start and its end)", working, began)
	}
	if len(log.progress) < 2 || log.progress[0].File != "" || log.progress[1].File != "mend.bin" {
		t.Errorf("Verify told %+v", log.progress)
	}
	if len(log.checked) != 1 || !errors.Is(log.checked[0].Err, engine.ErrHashMismatch) || !slices.Equal(log.checked[0].Bad, []int{3, 9, 12}) {
		t.Fatalf("Verify found %+v", log.checked)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != queue.Failed || j.Error != "mend.bin: file does not match its hash (3 bad pieces)" || !j.Files[0].Mismatch {
		t.Errorf("after Verify the job is %s, %q, mismatch %v", j.State, j.Error, j.Files[0].Mismatch)
	}
	if bits, _, err := q.Pieces(id, "mend.bin"); err != nil || bits.Count() != 13 {
		t.Errorf("after Verify %v pieces are done (%v), want 13", bits.Count(), err)
	}

	log.reset()
	if err := s.Check(ctx, id, true); err != nil {
		t.Fatal(err)
	}
	var busy *CheckRefused
	if err := s.Check(ctx, id, false); !errors.As(err, &busy) || busy.Why != RefusedChecking {
		t.Errorf("a Verify while the repair runs: %v", err)
	}
	if err := <-log.ended; err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(log.progress, func(p CheckProgress) bool { return p.Bad == 3 && p.Mended > 0 }) {
		t.Errorf("Repair never told how far it was: %+v", log.progress)
	}
	if j, err = q.Get(id); err != nil || j.State != queue.Done || !j.Files[0].Verified || j.Files[0].Mismatch {
		t.Errorf("after Repair the job is %s (%v), %+v", j.State, err, j.Files)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "mend.bin")); err != nil || !bytes.Equal(got, data) {
		t.Errorf("the repaired file differs (%v)", err)
	}

	if err := q.SetState(id, queue.Queued); err != nil {
		t.Fatal(err)
	}
	var refused *CheckRefused
	if err := s.Check(ctx, id, false); !errors.As(err, &refused) || refused.Why != RefusedRunning || err.Error() != "job 1 is queued: pause it first" {
		t.Errorf("Verify of a queued job: %v", err)
	}

	bare := metalink.File{Name: "bare.bin", Size: 4, URLs: []metalink.URL{{URL: m.URL(), Priority: 1}}}
	if err := os.WriteFile(filepath.Join(dir, "bare.bin"), []byte("bare"), 0o644); err != nil {
		t.Fatal(err)
	}
	nid, err := q.Add(queue.NewJob{Source: "bare.meta4", Dest: dir, Doc: &metalink.Document{Version: 4, Files: []metalink.File{bare}}})
	if err == nil {
		_, err = q.Finish(nid)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx, nid, true); !errors.As(err, &refused) || refused.Why != RefusedNoHash || refused.File != "bare.bin" {
		t.Errorf("Repair of a file nothing was published for: %v", err)
	}
	log.reset()
	if err := s.Check(ctx, nid, false); err != nil {
		t.Fatal(err)
	}
	if err := <-log.ended; err != nil {
		t.Fatal(err)
	}
	if len(log.checked) != 1 || !log.checked[0].Nothing || log.checked[0].Size != 4 {
		t.Errorf("Verify of a file nothing was published for found %+v", log.checked)
	}
	if j, err := q.Get(nid); err != nil || j.State != queue.Done {
		t.Errorf("after it the job is %s (%v)", j.State, err)
	}
}
