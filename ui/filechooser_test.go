package ui

import (
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestChooserFallsBackToFyne: with no display for the system's dialog,
// or when the user asks for Fyne's, the chooser shows Fyne's file dialog
// over the window, for a file and for a folder.
func TestChooserFallsBackToFyne(t *testing.T) {
	for _, env := range []map[string]string{
		{"DISPLAY": "", "WAYLAND_DISPLAY": "", "BRAID_FILE_DIALOG": ""},
		{"BRAID_FILE_DIALOG": "fyne", "DISPLAY": ":0"},
	} {
		for k, v := range env {
			t.Setenv(k, v)
		}
		test.NewTempApp(t)
		w := test.NewTempWindow(t, widget.NewLabel("queue"))
		w.Resize(fyne.NewSize(900, 700))
		var shown []dialog.Dialog
		c := SystemChooser{Fallback: FyneChooser{Shown: func(d dialog.Dialog) { shown = append(shown, d) }}}
		c.ChooseFile(w, "Open", t.TempDir(), []string{".meta4"}, func(string) { t.Error("chosen with no choice made") })
		if len(shown) != 1 || w.Canvas().Overlays().Top() == nil {
			t.Fatalf("%v: Fyne's file dialog did not show (%d shown)", env, len(shown))
		}
		shown[0].Hide()
		c.ChooseFolder(w, "Save to", filepath.Join(t.TempDir(), "gone", "deeper"), func(string) { t.Error("chosen with no choice made") })
		if len(shown) != 2 || w.Canvas().Overlays().Top() == nil {
			t.Fatalf("%v: Fyne's folder dialog did not show (%d shown)", env, len(shown))
		}
		shown[1].Hide()
	}
}

// TestExistingDir: a chooser starts in the folder given, or the nearest
// one above it that exists.
func TestExistingDir(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "a.meta4")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"":                                 "",
		tmp:                                tmp,
		tmp + "/":                          tmp,
		filepath.Join(tmp, "no", "such"):   tmp,
		file:                               tmp,
		filepath.Join(tmp, "x", "..", "."): tmp,
	} {
		if got := existingDir(in); got != want {
			t.Errorf("existingDir(%q) = %q, want %q", in, got, want)
		}
	}
}
