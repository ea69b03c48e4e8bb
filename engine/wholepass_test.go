package engine

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/internal/testkit"
)

// TestWholePassOnlyWhereNeeded: where sha-256 piece hashes cover every
// byte, each checked in this run, a download does not read the file back
// for its whole-file hash, and says the piece hashes proved it. Each file
// here publishes a whole-file hash that disagrees with its bytes: a
// download that made the whole-file pass fails on it, one that did not
// succeeds. So each case shows which way the download went. Weaker
// pieces, a signature to check, or pieces taken on a journal's word from
// an earlier run still get the pass.
func TestWholePassOnlyWhereNeeded(t *testing.T) {
	t.Parallel()
	const pieceLen = 64 << 10
	data := testkit.Data(20 * pieceLen)
	m := mirrortest.New(t, data)
	// lying is data's file with sha-256 piece hashes and a wrong
	// whole-file sha-256.
	lying := func(name string) metalink.File {
		f := fileFor(name, data, pieceLen, m.URL())
		f.Hashes[0].Value = "00" + f.Hashes[0].Value[2:]
		if f.Hashes[0].Value == fileFor(name, data, pieceLen).Hashes[0].Value {
			f.Hashes[0].Value = "11" + f.Hashes[0].Value[2:]
		}
		return f
	}
	sha1Pieces := lying("sha1.bin")
	sha1Pieces.Pieces = &metalink.Pieces{Type: "sha-1", Length: pieceLen}
	for off := 0; off < len(data); off += pieceLen {
		s := sha1.Sum(data[off:min(off+pieceLen, len(data))])
		sha1Pieces.Pieces.Hashes = append(sha1Pieces.Pieces.Hashes, hex.EncodeToString(s[:]))
	}
	signed := lying("signed.bin")
	signed.Signature = &metalink.Signature{MediaType: "application/pgp-signature", Value: "-----BEGIN PGP SIGNATURE-----"}

	tests := []struct {
		name string
		file metalink.File
		pass bool // the whole-file pass runs (and fails on the wrong hash)
	}{
		{"sha-256 pieces", lying("strong.bin"), false},
		{"sha-1 pieces", sha1Pieces, true},
		{"a signature to check", signed, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			snap, err := get(t, &Client{}, &Request{Dir: dir, File: tc.file})
			if tc.pass {
				if !errors.Is(err, ErrHashMismatch) {
					t.Fatalf("err %v; want the whole-file pass to find the wrong hash", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err %v; the piece hashes prove the file, with no whole-file pass", err)
			}
			if snap.VerifiedBy != "sha-256 pieces" || OutcomeText(snap.Outcome(), snap.VerifiedBy) != "verified (sha-256 piece hashes)" {
				t.Errorf("verified by %q (%s); want the piece hashes", snap.VerifiedBy, OutcomeText(snap.Outcome(), snap.VerifiedBy))
			}
			wantFile(t, dir, tc.file.Name, data)
		})
	}

	// Half the pieces are in a .part from an earlier run. Taken on the
	// journal's word they are not checked in this run, so the pass runs;
	// with no journal they are read back and checked, and it need not.
	earlier := func(t *testing.T, name string) string {
		dir := t.TempDir()
		half := make([]byte, len(data))
		copy(half, data[:len(data)/2])
		if err := os.WriteFile(filepath.Join(dir, name+".part"), half, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	t.Run("pieces from the journal", func(t *testing.T) {
		t.Parallel()
		f := lying("journal.bin")
		dir := earlier(t, f.Name)
		done := piece.NewBitfield(len(f.Pieces.Hashes))
		for i := range len(f.Pieces.Hashes) / 2 {
			done.Set(i)
		}
		_, err := get(t, &Client{}, &Request{Dir: dir, File: f, Done: done})
		if !errors.Is(err, ErrHashMismatch) {
			t.Fatalf("err %v; want the whole-file pass over the journal's pieces", err)
		}
	})
	t.Run("pieces read back", func(t *testing.T) {
		t.Parallel()
		own := mirrortest.New(t, data)
		f := lying("salvaged.bin")
		f.URLs = []metalink.URL{{URL: own.URL(), Priority: 1}}
		dir := earlier(t, f.Name)
		snap, err := get(t, &Client{}, &Request{Dir: dir, File: f})
		if err != nil || snap.VerifiedBy != "sha-256 pieces" {
			t.Fatalf("err %v, verified by %q; want the pieces read back and checked, no whole-file pass", err, snap.VerifiedBy)
		}
		wantFile(t, dir, f.Name, data)
		if sent := own.BytesServed(); sent >= int64(len(data)) {
			t.Errorf("the mirror sent %d of %d bytes: the half on disk was not kept", sent, len(data))
		}
	})
}
