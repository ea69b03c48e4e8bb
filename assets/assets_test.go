package assets

import (
	"bytes"
	"image/png"
	"testing"
)

func TestIconsDecodeAtTheirSizes(t *testing.T) {
	for size, data := range Icons() {
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%d px icon: %v", size, err)
		}
		if b := img.Bounds(); b.Dx() != size || b.Dy() != size {
			t.Errorf("%d px icon is %dx%d", size, b.Dx(), b.Dy())
		}
		// The corners are transparent (a rounded tile), the centre is not.
		if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
			t.Errorf("%d px icon: corner alpha %d, want 0", size, a)
		}
		if _, _, _, a := img.At(size/2, size/2).RGBA(); a != 0xffff {
			t.Errorf("%d px icon: centre alpha %d, want opaque", size, a)
		}
	}
}
