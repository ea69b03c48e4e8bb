package runner

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/transport"
	"braid/engine/ziprange"
	"braid/engine/ziprange/ziptest"
	"braid/queue"
	"braid/queue/queuetest"
)

// memberArchive is a test archive: a small stored member, then a large
// deflated one that spans many pieces, then another small one.
func memberArchive(t *testing.T) (archive, big []byte) {
	t.Helper()
	big = ziptest.Text(3<<20, 7)
	archive = ziptest.Make(t,
		ziptest.Entry{Name: "readme.txt", Data: []byte("read me first\n"), Method: zip.Store},
		ziptest.Entry{Name: "data/big.txt", Data: big, Method: zip.Deflate},
		ziptest.Entry{Name: "tail.bin", Data: ziptest.Text(300<<10, 9), Method: zip.Store},
	)
	return archive, big
}

// memberOf reads the archive's directory from url, as the picker does,
// and returns the queue's record of member name.
func memberOf(t *testing.T, url, name string) queue.Member {
	t.Helper()
	src, err := transport.NewHTTP(url, transport.Options{Size: -1})
	if err != nil {
		t.Fatal(err)
	}
	a, err := ziprange.Open(context.Background(), src, -1)
	if err != nil {
		t.Fatal(err)
	}
	m := a.Member(name)
	if m == nil {
		t.Fatalf("the test archive has no %s", name)
	}
	return MemberRecord(m, a.Size)
}

// snapshots is an Observer that keeps every snapshot of a run.
type snapshots struct {
	Quiet
	mu     sync.Mutex
	seen   []engine.Snapshot
	result *Result
}

func (s *snapshots) Progress(_ *FileRun, p Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := *p.Snapshot
	c.Pieces = append([]engine.PieceState(nil), p.Snapshot.Pieces...)
	s.seen = append(s.seen, c)
}

func (s *snapshots) Result(r Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.result = &r
}

func (s *snapshots) last() (engine.Snapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) == 0 {
		return engine.Snapshot{}, false
	}
	return s.seen[len(s.seen)-1], true
}

// TestMemberJobRuns: a member job of a metalink's archive is run by the
// runner from both mirrors, by the archive's checked pieces: the member
// lands at its name with the CRC-32's and the pieces' words, the job is
// done, and the mirrors sent far less than the archive.
func TestMemberJobRuns(t *testing.T) {
	t.Parallel()
	archive, big := memberArchive(t)
	a := mirrortest.New(t, archive, mirrortest.Addr("127.0.0.2"))
	b := mirrortest.New(t, archive, mirrortest.Addr("127.0.0.3"))
	doc := describe(t, "a.zip", archive, 64<<10, a, b)
	m := memberOf(t, a.URL(), "data/big.txt")
	before := served(a, b)
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()
	id, err := q.Add(queue.NewJob{Source: "a.meta4", Dest: dest, Doc: doc, Member: m})
	if err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if j.Name() != "data/big.txt" || j.Files[0].Size != int64(len(big)) {
		t.Fatalf("the queue lists the member job as %q of %d bytes", j.Name(), j.Files[0].Size)
	}
	_, count := m.Covering(64 << 10)
	if j.Files[0].Pieces != count || count < 2 {
		t.Fatalf("the member's pieces: %d stored, %d cover it", j.Files[0].Pieces, count)
	}
	obs := &snapshots{}
	r := runner(q)
	r.Observer = obs
	if err := r.RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dest, "data", "big.txt"))
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("extracted member: %d bytes, %v", len(got), err)
	}
	if _, err := os.Stat(filepath.Join(dest, "a.zip")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the archive itself was written: %v", err)
	}
	j, err = q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	f := j.Files[0]
	if j.State != queue.Done || !f.Verified || f.VerifiedBy != "CRC-32 and sha-256 pieces" || !f.Created {
		t.Errorf("job after the run: %s, verified %v by %q, created %v", j.State, f.Verified, f.VerifiedBy, f.Created)
	}
	if out := f.Outcome(); out != "verified (CRC-32 and sha-256 piece hashes)" {
		t.Errorf("outcome %q", out)
	}
	if bits, _, err := q.Pieces(id, f.Name); err != nil || bits.Count() != count {
		t.Errorf("the stored pieces of the done member: %v of %d, %v", bits, count, err)
	}
	wire := served(a, b) - before
	t.Logf("member %d bytes, %d packed; the mirrors sent %d bytes (a %d, b %d) of a %d-byte archive",
		len(big), m.CompressedSize, wire, a.BytesServed(), b.BytesServed(), len(archive))
	if wire >= int64(len(archive)) || a.BytesServed() == before || b.BytesServed() == 0 {
		t.Errorf("the mirrors sent %d bytes (a %d, b %d) of a %d-byte archive", wire, a.BytesServed(), b.BytesServed(), len(archive))
	}
	obs.mu.Lock()
	res := obs.result
	obs.mu.Unlock()
	if res == nil || res.Err != nil || res.Snapshot.State != engine.StateDone || len(res.Snapshot.Pieces) != count {
		t.Fatalf("the observer's result: %+v", res)
	}
	for i, p := range res.Snapshot.Pieces {
		if p != engine.PieceDone {
			t.Errorf("piece %d of the member's %d is %v at the end", i, count, p)
		}
	}
}

