package mirrortest

import (
	"bytes"
	"testing"
)

func TestBytes(t *testing.T) {
	a, b := Bytes(1000, 1), Bytes(1000, 1)
	if len(a) != 1000 || !bytes.Equal(a, b) {
		t.Fatal("the same n and seed gave different bytes")
	}
	if bytes.Equal(a, Bytes(1000, 2)) {
		t.Fatal("different seeds gave the same bytes")
	}
	if !bytes.Equal(Bytes(10, 1), a[:10]) {
		t.Fatal("a shorter run is not a prefix of a longer one")
	}
	if bytes.Count(a, []byte{0}) > 50 {
		t.Fatal("the bytes are not noise")
	}
}
