package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"braid/engine/metalink"
)

// parityDoc lists big.iso with its PAR2 set (index and two volumes of 40
// and 80 recovery blocks), a manual for German and one for English
// readers, and a .par2 whose file is not listed: a file like any other.
func parityDoc() *metalink.Document {
	url := func(n string) []metalink.URL {
		return []metalink.URL{{URL: "https://mirror.example.org/" + n, Priority: 1}}
	}
	return &metalink.Document{Version: 4, Files: []metalink.File{
		{Name: "big.iso", Size: 700 << 20, URLs: url("big.iso")},
		{Name: "big.iso.par2", Size: 40 << 10, URLs: url("big.iso.par2")},
		{Name: "big.iso.vol000+40.par2", Size: 12 << 20, URLs: url("big.iso.vol000+40.par2")},
		{Name: "big.iso.vol040+80.par2", Size: 24 << 20, URLs: url("big.iso.vol040+80.par2")},
		{Name: "manual-de.pdf", Size: 1 << 20, Languages: []string{"de"}, URLs: url("manual-de.pdf")},
		{Name: "manual-en.pdf", Size: 1 << 20, Languages: []string{"en"}, URLs: url("manual-en.pdf")},
		{Name: "orphan.par2", Size: 100, URLs: url("orphan.par2")},
	}}
}

// pickerListed are the files the picker lists, as drawn rows.
func pickerListed(p *Picker) []string {
	var out []string
	for _, i := range p.Shown {
		out = append(out, p.Doc.Files[i].Name)
	}
	return out
}

// TestPickerParitySet: a parity set listed beside its file is no file to
// choose: its files are not listed or ticked, and big.iso's row says what
// parity it has, whatever the filters say; the summary counts the files
// to choose from.
func TestPickerParitySet(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	p := NewPicker("parity.meta4", parityDoc(), pickerSettings, w)
	w.SetContent(p.Content)
	w.Resize(fyne.NewSize(760, 620))

	want := []string{"big.iso", "manual-de.pdf", "manual-en.pdf", "orphan.par2"}
	if got := pickerListed(p); !slices.Equal(got, want) {
		t.Fatalf("listed %q, want %q", got, want)
	}
	const line = "parity for big.iso (120 recovery blocks, 36.0 MiB)"
	row := func(name string) *pickerRow {
		t.Helper()
		i := slices.Index(pickerListed(p), name)
		if i < 0 {
			t.Fatalf("%s is not listed: %q", name, pickerListed(p))
		}
		r := p.createRow().(*pickerRow)
		p.updateRow(i, r)
		return r
	}
	for _, tt := range []struct {
		name, langs string
		ticked      []string
	}{
		{"the settings' language", "en", []string{"big.iso", "manual-en.pdf", "orphan.par2"}},
		{"German typed", "de", []string{"big.iso", "manual-de.pdf", "orphan.par2"}},
		{"any language", "", []string{"big.iso", "manual-de.pdf", "manual-en.pdf", "orphan.par2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p.Languages.SetText("")
			test.Type(p.Languages, tt.langs)
			if got := ticked(p); !slices.Equal(got, tt.ticked) {
				t.Errorf("ticked %q, want %q", got, tt.ticked)
			}
			if got := pickerListed(p); !slices.Equal(got, want) {
				t.Errorf("listed %q, want %q", got, want)
			}
			if r := row("big.iso"); !r.parity.Visible() || dimText(r.parity) != line {
				t.Errorf("big.iso's parity line %q (shown %v), want %q", dimText(r.parity), r.parity.Visible(), line)
			}
			for _, other := range []string{"manual-de.pdf", "orphan.par2"} {
				if r := row(other); r.parity.Visible() {
					t.Errorf("%s shows a parity line: %q", other, dimText(r.parity))
				}
			}
			if s, want := p.Summary.Text, fmt.Sprintf("%d of 4 files · ", len(tt.ticked)); !strings.HasPrefix(s, want) {
				t.Errorf("summary %q, want it to start %q", s, want)
			}
		})
	}
	// A parity file cannot be ticked, and Start never asks for one.
	p.SetTicked(2, true)
	if p.Ticked[2] {
		t.Errorf("a parity volume was ticked")
	}
	if got := p.Request(false).Files; slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "big.iso.") }) {
		t.Errorf("Start asks for %q", got)
	}
}

// TestPickerParityWithoutSizes: a set whose files the document gives no
// size for is named by its blocks alone, and an index without volumes
// says it has none.
func TestPickerParityWithoutSizes(t *testing.T) {
	test.NewTempApp(t)
	files := []metalink.File{{Name: "a.bin", Size: 10}, {Name: "a.bin.par2", Size: -1}, {Name: "a.bin.vol0+1.par2", Size: -1}}
	sets := metalink.ParitySets(files)
	if got, want := parityLine(sets["a.bin"], files), "parity for a.bin (1 recovery block)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	files = files[:2]
	files[1].Size = 2048
	sets = metalink.ParitySets(files)
	if got, want := parityLine(sets["a.bin"], files), "parity for a.bin (0 recovery blocks, 2.0 KiB)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestPickerSyncListsParity: a sync keeps every listed resource, .par2
// files too, and lists them as such.
func TestPickerSyncListsParity(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	p := newPicker("sync", parityDoc(), pickerSettings, w, true)
	if len(p.Shown) != len(p.Doc.Files) || slices.Contains(p.Ticked, false) {
		t.Errorf("a sync lists %d of %d resources, ticked %v", len(p.Shown), len(p.Doc.Files), p.Ticked)
	}
}
