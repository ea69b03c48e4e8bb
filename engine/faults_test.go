package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/internal/testkit"
)

// addr gives each mirror of a test its own loopback address.
func addr(i int) mirrortest.Option { return mirrortest.Addr(fmt.Sprintf("127.0.0.%d", i+2)) }

func TestFaults(t *testing.T) {
	t.Parallel()
	const pl = 128 << 10
	data := testkit.Data(4<<20 + 999)
	tests := []struct {
		name   string
		client *Client
		bad    []mirrortest.Option // the faulty mirror, listed first
		good   int                 // honest mirrors beside it
		// check asserts what the faulty mirror's snapshot and counters show.
		check func(t *testing.T, bad *mirrortest.Mirror, ms MirrorSnapshot, s Snapshot)
		// shown, when set, asserts on every reason the faulty mirror's
		// snapshots gave while the download ran: a reason lasts while the
		// mirror waits to be tried again, and is gone once it sends.
		shown func(t *testing.T, reasons map[string]bool)
	}{
		{
			name: "no ranges",
			bad:  []mirrortest.Option{mirrortest.NoRanges(), mirrortest.Rate(4 << 20)},
			good: 2,
			check: func(t *testing.T, bad *mirrortest.Mirror, ms MirrorSnapshot, s Snapshot) {
				// It serves the file from its start as one stream, so it
				// is kept, not given up once the start is done.
				if ms.State == MirrorDropped {
					t.Errorf("rangeless mirror dropped: %s", ms.Reason)
				}
			},
		},
		{
			name:   "stall",
			client: &Client{StallTimeout: 300 * time.Millisecond},
			bad:    []mirrortest.Option{mirrortest.StallAfter(200 << 10)},
			good:   2,
			check: func(t *testing.T, bad *mirrortest.Mirror, ms MirrorSnapshot, s Snapshot) {
				if ms.State == MirrorDropped {
					t.Errorf("stalling mirror dropped (%s): it sends, then stalls, and is tried again", ms.Reason)
				}
			},
			// Every answer of the mirror sends bytes before it stalls, so
			// its reason is cleared with each new answer: whether the
			// download ends while it waits is a matter of timing.
			shown: func(t *testing.T, reasons map[string]bool) {
				for r := range reasons {
					if strings.Contains(r, "stalled") {
						return
					}
				}
				t.Errorf("stalling mirror never blamed for stalling; its reasons: %q", slices.Sorted(maps.Keys(reasons)))
			},
		},
		{
			name: "corrupt",
			bad: []mirrortest.Option{mirrortest.Corrupt(pl, func(i int) bool { return i%2 == 1 }),
				mirrortest.Rate(2 << 20)},
			good: 2,
			check: func(t *testing.T, bad *mirrortest.Mirror, ms MirrorSnapshot, s Snapshot) {
				if ms.Strikes == 0 {
					t.Errorf("corrupting mirror has no strike")
				}
				if ms.Strikes >= maxStrikes && ms.State != MirrorDropped {
					t.Errorf("corrupting mirror has %d strikes but is %s", ms.Strikes, ms.State)
				}
				for _, m := range s.Mirrors {
					if m.URL != ms.URL && m.Strikes != 0 {
						t.Errorf("honest mirror %s got %d strikes", m.URL, m.Strikes)
					}
				}
			},
		},
		{
			name: "down",
			bad:  []mirrortest.Option{mirrortest.Down()},
			good: 2,
			check: func(t *testing.T, bad *mirrortest.Mirror, ms MirrorSnapshot, s Snapshot) {
				if ms.State != MirrorRetrying && ms.State != MirrorDropped {
					t.Errorf("down mirror is %s, want retrying or dropped", ms.State)
				}
				if ms.Reason == "" {
					t.Errorf("down mirror has no reason")
				}
			},
		},
		{
			name:   "503 past one connection",
			client: &Client{MaxConnsPerMirror: 4},
			bad:    []mirrortest.Option{mirrortest.MaxConns(1), mirrortest.RetryAfter("1"), mirrortest.Rate(2 << 20)},
			good:   0,
			check: func(t *testing.T, bad *mirrortest.Mirror, ms MirrorSnapshot, s Snapshot) {
				if ms.State == MirrorDropped {
					t.Errorf("busy mirror dropped: %s", ms.Reason)
				}
				refused := 0
				for _, r := range bad.Ranges() {
					if r.Status == 503 {
						refused++
					}
				}
				if refused == 0 || refused > 6 {
					t.Errorf("busy mirror refused %d requests; want a few, then the engine keeps to one connection", refused)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := mirrortest.New(t, data, append([]mirrortest.Option{addr(0)}, tc.bad...)...)
			ms := []*mirrortest.Mirror{bad}
			for i := range tc.good {
				ms = append(ms, mirrortest.New(t, data, addr(i+1), mirrortest.Rate(4<<20)))
			}
			dir := t.TempDir()
			c := tc.client
			if c == nil {
				c = &Client{}
			}
			reasons := map[string]bool{}
			snap, err := getWatching(t, c, &Request{Dir: dir, File: fileFor("f.bin", data, pl, urls(ms...)...)}, func(s *Snapshot) {
				for _, m := range s.Mirrors {
					if m.URL == bad.URL() && m.Reason != "" {
						reasons[m.Reason] = true
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			wantFile(t, dir, "f.bin", data)
			tc.check(t, bad, mirrorByURL(t, snap, bad.URL()), snap)
			if tc.shown != nil {
				tc.shown(t, reasons)
			}
			for _, m := range ms[1:] {
				if h := mirrorByURL(t, snap, m.URL()); h.State == MirrorDropped || h.Strikes != 0 {
					t.Errorf("honest mirror blamed: %s, %d strikes, %q", h.State, h.Strikes, h.Reason)
				}
			}
		})
	}
}

func TestCorruptMirrorDroppedAfterStrikes(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	data := testkit.Data(2 << 20)
	bad := mirrortest.New(t, data, addr(0), mirrortest.Corrupt(pl, func(int) bool { return true }))
	good := mirrortest.New(t, data, addr(1), mirrortest.Rate(2<<20))
	dir := t.TempDir()
	snap, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor("f.bin", data, pl, bad.URL(), good.URL())})
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	ms := mirrorByURL(t, snap, bad.URL())
	if ms.State != MirrorDropped || ms.Strikes != maxStrikes {
		t.Fatalf("mirror sending only bad pieces: %s with %d strikes (%s); want dropped after %d", ms.State, ms.Strikes, ms.Reason, maxStrikes)
	}
	if n := filledBy(snap)[bad.URL()]; n != 0 {
		t.Fatalf("bad mirror filled %d pieces", n)
	}
}

func TestEveryMirrorBad(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	data := testkit.Data(1 << 20)
	var ms []*mirrortest.Mirror
	for i := range 2 {
		ms = append(ms, mirrortest.New(t, data, addr(i), mirrortest.Corrupt(pl, func(i int) bool { return i == 5 })))
	}
	dir := t.TempDir()
	_, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor("f.bin", data, pl, urls(ms...)...)})
	if !errors.Is(err, ErrBadPiece) || !strings.Contains(err.Error(), "piece 5") || !strings.Contains(err.Error(), "(2 mirrors sent bad data)") {
		t.Fatalf("err = %v, want ErrBadPiece naming piece 5 and its 2 mirrors", err)
	}
	noFile(t, dir, "f.bin")
}

// With one mirror, the one that lied is counted in the singular.
func TestOneMirrorBad(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	data := testkit.Data(1 << 20)
	m := mirrortest.New(t, data, mirrortest.Corrupt(pl, func(i int) bool { return i == 5 }))
	_, err := get(t, &Client{}, &Request{Dir: t.TempDir(), File: fileFor("f.bin", data, pl, m.URL())})
	if !errors.Is(err, ErrBadPiece) || !strings.HasSuffix(err.Error(), "piece 5: no mirror sent a good copy of a piece (1 mirror sent bad data)") {
		t.Fatalf("err = %v, want ErrBadPiece for piece 5 from 1 mirror", err)
	}
}

func TestWholeFileMismatch(t *testing.T) {
	t.Parallel()
	data := testkit.Data(3<<20 + 5)
	t.Run("every mirror bad: one retry, then failure", func(t *testing.T) {
		var ms []*mirrortest.Mirror
		for i := range 2 {
			ms = append(ms, mirrortest.New(t, data, addr(i), mirrortest.Corrupt(1<<20, func(i int) bool { return i == 1 })))
		}
		dir := t.TempDir()
		snap, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor("f.bin", data, 0, urls(ms...)...)})
		if !errors.Is(err, ErrHashMismatch) {
			t.Fatalf("err = %v, want ErrHashMismatch", err)
		}
		noFile(t, dir, "f.bin")
		served := ms[0].BytesServed() + ms[1].BytesServed()
		if served < 2*int64(len(data)) || served > 3*int64(len(data)) {
			t.Fatalf("served %d bytes for a %d-byte file; want two full attempts", served, len(data))
		}
		if snap.Attempt != 2 {
			t.Fatalf("attempt %d, want 2", snap.Attempt)
		}
	})
	t.Run("bad once: the retry from the other mirror succeeds", func(t *testing.T) {
		// The first megabyte it sends, whichever it is, comes corrupt: which
		// part of the file each mirror is given first depends on timing.
		var once sync.Once
		bad := mirrortest.New(t, data, addr(0), mirrortest.Corrupt(1<<20, func(int) bool {
			hit := false
			once.Do(func() { hit = true })
			return hit
		}))
		good := mirrortest.New(t, data, addr(1))
		dir := t.TempDir()
		snap, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor("f.bin", data, 0, bad.URL(), good.URL())})
		if err != nil {
			t.Fatal(err)
		}
		wantFile(t, dir, "f.bin", data)
		if snap.Attempt != 2 {
			t.Fatalf("attempt %d, want the retry", snap.Attempt)
		}
	})
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	data := testkit.Data(3 << 20)
	ms := []*mirrortest.Mirror{mirrortest.New(t, data, addr(0)), mirrortest.New(t, data, addr(1))}
	const limit = 4 << 20
	dir := t.TempDir()
	start := time.Now()
	_, err := get(t, &Client{Limit: limit}, &Request{Dir: dir, File: fileFor("f.bin", data, 64<<10, urls(ms...)...)})
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	// A limit is a floor on the time taken: the burst aside, no faster
	// than the limit allows.
	floor := time.Duration(float64(len(data)-limit/10) / limit * float64(time.Second))
	if el := time.Since(start); el < floor {
		t.Fatalf("took %v, faster than the %d B/s limit allows (%v)", el, limit, floor)
	}
}

