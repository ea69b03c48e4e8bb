package engine

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/internal/testkit"
)

// A download without piece hashes, paused inside its pieces, keeps every
// byte it wrote: the resume asks the mirror from the first missing byte of
// each piece in flight, the mirrors serve about what was missing, and the
// file is whole.
func TestPauseKeepsPartialPieces(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		size    int
		mirrors int
		rate    int64
		pause   int64 // bytes served when paused
		whole   bool  // a whole-file hash is published
	}{
		{"several pieces, two mirrors", 12 << 20, 2, 3 << 20, 11 << 19, true},
		{"one piece, no hash", 900 << 10, 1, 300 << 10, 300 << 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := testkit.Data(tc.size)
			var ms []*mirrortest.Mirror
			for i := range tc.mirrors {
				ms = append(ms, mirrortest.New(t, data, addr(i), mirrortest.Rate(tc.rate)))
			}
			servedAll := func() int64 {
				var n int64
				for _, m := range ms {
					n += m.BytesServed()
				}
				return n
			}
			dir := t.TempDir()
			f := fileFor("f.bin", data, 0, urls(ms...)...)
			if !tc.whole {
				f.Hashes = nil
			}
			plan := piece.PlanFor(f)
			if plan.Verifiable() {
				t.Fatal("the file has piece hashes")
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			dl := (&Client{}).Do(ctx, &Request{Dir: dir, File: f})
			deadline := time.Now().Add(30 * time.Second)
			for servedAll() < tc.pause {
				if time.Now().After(deadline) {
					t.Fatalf("the mirrors served %d bytes in 30 s", servedAll())
				}
				time.Sleep(5 * time.Millisecond)
			}
			if err := dl.Cancel(); !errors.Is(err, context.Canceled) {
				t.Fatalf("Cancel: %v", err)
			}
			paused := dl.Snapshot().Bytes
			part, err := os.ReadFile(filepath.Join(dir, "f.bin.part"))
			if err != nil {
				t.Fatal(err)
			}
			// What each piece holds from its start, as written before
			// the pause.
			held := make([]int64, plan.Count())
			var kept int64
			for i := range held {
				off, n := plan.Bounds(i)
				for held[i] < n && part[off+held[i]] == data[off+held[i]] {
					held[i]++
				}
				kept += held[i]
			}
			if paused == 0 || kept < paused {
				t.Fatalf("paused at %d bytes, but .part holds %d of them", paused, kept)
			}
			// The mirrors' count of bytes written includes what the kernel
			// took after braid let go, which braid never read: the resume
			// is measured from when their responses have ended.
			testkit.WaitFor(t, "the mirrors' responses to end", func() bool {
				for _, m := range ms {
					if m.InFlight().Now() > 0 {
						return false
					}
				}
				return true
			})
			before := servedAll()
			first := make([]int, len(ms))
			for i, m := range ms {
				first[i] = len(m.Ranges())
			}

			snap, err := get(t, &Client{}, &Request{Dir: dir, File: f})
			if err != nil {
				t.Fatal(err)
			}
			wantFile(t, dir, "f.bin", data)
			if snap.Bytes != int64(len(data)) {
				t.Fatalf("snapshot says %d bytes of %d", snap.Bytes, len(data))
			}

			// Every piece in flight at the pause is asked for from
			// where its bytes end, within one read, never from its start.
			var asked []int64
			var spans [][2]int64
			for i, m := range ms {
				for _, r := range m.Ranges()[first[i]:] {
					if r.Method == http.MethodGet && r.N > 0 {
						asked = append(asked, r.Off)
						spans = append(spans, [2]int64{r.Off, r.Off + r.N})
					}
				}
			}
			inFlight := 0
			for i, h := range held {
				off, n := plan.Bounds(i)
				if h == 0 || h == n {
					continue
				}
				inFlight++
				found := false
				for _, sp := range spans {
					if sp[0] <= off && sp[1] > off && h > readSize {
						t.Errorf("piece %d (%d bytes held) asked for again from its start: %v", i, h, sp)
					}
					if sp[0] <= off+h && sp[0] >= off+h-readSize && sp[0] > off {
						found = true
					}
				}
				if !found {
					t.Errorf("piece %d held %d bytes at the pause; the resume asked from %v", i, h, asked)
				}
			}
			resumed := servedAll() - before
			missing := int64(len(data)) - kept
			t.Logf("paused at %d of %d bytes (%d kept, %d pieces in flight); the resume was served %d for the %d missing; resume asked from %v",
				paused, len(data), kept, inFlight, resumed, missing, asked)
			if inFlight == 0 {
				t.Fatal("no piece was in flight at the pause: the test shows nothing")
			}
			if limit := missing + 256<<10; resumed > limit {
				t.Fatalf("the resume was served %d bytes for the %d missing; want at most %d", resumed, missing, limit)
			}
			if _, err := os.Stat(filepath.Join(dir, "f.bin.part.done")); !os.IsNotExist(err) {
				t.Fatalf("the piece log is left behind: %v", err)
			}
		})
	}
}

