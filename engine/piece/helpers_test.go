package piece

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"os"
	"path/filepath"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
)

// randomBytes returns n reproducible pseudo-random bytes.
func randomBytes(n int, seed byte) []byte { return mirrortest.Bytes(n, uint64(seed)) }

// testHashes are independent of the package's table, so that a mistake
// there cannot hide in the tests.
var testHashes = map[string]func() hash.Hash{
	"sha-512": sha512.New,
	"sha-384": sha512.New384,
	"sha-256": sha256.New,
	"sha-1":   sha1.New,
	"md5":     md5.New,
}

func hexSum(typ string, data []byte) string {
	h := testHashes[typ]()
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// describeBytes builds the metalink description of data by hand: whole-file
// hashes of the given types and, when length > 0, pieces of pieceType.
func describeBytes(name string, data []byte, length int64, pieceType string, wholeTypes ...string) metalink.File {
	f := metalink.File{Name: name, Size: int64(len(data))}
	for _, typ := range wholeTypes {
		f.Hashes = append(f.Hashes, metalink.Hash{Type: typ, Value: hexSum(typ, data)})
	}
	if length > 0 {
		p := &metalink.Pieces{Type: pieceType, Length: length}
		for off := int64(0); off < int64(len(data)); off += length {
			p.Hashes = append(p.Hashes, hexSum(pieceType, data[off:min(off+length, int64(len(data)))]))
		}
		f.Pieces = p
	}
	return f
}

// writeFile writes data to name in a fresh directory and returns the
// directory.
func writeFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// openRoot opens dir as an os.Root closed at the end of the test.
func openRoot(t testing.TB, dir string) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

// flip inverts one byte of data at each offset.
func flip(data []byte, offs ...int64) []byte {
	out := append([]byte(nil), data...)
	for _, off := range offs {
		out[off] ^= 0xff
	}
	return out
}
