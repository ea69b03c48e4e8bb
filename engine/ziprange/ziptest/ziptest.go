// Package ziptest makes ZIP archives for tests of reading them over
// ranges: members stored, deflated or in methods Braid cannot read, and
// members marked encrypted.
package ziptest

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"io"
	"testing"

	"braid/engine/mirrortest"
)

// Entry is one member of a test archive.
type Entry struct {
	Name   string
	Data   []byte
	Method uint16 // zip.Store, zip.Deflate, or another method with Raw
	// Raw writes Data as the member's compressed bytes as they are, with
	// Size as its stated size (and a made-up CRC-32): a member in a method
	// archive/zip cannot write.
	Raw  bool
	Size int
}

// Make writes an archive of the entries with archive/zip.
func Make(t testing.TB, entries ...Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		fh := &zip.FileHeader{Name: e.Name, Method: e.Method}
		var w io.Writer
		var err error
		if e.Raw {
			fh.CompressedSize64 = uint64(len(e.Data))
			fh.UncompressedSize64 = uint64(e.Size)
			fh.CRC32 = 0x12345678
			w, err = zw.CreateRaw(fh)
		} else {
			w, err = zw.CreateHeader(fh)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// SetEncrypted sets the encrypted flag (general purpose bit 0) of the
// member name in its local header and its directory record, as an
// encrypting archiver would; the bytes stay as they are.
func SetEncrypted(t testing.TB, archive []byte, name string) {
	t.Helper()
	found := 0
	for _, h := range []struct {
		magic                  uint32
		flags, nameLen, nameAt int
	}{
		{0x04034b50, 6, 26, 30}, // local header
		{0x02014b50, 8, 28, 46}, // directory record
	} {
		var magic [4]byte
		binary.LittleEndian.PutUint32(magic[:], h.magic)
		for i := 0; ; i += 4 {
			j := bytes.Index(archive[i:], magic[:])
			if j < 0 {
				break
			}
			i += j
			if i+h.nameAt > len(archive) {
				break
			}
			n := int(binary.LittleEndian.Uint16(archive[i+h.nameLen:]))
			if i+h.nameAt+n <= len(archive) && string(archive[i+h.nameAt:i+h.nameAt+n]) == name {
				archive[i+h.flags] |= 1
				found++
			}
		}
	}
	if found != 2 {
		t.Fatalf("ziptest: found %s %d times, want its local header and its record", name, found)
	}
}

// Text is n bytes of compressible test data, the same for the same seed:
// lines of hex digits, which deflate halves.
func Text(n int, seed uint64) []byte {
	h := make([]byte, n)
	hex.Encode(h[:n/2*2], mirrortest.Bytes(n/2, seed))
	for i := 64; i < n; i += 65 {
		h[i] = '\n'
	}
	return h
}