// Not parallel: the fast mirror must fill over three times the slow one's
// pieces, a ratio of speeds that tests beside it on the same cores could
// squeeze.
func TestFasterMirrorDoesMore(t *testing.T) {
	data := testkit.Data(6 << 20)
	fast := mirrortest.New(t, data, addr(0), mirrortest.Rate(16<<20))
	slow := mirrortest.New(t, data, addr(1), mirrortest.Rate(1<<20))
	dir := t.TempDir()
	// The slow mirror comes first by priority: speed must win over it.
	snap, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor("f.bin", data, 128<<10, slow.URL(), fast.URL())})
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	by := filledBy(snap)
	if by[fast.URL()] <= 3*by[slow.URL()] {
		t.Fatalf("fast mirror filled %d pieces, slow %d; want the fast one to do most", by[fast.URL()], by[slow.URL()])
	}
}

// journal records what the engine reports, checking it never reports a
// piece twice.
type journal struct {
	mu    sync.Mutex
	calls int
	got   map[int]bool
	dup   atomic.Bool
}

func (j *journal) PiecesDone(_ string, pieces []int) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.calls++
	if j.got == nil {
		j.got = map[int]bool{}
	}
	for _, p := range pieces {
		if j.got[p] {
			j.dup.Store(true)
		}
		j.got[p] = true
	}
	return nil
}