// TestMemberJobPauseResume: a member job paused while its bytes arrive
// stops, keeps no .part taken as done, and resumed lands the member
// whole; a stale .part left by a crash is not taken for the member.
func TestMemberJobPauseResume(t *testing.T) {
	t.Parallel()
	archive, big := memberArchive(t)
	slow := mirrortest.New(t, archive, mirrortest.Rate(400<<10))
	doc := describe(t, "a.zip", archive, 64<<10, slow)
	m := memberOf(t, slow.URL(), "data/big.txt")
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()
	id, err := q.Add(queue.NewJob{Source: "a.meta4", Dest: dest, Doc: doc, Member: m})
	if err != nil {
		t.Fatal(err)
	}
	obs := &snapshots{}
	r := runner(q)
	r.Observer = obs
	ended := make(chan error, 1)
	go func() { ended <- r.RunJob(context.Background(), id) }()
	// Wait until some of the member's pieces are in, and not all.
	deadline := time.Now().Add(time.Minute)
	for {
		s, ok := obs.last()
		if ok && s.Verified > 0 && s.Verified < len(s.Pieces) && s.Bytes > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no piece of the member arrived: %+v", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := q.Pause(id, ""); err != nil {
		t.Fatal(err)
	}
	if err := <-ended; !errors.Is(err, queue.ErrPaused) {
		t.Fatalf("the paused run ended with %v", err)
	}
	final := filepath.Join(dest, "data", "big.txt")
	if _, err := os.Stat(final); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a paused member is at its name: %v", err)
	}
	if s, _ := q.StateOf(id); s != queue.Paused {
		t.Fatalf("job is %s after the pause", s)
	}
	// What arrived is kept: the packed bytes on disk, their pieces in the
	// queue, the job's progress in the member's bytes.
	kept, _, err := q.Pieces(id, "data/big.txt")
	if err != nil || kept.Count() == 0 || kept.Count() == kept.Len() {
		t.Fatalf("pieces kept after the pause: %v, %v", kept, err)
	}
	if fi, err := os.Stat(final + ".packed.part"); err != nil || fi.Size() == 0 {
		t.Fatalf("the kept packed bytes: %v", err)
	}
	if j, _ := q.Get(id); j.Files[0].DoneBytes <= 0 || j.Files[0].DoneBytes >= j.Files[0].Size {
		t.Errorf("the paused job's progress: %d of %d bytes", j.Files[0].DoneBytes, j.Files[0].Size)
	}
	servedBefore := slow.BytesServed()
	// A crash left a .part of other bytes behind.
	if err := os.WriteFile(final+".part", []byte("not the member"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := q.Resume(id); err != nil {
		t.Fatal(err)
	}
	if err := r.RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(final)
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("member after the resume: %d bytes, %v", len(got), err)
	}
	for _, left := range []string{final + ".part", final + ".packed.part"} {
		if _, err := os.Stat(left); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left beside the member: %v", left, err)
		}
	}
	// The resume fetched what was not kept, and the directory again.
	resent := slow.BytesServed() - servedBefore
	keptBytes := int64(kept.Count()-1) * (64 << 10)
	if resent > m.CompressedSize-keptBytes+128<<10 {
		t.Errorf("the resume fetched %d bytes of a member of %d packed bytes, %d pieces of %d kept", resent, m.CompressedSize, kept.Count(), kept.Len())
	}
	t.Logf("paused with %d of %d pieces kept; the resume fetched %d bytes of %d packed", kept.Count(), kept.Len(), resent, m.CompressedSize)
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != queue.Done || j.Files[0].VerifiedBy != "CRC-32 and sha-256 pieces" {
		t.Errorf("job after the resume: %s, verified by %q", j.State, j.Files[0].VerifiedBy)
	}
}

