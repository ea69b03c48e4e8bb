package engine

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
)

// TestRepairChecksTheWholeFileWhenPiecesDoNotCover: with sha-1 pieces,
// which do not prove a sha-256, the mended file is checked against its
// whole-file sha-256, and the result says so.
func TestRepairChecksTheWholeFileWhenPiecesDoNotCover(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	data := mirrortest.Bytes(10*pl+5, 51)
	m := mirrortest.New(t, data)
	f := fileFor("r.bin", data, 0, m.URL())
	f.Pieces = &metalink.Pieces{Type: "sha-1", Length: pl}
	for off := 0; off < len(data); off += pl {
		s := sha1.Sum(data[off:min(off+pl, len(data))])
		f.Pieces.Hashes = append(f.Pieces.Hashes, hex.EncodeToString(s[:]))
	}
	dir := t.TempDir()
	bad := append([]byte(nil), data...)
	bad[3*pl+1] ^= 0xff
	bad = bad[:9*pl] // short too
	if err := os.WriteFile(filepath.Join(dir, "r.bin"), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	var calls, last int
	progress := func(mended, bad int) { calls, last = calls+1, mended*100+bad }
	res, err := (&Client{}).Repair(context.Background(), dir, f, RepairOptions{Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 || last != 303 {
		t.Errorf("progress called %d times, last with %d/%d; want 3 times, last 3/3", calls, last/100, last%100)
	}
	if res.VerifiedBy != "sha-256" || res.Fetched != 3 || res.Bytes != int64(len(data))-9*pl+pl {
		t.Errorf("result: verified by %q, %d pieces, %d bytes", res.VerifiedBy, res.Fetched, res.Bytes)
	}
	wantFile(t, dir, "r.bin", data)
}

// TestRepairMissingFile: a file that is not there is not repaired, and
// the error says so in a way callers can test.
func TestRepairMissingFile(t *testing.T) {
	t.Parallel()
	data := mirrortest.Bytes(1000, 52)
	_, err := (&Client{}).Repair(context.Background(), t.TempDir(), fileFor("x.bin", data, 0), RepairOptions{})
	if !errors.Is(err, ErrCannotRepair) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want ErrCannotRepair and ErrNotExist", err)
	}
}
