package ui

import (
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// update rewrites the golden images in testdata/ from what the tests draw:
// go test ./ui -run Golden -update. Look at them before committing.
var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// assertGolden compares img with testdata/name, rewriting it first under
// -update.
func assertGolden(t *testing.T, name string, img image.Image) {
	t.Helper()
	if *update {
		path := filepath.Join("testdata", name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	test.AssertImageMatches(t, name, img)
}

// capture renders o alone on an unpadded test window of the given size
// with the software painter.
func capture(t *testing.T, o fyne.CanvasObject, size fyne.Size) image.Image {
	t.Helper()
	w := test.NewTempWindow(t, o)
	w.SetPadded(false)
	w.Resize(size)
	return w.Canvas().Capture()
}

// variantTheme is Fyne's default theme held to one variant, so goldens in
// light and dark do not depend on the machine's preference.
type variantTheme struct {
	fyne.Theme
	v fyne.ThemeVariant
}

func (t variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.v)
}

func lightTheme() fyne.Theme { return variantTheme{NewTheme(), theme.VariantLight} }
func darkTheme() fyne.Theme  { return variantTheme{NewTheme(), theme.VariantDark} }
