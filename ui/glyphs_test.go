package ui

import (
	"bytes"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/go-text/typesetting/font"
)

// TestArrowsNeedNoSystemFont: the arrows Braid writes beside speeds are
// in a font Fyne bundles, reached through Braid's theme, so they show
// where the system has no font with arrows (a Wine prefix drew "↓" as
// "�"); and no space follows one, as it would be drawn in the arrows'
// font, which has no space.
func TestArrowsNeedNoSystemFont(t *testing.T) {
	texts := map[string]string{
		"status bar":  Totals{Speed: 2.3e6, Upload: 1.1e6, Running: 1}.statusText(),
		"seeding row": rowSpeed(Job{State: Seeding, Upload: 1 << 20}),
		"swarm":       swarmText(Job{State: Seeding, Peers: 3, Seeds: 1, Upload: 1 << 20}, true),
	}
	th := NewTheme()
	for _, style := range []fyne.TextStyle{{}, {Bold: true}, {Italic: true}} {
		first := face(t, th.Font(style))
		noto := face(t, theme.DefaultTextFont())
		if _, ok := first.NominalGlyph(' '); ok {
			t.Fatalf("style %+v: the theme's first font has a space; lines would take its metrics", style)
		}
		for where, s := range texts {
			rs := []rune(s)
			arrows := 0
			for i, r := range rs {
				if r != '↑' && r != '↓' {
					continue
				}
				arrows++
				if _, ok := first.NominalGlyph(r); !ok {
					t.Errorf("%s %q, style %+v: %q is in no bundled font", where, s, style, r)
				}
				if _, ok := noto.NominalGlyph(r); ok {
					t.Errorf("Noto Sans has %q now; the theme's symbol font first is no longer needed", r)
				}
				if i+1 < len(rs) && rs[i+1] == ' ' {
					t.Errorf("%s %q: a space follows %q", where, s, r)
				}
			}
			if arrows == 0 {
				t.Errorf("%s %q has no arrow", where, s)
			}
		}
	}
	// Monospace (the shortcuts list, "Ctrl+↑") keeps Fyne's mono font,
	// which has the arrows itself.
	mono := face(t, th.Font(fyne.TextStyle{Monospace: true}))
	for _, r := range "↑↓" {
		if _, ok := mono.NominalGlyph(r); !ok {
			t.Errorf("the monospace font lacks %q", r)
		}
	}
}

func face(t *testing.T, r fyne.Resource) *font.Face {
	t.Helper()
	f, err := font.ParseTTF(bytes.NewReader(r.Content()))
	if err != nil {
		t.Fatalf("font %s: %v", r.Name(), err)
	}
	return f
}