func TestResume(t *testing.T) {
	t.Parallel()
	const pl = 128 << 10
	data := testkit.Data(4<<20 + 100)
	f0 := fileFor("f.bin", data, pl)
	plan := piece.PlanFor(f0)
	dir := t.TempDir()
	// A .part with the even pieces on disk and the odd ones garbage.
	part := make([]byte, len(data))
	done := piece.NewBitfield(plan.Count())
	var have int64
	for i := range plan.Count() {
		off, n := plan.Bounds(i)
		if i%2 == 0 {
			copy(part[off:off+n], data[off:off+n])
			done.Set(i)
			have += n
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "f.bin.part"), part, 0o644); err != nil {
		t.Fatal(err)
	}
	m := mirrortest.New(t, data)
	j := &journal{}
	f := fileFor("f.bin", data, pl, m.URL())
	_, err := get(t, &Client{}, &Request{Dir: dir, File: f, Done: done, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	missing := int64(len(data)) - have
	if served := m.BytesServed(); served != missing {
		t.Fatalf("mirror served %d bytes, want only the %d missing", served, missing)
	}
	for i := range plan.Count() {
		if j.got[i] == done.Has(i) {
			t.Fatalf("journal: piece %d recorded %v, resumed as done %v", i, j.got[i], done.Has(i))
		}
	}
	if j.dup.Load() {
		t.Fatal("journal got a piece twice")
	}
}

func TestExistingFile(t *testing.T) {
	t.Parallel()
	data := testkit.Data(1<<20 + 3)
	m := mirrortest.New(t, data)
	f := fileFor("f.bin", data, 64<<10, m.URL())
	// doneWithoutAByte gets f into dir, which must end done with nothing
	// fetched.
	doneWithoutAByte := func(t *testing.T, dir string) {
		t.Helper()
		before := m.BytesServed()
		snap, err := get(t, &Client{}, &Request{Dir: dir, File: f})
		if err != nil {
			t.Fatal(err)
		}
		if m.BytesServed() != before || snap.State != StateDone {
			t.Fatalf("served %d bytes, state %s", m.BytesServed()-before, snap.State)
		}
	}
	t.Run("verifies: done without a byte", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "f.bin"), data, 0o644)
		doneWithoutAByte(t, dir)
	})
	t.Run("still linked as its .part: done, and the .part goes", func(t *testing.T) {
		// A run stopped between publish's link and its removal of the
		// old name (a kill, a power loss) leaves both names on one file.
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "f.bin"), data, 0o644)
		if err := os.Link(filepath.Join(dir, "f.bin"), filepath.Join(dir, "f.bin.part")); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
		os.WriteFile(filepath.Join(dir, "f.bin.part"+pieceLogSuffix), []byte{0, 0, 0, 1}, 0o644)
		doneWithoutAByte(t, dir)
		wantFile(t, dir, "f.bin", data)
		if _, err := os.Stat(filepath.Join(dir, "f.bin.part"+pieceLogSuffix)); !os.IsNotExist(err) {
			t.Fatalf("piece log still there: %v", err)
		}
	})
	t.Run("another .part beside it: kept", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "f.bin"), data, 0o644)
		os.WriteFile(filepath.Join(dir, "f.bin.part"), data[:100], 0o644)
		if _, err := get(t, &Client{}, &Request{Dir: dir, File: f}); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(dir, "f.bin.part")); err != nil || len(got) != 100 {
			t.Fatalf("a .part that is another file was changed: %d bytes, %v", len(got), err)
		}
	})
	t.Run("differs: left alone, saved beside it", func(t *testing.T) {
		dir := t.TempDir()
		other := append([]byte(nil), data...)
		other[100] ^= 1
		os.WriteFile(filepath.Join(dir, "f.bin"), other, 0o644)
		snap, err := get(t, &Client{}, &Request{Dir: dir, File: f})
		if err != nil {
			t.Fatal(err)
		}
		if snap.SavedAs != "f (1).bin" || !strings.Contains(snap.Note, "f (1).bin") || !snap.Created {
			t.Fatalf("saved as %q (created %v), note %q; want f (1).bin, created, and a note", snap.SavedAs, snap.Created, snap.Note)
		}
		wantFile(t, dir, "f (1).bin", data)
		got, _ := os.ReadFile(filepath.Join(dir, "f.bin"))
		if string(got) != string(other) {
			t.Fatal("existing file was changed")
		}
	})
}

