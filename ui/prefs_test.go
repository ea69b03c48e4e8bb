package ui

import (
	"math"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// TestSaveToRemembersFolder: the folder chosen in a picker is the one
// the next picker offers, also in a new window (a restart); a new
// download folder in Settings is offered from then on.
func TestSaveToRemembersFolder(t *testing.T) {
	b := newMemBackend()
	w, _ := newTestWindow(t, b)
	w.OpenSource("testdata/app.meta4")
	w.Settle()
	if got := w.Pickers[0].Dir.Text; got != "/home/user/Downloads" {
		t.Fatalf("first picker offers %q", got)
	}
	w.Locked(func() {
		w.Pickers[0].Dir.SetText("/mnt/big/isos")
		test.Tap(w.Pickers[0].Start)
	})
	w.Settle()
	w.OpenSource("testdata/app.meta4")
	w.Settle()
	if got := w.Pickers[0].Dir.Text; got != "/mnt/big/isos" {
		t.Errorf("the next picker offers %q, want the folder chosen last", got)
	}
	w.Locked(func() { test.Tap(w.Pickers[0].Cancel) })

	w2 := New(w.App, b, Options{})
	t.Cleanup(func() { w2.Stop(); w2.Win.Close() })
	w2.Settings = w.Settings
	w2.OpenSource("testdata/app.meta4")
	w2.Settle()
	if got := w2.Pickers[0].Dir.Text; got != "/mnt/big/isos" {
		t.Errorf("after a restart the picker offers %q", got)
	}
	w2.Locked(func() { test.Tap(w2.Pickers[0].Cancel) })

	// A new download folder in Settings wins over the remembered one.
	w.Locked(w.ShowSettings)
	w.Locked(func() {
		w.SettingsForm.Dir.SetText("/srv/downloads")
		test.Tap(overlayButton(t, w, "Save"))
	})
	w.Settle()
	w.OpenSource("testdata/app.meta4")
	w.Settle()
	if got := w.Pickers[0].Dir.Text; got != "/srv/downloads" {
		t.Errorf("after Settings changed the folder the picker offers %q", got)
	}
}

// TestThemeChoice: Settings switches the theme to dark, kept for the next
// start; the desktop's choice comes back with "As the system".
func TestThemeChoice(t *testing.T) {
	b := newMemBackend()
	w, _ := newTestWindow(t, b)
	bg := func() string {
		r, g, bl, _ := w.App.Settings().Theme().Color(theme.ColorNameBackground, theme.VariantLight).RGBA()
		return strings.Repeat("x", int((r+g+bl)>>8/100))
	}
	light := bg()
	w.Locked(w.ShowSettings)
	w.Locked(func() {
		w.SettingsForm.Theme.SetSelected(themeNames()[ThemeDark])
		test.Tap(overlayButton(t, w, "Save"))
	})
	if w.ThemeMode() != ThemeDark || bg() == light {
		t.Fatalf("after choosing Dark: mode %q, background as light", w.ThemeMode())
	}
	w.App.Settings().SetTheme(NewTheme())
	w2 := New(w.App, b, Options{})
	t.Cleanup(func() { w2.Stop(); w2.Win.Close() })
	if th, ok := w.App.Settings().Theme().(*Theme); !ok || th.Mode() != ThemeDark {
		t.Errorf("a new window does not take the kept theme: %T", w.App.Settings().Theme())
	}
	w.Locked(w.ShowSettings)
	if got := w.SettingsForm.Theme.Selected; got != themeNames()[ThemeDark] {
		t.Errorf("Settings shows theme %q", got)
	}
	w.Locked(func() {
		w.SettingsForm.Theme.SetSelected(themeNames()[ThemeSystem])
		test.Tap(overlayButton(t, w, "Save"))
	})
	if w.ThemeMode() != ThemeSystem || bg() != light {
		t.Errorf("back to the system's: mode %q", w.ThemeMode())
	}
}

// TestAbout shows the version and licence the build gives.
func TestAbout(t *testing.T) {
	b := newMemBackend()
	a := test.NewTempApp(t)
	w := New(a, b, Options{Version: "9.8.7", Licence: "Example Licence 2.0"})
	t.Cleanup(func() { w.Stop(); w.Win.Close() })
	w.Locked(w.ShowAbout)
	var text []string
	for _, o := range test.LaidOutObjects(w.Win.Canvas().Overlays().Top()) {
		if l, ok := o.(*widget.Label); ok {
			text = append(text, l.Text)
		}
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"Braid", "Version 9.8.7", "Licence: Example Licence 2.0"} {
		if !strings.Contains(all, want) {
			t.Errorf("About says %q, nothing of %q", all, want)
		}
	}
	typeKey(w, "Escape")
	if dialogOpen(w) {
		t.Error("Escape left About open")
	}
}

// TestAboutThirdPartyLicences: without a licence from the build, About
// names Braid's own, and its button lists the licences of what braid is
// built with, scrolled row by row.
func TestAboutThirdPartyLicences(t *testing.T) {
	b := newMemBackend()
	a := test.NewTempApp(t)
	w := New(a, b, Options{Version: "9.8.7"})
	t.Cleanup(func() { w.Stop(); w.Win.Close() })
	w.Locked(w.ShowAbout)
	var text []string
	var others *widget.Button
	for _, o := range test.LaidOutObjects(w.Win.Canvas().Overlays().Top()) {
		switch o := o.(type) {
		case *widget.Label:
			text = append(text, o.Text)
		case *widget.Button:
			if o.Text == "Third-party licences…" {
				others = o
			}
		}
	}
	if all := strings.Join(text, "\n"); !strings.Contains(all, "Licence: Apache License 2.0") {
		t.Errorf("About says %q, not the Apache licence", all)
	}
	if others == nil {
		t.Fatal("About has no button for the third-party licences")
	}
	w.Locked(func() { test.Tap(others) })
	var list *widget.List
	for _, o := range test.LaidOutObjects(w.Win.Canvas().Overlays().Top()) {
		if l, ok := o.(*widget.List); ok {
			list = l
		}
	}
	if list == nil {
		t.Fatal("the third-party licences show no list")
	}
	n := list.Length()
	if n < 1000 {
		t.Fatalf("the licences are %d lines; the embedded list is missing", n)
	}
	// The rows in sight are the list's first lines.
	var shown []string
	for _, o := range test.LaidOutObjects(list) {
		if l, ok := o.(*widget.Label); ok && l.Text != "" {
			shown = append(shown, l.Text)
		}
	}
	if len(shown) == 0 || !strings.HasPrefix(shown[0], "Braid is licensed under the Apache License") {
		t.Errorf("the licences' first rows are %q", shown)
	}
	typeKey(w, "Escape")
	typeKey(w, "Escape")
	if dialogOpen(w) {
		t.Error("Escape twice left a dialog open")
	}
}

// TestSplitKeptOnSmallScreen: a screen too small refuses the size the
// window asks for, and no other size comes; a split dragged a while
// later is still kept, and so is the size the window has.
func TestSplitKeptOnSmallScreen(t *testing.T) {
	w, _ := newTestWindow(t, newMemBackend())
	p := w.App.Preferences()
	w.Locked(func() {
		// As on a screen that refused 1600×1000: the window stayed
		// 1100×720, and keepSize's wait has passed.
		w.asked = fyne.NewSize(1600, 1000)
		w.geometryKept = false
		w.restored = time.Now().Add(-4 * time.Second)
		p.RemoveValue(prefWidth)
		p.RemoveValue(prefSplit)
		w.Split.SetOffset(0.6)
	})
	if got := p.Float(prefSplit); math.Abs(got-0.6) > 0.001 {
		t.Errorf("the split dragged to 0.6 is kept as %v", got)
	}
	if got := p.Float(prefWidth); got != 1100 {
		t.Errorf("the window's width is kept as %v, want the 1100 it has", got)
	}
}
