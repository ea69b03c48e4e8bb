package engine

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/transport"
)

// readRange reads [off, off+n) through r with a test timeout.
func readRange(t *testing.T, r *Ranges, off, n int64) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rc, err := r.ReadRange(ctx, off, n)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

func openRanges(t *testing.T, c *Client, req *Request) *Ranges {
	t.Helper()
	r, err := c.OpenRanges(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestRangesFromTwoMirrorsByCheckedPieces: a range spanning many pieces
// comes from both mirrors, every covering piece fetched once and whole,
// and checked.
func TestRangesFromTwoMirrorsByCheckedPieces(t *testing.T) {
	t.Parallel()
	const pieceLen = 64 << 10
	data := mirrortest.Bytes(4<<20, 41)
	a, b := mirrortest.New(t, data, mirrortest.Rate(8<<20)), mirrortest.New(t, data, mirrortest.Rate(8<<20))
	c := &Client{MaxConnsPerMirror: 2}
	r := openRanges(t, c, &Request{File: fileFor("a.zip", data, pieceLen, a.URL(), b.URL())})
	off, n := int64(100_000), int64(3<<20)
	got, err := readRange(t, r, off, n)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data[off:off+n]) {
		t.Fatalf("%d bytes read differ from the file's", len(got))
	}
	first, last := off/pieceLen, (off+n-1)/pieceLen
	covering := (last - first + 1) * pieceLen
	st := r.Stats()
	if served := a.BytesServed() + b.BytesServed(); served != covering {
		t.Errorf("mirrors served %d bytes, want the %d of the covering pieces", served, covering)
	}
	if a.BytesServed() == 0 || b.BytesServed() == 0 {
		t.Errorf("one mirror served nothing: %d and %d bytes", a.BytesServed(), b.BytesServed())
	}
	if st.Checked != int(last-first+1) || st.PieceType != "sha-256" {
		t.Errorf("%d %s pieces checked, want %d", st.Checked, st.PieceType, last-first+1)
	}
	// A second read inside a piece just read comes from the cache.
	before := a.BytesServed() + b.BytesServed()
	got, err = readRange(t, r, off+n-10, 10)
	if err != nil || !bytes.Equal(got, data[off+n-10:off+n]) {
		t.Fatalf("second read: %v", err)
	}
	if after := a.BytesServed() + b.BytesServed(); after != before {
		t.Errorf("a read inside a cached piece fetched %d bytes", after-before)
	}
}

// TestRangesStrikeBadMirror: a mirror whose pieces fail their hash gets
// strikes, and the good mirror's copy is what the reader gets.
func TestRangesStrikeBadMirror(t *testing.T) {
	t.Parallel()
	const pieceLen = 64 << 10
	data := mirrortest.Bytes(2<<20, 42)
	bad := mirrortest.New(t, data, mirrortest.Corrupt(pieceLen, func(int) bool { return true }))
	good := mirrortest.New(t, data, mirrortest.Rate(4<<20))
	r := openRanges(t, &Client{}, &Request{File: fileFor("a.zip", data, pieceLen, bad.URL(), good.URL())})
	got, err := readRange(t, r, 0, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatal("the bytes read differ from the file's")
	}
	st := r.Stats()
	if st.Mirrors[0].Strikes == 0 {
		t.Errorf("the corrupting mirror got no strike: %+v", st.Mirrors[0])
	}
	if st.Mirrors[0].Strikes >= maxStrikes && st.Mirrors[0].Dropped == "" {
		t.Errorf("%d strikes and not dropped", st.Mirrors[0].Strikes)
	}
	if st.Mirrors[0].Pieces != 0 {
		t.Errorf("the corrupting mirror is counted for %d good pieces", st.Mirrors[0].Pieces)
	}
}

// TestRangesNoRanges: mirrors that send only whole files cannot serve a
// part; beside one that can, they are not used.
func TestRangesNoRanges(t *testing.T) {
	t.Parallel()
	data := mirrortest.Bytes(1<<20, 43)
	x, y := mirrortest.New(t, data, mirrortest.NoRanges()), mirrortest.New(t, data, mirrortest.NoRanges())
	r := openRanges(t, &Client{}, &Request{File: fileFor("a.zip", data, 0, x.URL(), y.URL())})
	_, err := readRange(t, r, 500_000, 1000)
	if !errors.Is(err, transport.ErrNoRanges) {
		t.Fatalf("read from mirrors without ranges: %v; want ErrNoRanges", err)
	}

	good := mirrortest.New(t, data)
	z := mirrortest.New(t, data, mirrortest.NoRanges())
	r = openRanges(t, &Client{}, &Request{File: fileFor("a.zip", data, 0, z.URL(), good.URL())})
	got, err := readRange(t, r, 500_000, 1000)
	if err != nil || !bytes.Equal(got, data[500_000:501_000]) {
		t.Fatalf("read beside a mirror without ranges: %v", err)
	}
	// Without piece hashes only the bytes asked for are fetched.
	if good.BytesServed() != 1000 {
		t.Errorf("the ranged mirror served %d bytes for a 1000-byte read", good.BytesServed())
	}
}

// TestRangesMirrorFailsMidway: a mirror that cuts its answers and one that
// serves another file leave the reading to the good mirror; the one with
// the other file is dropped.
func TestRangesMirrorFailsMidway(t *testing.T) {
	t.Parallel()
	const pieceLen = 64 << 10
	data := mirrortest.Bytes(2<<20, 44)
	cut := mirrortest.New(t, data, mirrortest.CutAfter(100<<10))
	other := mirrortest.New(t, data, mirrortest.WrongSize(3<<20))
	good := mirrortest.New(t, data, mirrortest.Rate(4<<20))
	r := openRanges(t, &Client{MaxBackoff: 100 * time.Millisecond}, &Request{File: fileFor("a.zip", data, pieceLen, cut.URL(), other.URL(), good.URL())})
	got, err := readRange(t, r, 10, int64(len(data))-20)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data[10:len(data)-10]) {
		t.Fatal("the bytes read differ from the file's")
	}
	st := r.Stats()
	if st.Mirrors[1].Dropped == "" || st.Mirrors[1].Pieces != 0 {
		t.Errorf("the mirror with another file: %+v", st.Mirrors[1])
	}
	if st.Mirrors[2].Pieces == 0 {
		t.Errorf("the good mirror delivered nothing: %+v", st.Mirrors[2])
	}
	if cut.Requests() > 0 && st.Mirrors[0].Dropped != "" {
		t.Errorf("the mirror that cut its answer was dropped: %s", st.Mirrors[0].Dropped)
	}
}