// A file without piece hashes, its child process paused (SIGTERM) and
// killed (SIGKILL) in turn: a pause costs at most a read per connection,
// a kill at most the pieces in flight, and the file is whole.
func TestStopsWithoutPieceHashes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	data := testkit.Data(24 << 20)
	ms := []*mirrortest.Mirror{
		mirrortest.New(t, data, addr(0), mirrortest.Rate(6<<20)),
		mirrortest.New(t, data, addr(1), mirrortest.Rate(6<<20)),
	}
	f := fileFor("plain.bin", data, 0, urls(ms...)...)
	stopChildren(t, f, data, ms, func(stop int) (bool, int64) {
		if stop%2 == 0 {
			return true, 256 << 10 // paused
		}
		return false, 4 << 20 // killed: a piece of 1 MiB a connection
	})
}

// A file with piece hashes keeps only its whole pieces: a partial piece
// cannot be checked, so it is asked for again from its start.
func TestPauseHashedPiecesFromStart(t *testing.T) {
	t.Parallel()
	const pl = 512 << 10
	data := testkit.Data(4 << 20)
	m := mirrortest.New(t, data, addr(0), mirrortest.Rate(2<<20))
	dir := t.TempDir()
	f := fileFor("h.bin", data, pl, m.URL())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dl := (&Client{}).Do(ctx, &Request{Dir: dir, File: f})
	for m.BytesServed() < 3<<19 {
		time.Sleep(5 * time.Millisecond)
	}
	if err := dl.Cancel(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Cancel: %v", err)
	}
	first := len(m.Ranges())
	if _, err := get(t, &Client{}, &Request{Dir: dir, File: f}); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "h.bin", data)
	for _, r := range m.Ranges()[first:] {
		if r.Method == http.MethodGet && r.N > 0 && r.Off%pl != 0 {
			t.Errorf("asked from %d, inside piece %d", r.Off, r.Off/pl)
		}
	}
}

// The records of partial pieces are read back only whole, and only for
// pieces of the file.
func TestReadPartialRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := testkit.Data(3 << 20)
	f := fileFor("r.bin", data, 0)
	st, err := openStore(dir, "r.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	d := newDownload(&Client{}, &Request{Dir: dir, File: f})
	d.st = st
	d.initPieces(int64(len(data)))
	rec := func(v ...uint32) []byte {
		var b []byte
		for _, x := range v {
			b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		}
		return b
	}
	log := bytes.Join([][]byte{
		rec(0),                   // piece 0 done
		rec(partialMark, 1, 700), // piece 1: 700 bytes
		rec(partialMark, 9, 5),   // no piece 9
		rec(2),                   // piece 2 done
		rec(partialMark, 2),      // cut short
	}, nil)
	if err := os.WriteFile(filepath.Join(dir, "r.bin.part.done"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	done, partial := d.readPieceLog(nil)
	if len(done) != 2 || done[0] != 0 || done[1] != 2 {
		t.Fatalf("pieces done %v, want [0 2]", done)
	}
	if len(partial) != 1 || partial[1] != 700 {
		t.Fatalf("partial pieces %v, want map[1:700]", partial)
	}
}
