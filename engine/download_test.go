package engine

import (
	"os"
	"path/filepath"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/internal/testkit"
)

func TestOneMirror(t *testing.T) {
	t.Parallel()
	data := testkit.Data(3<<20 + 12345)
	m := mirrortest.New(t, data)
	dir := t.TempDir()
	for _, pl := range []int64{0, 256 << 10} {
		name := "a.bin"
		if pl > 0 {
			name = "b.bin"
		}
		snap, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor(name, data, pl, m.URL())})
		if err != nil {
			t.Fatal(err)
		}
		wantFile(t, dir, name, data)
		if snap.State != StateDone || snap.Verified != len(snap.Pieces) {
			t.Fatalf("snapshot: state %s, %d of %d pieces", snap.State, snap.Verified, len(snap.Pieces))
		}
	}
}

func TestManyMirrors(t *testing.T) {
	t.Parallel()
	data := testkit.Data(8<<20 + 777)
	var ms []*mirrortest.Mirror
	for i := range 4 {
		ms = append(ms, mirrortest.New(t, data, mirrortest.Addr("127.0.0."+string(rune('2'+i))), mirrortest.Rate(8<<20)))
	}
	dir := t.TempDir()
	snap, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor("f.bin", data, 256<<10, urls(ms...)...)})
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	by := filledBy(snap)
	for _, m := range ms {
		if by[m.URL()] == 0 {
			t.Errorf("mirror %s filled no piece: %v", m.URL(), by)
		}
	}
	t.Logf("filled: %v, elapsed %v", by, snap.Elapsed)
}

func TestEmptyAndUnhashed(t *testing.T) {
	t.Parallel()
	m := mirrortest.New(t, []byte{})
	dir := t.TempDir()
	if _, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor("empty", nil, 0, m.URL())}); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "empty", nil)

	data := testkit.Data(1<<20 + 1)
	m2 := mirrortest.New(t, data)
	f := fileFor("plain", data, 0, m2.URL())
	f.Hashes = nil
	snap, err := get(t, &Client{}, &Request{Dir: dir, File: f})
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "plain", data)
	if snap.Checked {
		t.Fatal("snapshot says pieces were checked without piece hashes")
	}
}

// A .part whose pieces no record names (a run that kept no journal, or
// whose journal names no piece yet) is checked against the piece hashes,
// and its good pieces are kept, never truncated away.
func TestSalvagePart(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	data := testkit.Data(1<<20 + 10)
	count := (len(data) + pl - 1) / pl
	for _, tc := range []struct {
		name string
		done *piece.Bitfield
	}{
		{"no journal", nil},
		{"a journal that names no piece", piece.NewBitfield(count)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			// The first half is right.
			part := make([]byte, len(data))
			copy(part, data[:len(data)/2])
			if err := os.WriteFile(filepath.Join(dir, "f.bin.part"), part, 0o644); err != nil {
				t.Fatal(err)
			}
			m := mirrortest.New(t, data)
			if _, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor("f.bin", data, pl, m.URL()), Done: tc.done}); err != nil {
				t.Fatal(err)
			}
			wantFile(t, dir, "f.bin", data)
			good := int64(len(data)/2) / pl * pl
			if served := m.BytesServed(); served != int64(len(data))-good {
				t.Fatalf("served %d bytes, want only the %d not in the .part", served, int64(len(data))-good)
			}
		})
	}
}

// TestSharedClient: downloads of one Client share its connections; with a
// single connection for all of them both still finish.
func TestSharedClient(t *testing.T) {
	t.Parallel()
	a, b := testkit.Data(1<<20+1), testkit.Data(1<<20+2)
	ma, mb := mirrortest.New(t, a), mirrortest.New(t, b)
	c := &Client{MaxConns: 1}
	dir := t.TempDir()
	da := c.Do(t.Context(), &Request{Dir: dir, File: fileFor("a", a, 64<<10, ma.URL())})
	db := c.Do(t.Context(), &Request{Dir: dir, File: fileFor("b", b, 64<<10, mb.URL())})
	if err := da.Err(); err != nil {
		t.Fatal(err)
	}
	if err := db.Err(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "a", a)
	wantFile(t, dir, "b", b)
}