// TestMemberJobRefusals: a member whose archive changed since it was
// added, and an archive whose server sends no ranges, fail the job with
// a sentence, and nothing is written.
func TestMemberJobRefusals(t *testing.T) {
	t.Parallel()
	archive, _ := memberArchive(t)
	good := mirrortest.New(t, archive)
	whole := mirrortest.New(t, archive, mirrortest.NoRanges())
	m := memberOf(t, good.URL(), "data/big.txt")
	changed := m
	changed.CRC32++
	for _, c := range []struct {
		name   string
		mirror *mirrortest.Mirror
		m      queue.Member
		want   string
	}{
		{"changed", good, changed, "data/big.txt: the archive's member is no longer the one added (its size or CRC-32 changed)"},
		{"no ranges", whole, m, "no mirror of the archive sends parts of files (byte ranges)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := queuetest.Open(t, queue.Open, t.TempDir())
			dest := t.TempDir()
			doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: "a.zip", Size: int64(len(archive)),
				URLs: []metalink.URL{{URL: c.mirror.URL(), Priority: 1}}}}}
			id, err := q.Add(queue.NewJob{Source: c.mirror.URL(), Dest: dest, Doc: doc, Member: c.m})
			if err != nil {
				t.Fatal(err)
			}
			err = runner(q).RunJob(context.Background(), id)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("run ended with %v, want it to say %q", err, c.want)
			}
			j, _ := q.Get(id)
			if j.State != queue.Failed || !strings.Contains(j.Error, c.want) {
				t.Errorf("job %s: %q", j.State, j.Error)
			}
			if entries, _ := os.ReadDir(dest); len(entries) != 0 {
				t.Errorf("written: %v", entries)
			}
		})
	}
}

// TestMemberJobQuit: a member job whose run ends (Braid quits while its
// bytes arrive) is paused, with neither the member nor a .part left, and
// its next run lands it.
func TestMemberJobQuit(t *testing.T) {
	t.Parallel()
	archive, big := memberArchive(t)
	slow := mirrortest.New(t, archive, mirrortest.Rate(400<<10))
	doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: "a.zip", Size: int64(len(archive)),
		URLs: []metalink.URL{{URL: slow.URL(), Priority: 1}}}}}
	m := memberOf(t, slow.URL(), "data/big.txt")
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()
	id, err := q.Add(queue.NewJob{Source: slow.URL(), Dest: dest, Doc: doc, Member: m})
	if err != nil {
		t.Fatal(err)
	}
	obs := &snapshots{}
	r := runner(q)
	r.Observer = obs
	ctx, quit := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	go func() { ended <- r.RunJob(ctx, id) }()
	final := filepath.Join(dest, "data", "big.txt")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if fi, err := os.Stat(final + ".part"); err == nil && fi.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the member's .part never grew")
		}
	}
	quit()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the run ended with %v", err)
	}
	if s, _ := q.StateOf(id); s != queue.Paused {
		t.Errorf("after the quit the job is %s", s)
	}
	for _, p := range []string{final, final + ".part"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left after the quit: %v", p, err)
		}
	}
	obs.mu.Lock()
	res := obs.result
	obs.mu.Unlock()
	if res == nil || res.Snapshot.State != engine.StateCanceled {
		t.Errorf("the observer's result: %+v", res)
	}
	if err := q.Resume(id); err != nil {
		t.Fatal(err)
	}
	if err := r.RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(final); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("member after the quit and a new run: %d bytes, %v", len(got), err)
	}
	j, _ := q.Get(id)
	if j.Files[0].VerifiedBy != "CRC-32" {
		t.Errorf("a plain archive's member verified by %q", j.Files[0].VerifiedBy)
	}
}

