package par2

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"time"
)

// A file of crafted headers, each claiming to run to the end, would cost
// its size squared in MD5 work; the scan's hash budget keeps it linear.
func TestParseOverlappingHeadersIsLinear(t *testing.T) {
	var b []byte
	for len(b) < 1<<20 {
		h := make([]byte, 64)
		copy(h, magic[:])
		binary.LittleEndian.PutUint64(h[8:], uint64(1<<20-len(b))&^3)
		b = append(b, h...)
	}
	start := time.Now()
	_, err := Parse([]io.ReaderAt{bytes.NewReader(b)}, []int64{int64(len(b))})
	if !errors.Is(err, ErrNoMainPacket) {
		t.Fatalf("err = %v", err)
	}
	// Unbounded, this took 15 s; bounded it hashes about 3 MB.
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("parsing 1 MB of overlapping headers took %v", d)
	}
}
