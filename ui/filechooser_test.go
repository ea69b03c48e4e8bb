package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestChooserFallsBackWhenTheDialogFails: a system dialog program that
// is there but fails (here a zenity that exits with an error, on a display
// it cannot open) gives way to Fyne's dialog, for a file and a folder.
// The program is found once per process, so the test runs in a child
// whose PATH has only that zenity.
func TestChooserFallsBackWhenTheDialogFails(t *testing.T) {
	if os.Getenv("BRAID_TEST_BROKEN_ZENITY") == "" {
		bin := t.TempDir()
		script := "#!/bin/sh\necho 'zenity: cannot start' >&2\nexit 5\n"
		if err := os.WriteFile(filepath.Join(bin, "zenity"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "BRAID_TEST_BROKEN_ZENITY=1", "PATH="+bin, "DISPLAY=:9999", "BRAID_FILE_DIALOG=")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel("queue"))
	w.Resize(fyne.NewSize(900, 700))
	shown := make(chan dialog.Dialog, 2)
	c := SystemChooser{Fallback: FyneChooser{Shown: func(d dialog.Dialog) { shown <- d }}}
	wait := func(what string) {
		t.Helper()
		select {
		case d := <-shown:
			d.Hide()
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: Fyne's dialog did not show after the system's failed", what)
		}
	}
	c.ChooseFile(w, "Open", "", nil, func(string) { t.Error("chosen with no choice made") })
	wait("file")
	c.ChooseFolder(w, "Save to", "", func(string) { t.Error("chosen with no choice made") })
	wait("folder")
}