// TestRangesEmptyAndClosed: an empty range reads nothing and asks no
// mirror; a read closed halfway stops its connections.
func TestRangesEmptyAndClosed(t *testing.T) {
	t.Parallel()
	data := mirrortest.Bytes(4<<20, 45)
	slow := mirrortest.New(t, data, mirrortest.Rate(256<<10))
	r := openRanges(t, &Client{}, &Request{File: fileFor("a.zip", data, 64<<10, slow.URL())})
	got, err := readRange(t, r, 5, 0)
	if err != nil || len(got) != 0 || slow.Requests() != 0 {
		t.Fatalf("empty range: %d bytes, %v, %d requests", len(got), err, slow.Requests())
	}
	rc, err := r.ReadRange(context.Background(), 0, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1000)
	if _, err := io.ReadFull(rc, buf); err != nil || !bytes.Equal(buf, data[:1000]) {
		t.Fatalf("first bytes: %v", err)
	}
	rc.Close() // waits for the read's connections to end
	st := r.Stats()
	if st.Mirrors[0].Bytes >= int64(len(data)) {
		t.Errorf("a read closed after 1000 bytes received the whole %d-byte file", st.Mirrors[0].Bytes)
	}
}

// TestRangesGiveUp: with every mirror down, a read waits for the
// request's RetryFor and fails with ErrGaveUp.
func TestRangesGiveUp(t *testing.T) {
	t.Parallel()
	data := mirrortest.Bytes(1<<20, 46)
	down := mirrortest.New(t, data, mirrortest.Down())
	r := openRanges(t, &Client{MaxBackoff: 100 * time.Millisecond}, &Request{File: fileFor("a.zip", data, 64<<10, down.URL()), RetryFor: 500 * time.Millisecond})
	if _, err := readRange(t, r, 100, 1000); !errors.Is(err, ErrGaveUp) {
		t.Fatalf("read from a mirror that is down: %v; want ErrGaveUp", err)
	}
}
