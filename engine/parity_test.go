package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"braid/engine/mirrortest"
)

// The engine's side of parity (Request.Parity): asked once, only when no
// mirror can send the pieces, with the pieces' byte runs; what it writes
// is checked against the piece hashes, and the file against its
// whole-file hash; a rebuild that fails leaves NAME.part for a later try.
func TestParityHook(t *testing.T) {
	t.Parallel()
	const pl = 16 << 10
	data := mirrortest.Bytes(40*pl, 77)
	// Three pieces spread over the file, bad on both mirrors alike: a
	// piece every mirror sends bad is not held against them, so neither
	// is dropped and every other piece comes from them.
	bad := func(p int) bool { return p == 3 || p == 4 || p == 30 }
	for _, tc := range []struct {
		name   string
		write  func(m *Mend) error // what the rebuild does
		wantOK bool
	}{
		{"rebuilds", func(m *Mend) error {
			for _, s := range m.Damaged {
				if _, err := m.Part.WriteAt(data[s.Off:s.Off+s.Len], s.Off); err != nil {
					return err
				}
			}
			return nil
		}, true},
		{"writes other bytes", func(m *Mend) error {
			junk := bytes.Repeat([]byte{1}, pl)
			_, err := m.Part.WriteAt(junk, m.Damaged[0].Off)
			return err
		}, false},
		{"too few blocks", func(m *Mend) error { return errors.New("not enough recovery blocks: 2 short") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := mirrortest.New(t, data, mirrortest.Corrupt(pl, bad))
			b := mirrortest.New(t, data, mirrortest.Corrupt(pl, bad), mirrortest.Addr("127.0.0.2"))
			dir := t.TempDir()
			var calls atomic.Int32
			var seen *Mend
			req := &Request{Dir: dir, File: fileFor("h.bin", data, pl, urls(a, b)...), Parity: func(ctx context.Context, m *Mend) error {
				calls.Add(1)
				seen = m
				return tc.write(m)
			}}
			snap, err := get(t, &Client{}, req)
			if calls.Load() != 1 {
				t.Fatalf("Parity asked %d times", calls.Load())
			}
			if seen.Pieces != 3 || !seen.Checked || seen.Size != int64(len(data)) ||
				len(seen.Damaged) != 2 || seen.Damaged[0] != (Span{3 * pl, 2 * pl}) || seen.Damaged[1] != (Span{30 * pl, pl}) {
				t.Fatalf("Parity was given %+v", *seen)
			}
			if !tc.wantOK {
				if !errors.Is(err, ErrParity) || !errors.Is(err, ErrBadPiece) && !errors.Is(err, ErrNoMirrors) || snap.Rebuilt != 0 {
					t.Fatalf("err %v, rebuilt %d", err, snap.Rebuilt)
				}
				if _, err := os.Stat(filepath.Join(dir, "h.bin.part")); err != nil {
					t.Fatalf("NAME.part is gone: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if snap.Rebuilt != 3 || snap.Rebuilding != 0 || snap.VerifiedBy != "sha-256" {
				t.Fatalf("rebuilt %d, rebuilding %d, verified by %q", snap.Rebuilt, snap.Rebuilding, snap.VerifiedBy)
			}
			// Each mirror says why its strikes did not drop it: the
			// pieces were bad on every mirror. One dropped (it sent all
			// three first) says why it was dropped.
			for _, m := range snap.Mirrors {
				want, ok := "sent 3 pieces that fail their sha-256 hash; every mirror sent them so (the damage is in the published copies)", false
				if m.State == MirrorDropped {
					// Its strikes, which may count a piece twice.
					want = "pieces that fail their sha-256 hash (last: piece "
					ok = strings.HasPrefix(m.Reason, "sent ") && strings.Contains(m.Reason, want) && m.StrikesWhy == ""
				} else {
					// Not retrying: its reason stays empty (a waiting
					// file's words take the first mirror's reason).
					ok = m.StrikesWhy == want && m.Reason == ""
				}
				if m.Strikes < 3 || !ok {
					t.Errorf("%s: %v, %d strikes, reason %q, still used because %q; want %q", m.URL, m.State, m.Strikes, m.Reason, m.StrikesWhy, want)
				}
			}
			for i, f := range snap.Filler {
				if (f == FilledByParity) != bad(i) {
					t.Errorf("piece %d: filler %d", i, f)
				}
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "h.bin")); !bytes.Equal(got, data) {
				t.Fatal("the file is not the original")
			}
		})
	}
}

// A piece one mirror sends bad and another good never goes to parity.
func TestParityNotAskedWhenAMirrorHelps(t *testing.T) {
	t.Parallel()
	const pl = 16 << 10
	data := mirrortest.Bytes(20*pl, 78)
	a := mirrortest.New(t, data, mirrortest.Corrupt(pl, func(p int) bool { return p == 5 }))
	b := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	req := &Request{Dir: t.TempDir(), File: fileFor("g.bin", data, pl, urls(a, b)...), Parity: func(context.Context, *Mend) error {
		t.Error("Parity asked though a mirror had the piece")
		return errors.New("no")
	}}
	if snap, err := get(t, &Client{}, req); err != nil || snap.Rebuilt != 0 {
		t.Fatalf("%v, rebuilt %d", err, snap.Rebuilt)
	}
}

// The last mirror left, whose copy has a few damaged pieces, is kept after
// its third bad piece: it sends every other piece, and only the damaged
// ones go to parity. (Dropped, it left the rest of the file unfetched,
// and parity was asked for far more than the damage: a real one-mirror
// download from lighttpd with 3 damaged pieces of 76 failed "383 short".)
// A mirror that sends mostly bad pieces is still dropped.
func TestParityLastMirrorKeptForItsGoodPieces(t *testing.T) {
	t.Parallel()
	const pl = 16 << 10
	data := mirrortest.Bytes(64*pl, 79)
	// With 4 connections each starts a quarter in: the third bad piece
	// comes while the mirror has sent few good ones.
	bad := func(p int) bool { return p == 1 || p == 17 || p == 33 }
	a := mirrortest.New(t, data, mirrortest.Corrupt(pl, bad))
	var seen *Mend
	req := &Request{Dir: t.TempDir(), File: fileFor("k.bin", data, pl, urls(a)...), Parity: func(ctx context.Context, m *Mend) error {
		seen = m
		for _, s := range m.Damaged {
			if _, err := m.Part.WriteAt(data[s.Off:s.Off+s.Len], s.Off); err != nil {
				return err
			}
		}
		return nil
	}}
	snap, err := get(t, &Client{}, req)
	if err != nil {
		t.Fatal(err)
	}
	if seen == nil || seen.Pieces != 3 {
		t.Fatalf("parity was asked for %+v, want the 3 damaged pieces", seen)
	}
	if snap.Rebuilt != 3 || snap.Mirrors[0].State == MirrorDropped {
		t.Fatalf("rebuilt %d, mirror %v (%s)", snap.Rebuilt, snap.Mirrors[0].State, snap.Mirrors[0].Reason)
	}
	if got, want := snap.Mirrors[0].StrikesWhy, "sent 3 pieces that fail their sha-256 hash; kept: it is the last mirror and sent mostly good pieces"; got != want {
		t.Errorf("the kept mirror's reason is %q, want %q", got, want)
	}

	liar := mirrortest.New(t, data, mirrortest.Corrupt(pl, func(int) bool { return true }))
	req = &Request{Dir: t.TempDir(), File: fileFor("l.bin", data, pl, urls(liar)...)}
	snap, err = get(t, &Client{}, req)
	if err == nil || snap.Mirrors[0].State != MirrorDropped || snap.Mirrors[0].Strikes > 3+4 {
		t.Fatalf("a mirror sending only bad pieces: err %v, state %v after %d strikes; want it dropped at its third", err, snap.Mirrors[0].State, snap.Mirrors[0].Strikes)
	}
}