// TestMemberJobBadKeptBytes: kept packed bytes damaged on disk between
// two runs fail the member's CRC-32: the job fails saying so, what was
// kept is forgotten, and the next run fetches it all again and lands it.
func TestMemberJobBadKeptBytes(t *testing.T) {
	t.Parallel()
	archive, big := memberArchive(t)
	slow := mirrortest.New(t, archive, mirrortest.Rate(400<<10))
	doc := describe(t, "a.zip", archive, 64<<10, slow)
	m := memberOf(t, slow.URL(), "data/big.txt")
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()
	id, err := q.Add(queue.NewJob{Source: "a.meta4", Dest: dest, Doc: doc, Member: m})
	if err != nil {
		t.Fatal(err)
	}
	r := runner(q)
	ended := make(chan error, 1)
	go func() { ended <- r.RunJob(context.Background(), id) }()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if b, _, err := q.Pieces(id, m.Name); err == nil && b.Count() >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no piece of the member was kept")
		}
	}
	if err := q.Pause(id, ""); err != nil {
		t.Fatal(err)
	}
	<-ended
	final := filepath.Join(dest, "data", "big.txt")
	f, err := os.OpenFile(final+".packed.part", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0x55}, 1000), 100<<10); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := q.Resume(id); err != nil {
		t.Fatal(err)
	}
	err = r.RunJob(context.Background(), id)
	if err == nil || !strings.Contains(err.Error(), "CRC-32") {
		t.Fatalf("a run over damaged kept bytes ended with %v", err)
	}
	if b, _, _ := q.Pieces(id, m.Name); b == nil || b.Count() != 0 {
		t.Errorf("after the failed check the queue still keeps pieces: %v", b)
	}
	if _, err := os.Stat(final + ".packed.part"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the damaged kept bytes are still there: %v", err)
	}
	if err := q.Resume(id); err != nil {
		t.Fatal(err)
	}
	if err := r.RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(final); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("the member after a fresh run: %d bytes, %v", len(got), err)
	}
}

// TestRemoveMemberWithFiles: removing a member job with its files deletes
// the packed bytes it kept and its .part, and nothing else.
func TestRemoveMemberWithFiles(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()
	doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: "a.zip", Size: 1 << 20,
		URLs: []metalink.URL{{URL: "http://127.0.0.1:9/a.zip", Priority: 1}}}}}
	id, err := q.Add(queue.NewJob{Source: "http://127.0.0.1:9/a.zip", Dest: dest, Doc: doc, Member: queue.Member{Name: "d/m.txt", Size: 100, CompressedSize: 80, Method: 8, HeaderOffset: 0, ArchiveSize: 1 << 20}, Paused: true})

	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dest, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"m.txt.part", "m.txt.packed.part", "m.txt", "other.packed.part"} {
		if err := os.WriteFile(filepath.Join(dest, "d", name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	deleted, err := RemoveWithFiles(q, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(deleted) != 2 {
		t.Errorf("deleted %v, want the .part and the kept packed bytes", deleted)
	}
	for name, want := range map[string]bool{"m.txt.part": false, "m.txt.packed.part": false, "m.txt": true, "other.packed.part": true} {
		if _, err := os.Stat(filepath.Join(dest, "d", name)); (err == nil) != want {
			t.Errorf("%s there: %v, want %v", name, err == nil, want)
		}
	}
}