func TestPathSafety(t *testing.T) {
	t.Parallel()
	data := testkit.Data(256 << 10)
	m := mirrortest.New(t, data)
	outside := t.TempDir()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		file  string
	}{
		{"symlinked folder", func(t *testing.T, dir string) { linkOutside(t, outside, filepath.Join(dir, "sub"), true) }, "sub/f.bin"},
		{"symlinked part", func(t *testing.T, dir string) {
			linkOutside(t, filepath.Join(outside, "f.bin"), filepath.Join(dir, "f.bin.part"), false)
		}, "f.bin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			_, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor(tc.file, data, 0, m.URL())})
			if err == nil {
				t.Fatal("download through a symlink leading outside succeeded")
			}
			entries, _ := os.ReadDir(outside)
			if len(entries) != 0 {
				t.Fatalf("wrote outside the folder: %v", entries)
			}
		})
	}
}

func TestJournalAndCancel(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	data := testkit.Data(3 << 20)
	m := mirrortest.New(t, data, mirrortest.Rate(1<<20))
	dir := t.TempDir()
	j := &journal{}
	f := fileFor("f.bin", data, pl, m.URL())
	dl := (&Client{}).Do(t.Context(), &Request{Dir: dir, File: f, Journal: j})
	deadline := time.After(30 * time.Second)
	for {
		j.mu.Lock()
		n := len(j.got)
		j.mu.Unlock()
		if n > 0 {
			break
		}
		select {
		case <-deadline:
			t.Fatal("no piece journaled")
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := dl.Cancel(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Cancel: %v", err)
	}
	if s := dl.Snapshot(); s.State != StateCanceled {
		t.Fatalf("state %s after cancel", s.State)
	}
	noFile(t, dir, "f.bin")
	// Resume from what the journal holds.
	plan := piece.PlanFor(f)
	done := piece.NewBitfield(plan.Count())
	var have int64
	for p := range j.got {
		done.Set(p)
		_, n := plan.Bounds(p)
		have += n
	}
	fast := mirrortest.New(t, data)
	f.URLs[0].URL = fast.URL()
	if _, err := get(t, &Client{}, &Request{Dir: dir, File: f, Done: done}); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	if served := fast.BytesServed(); served != int64(len(data))-have {
		t.Fatalf("resume fetched %d bytes, want %d", served, int64(len(data))-have)
	}
}

// TestOnePieceResumeReadsBack: a file of one piece whose hash is the
// whole-file hash is verified by the piece's check when its bytes arrive,
// without reading them back; a piece an earlier run left is not, and
// garbage in it is caught by the whole-file hash.
func TestOnePieceResumeReadsBack(t *testing.T) {
	t.Parallel()
	data := testkit.Data(200 << 10)
	m := mirrortest.New(t, data)
	f := fileFor("one.bin", data, 256<<10, m.URL())
	if n := piece.PlanFor(f).Count(); n != 1 {
		t.Fatalf("plan has %d pieces, want 1", n)
	}

	fresh := t.TempDir()
	snap, err := get(t, &Client{}, &Request{Dir: fresh, File: f})
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, fresh, "one.bin", data)
	if snap.VerifiedBy != "sha-256" {
		t.Fatalf("verified by %q, want sha-256", snap.VerifiedBy)
	}

	dir := t.TempDir()
	garbage := bytes.Repeat([]byte{0x5a}, len(data))
	if err := os.WriteFile(filepath.Join(dir, "one.bin.part"), garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	done := piece.NewBitfield(1)
	done.Set(0)
	_, err = get(t, &Client{}, &Request{Dir: dir, File: f, Done: done})
	if !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("resumed garbage: err %v, want ErrHashMismatch", err)
	}
	noFile(t, dir, "one.bin")
}
