package ui

import (
	"os"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"braid/engine/metalink"
)

// openDoc parses a metalink from testdata with the real reader.
func openDoc(t testing.TB, name string) *metalink.Document {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := metalink.Parse(f)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return doc
}

var pickerSettings = Settings{
	Dir:       "/home/user/Downloads",
	Languages: []string{"en"},
	OS:        []string{"Linux-x64"},
	Countries: []string{"DE"},
}

func newTestPicker(t *testing.T) *Picker {
	t.Helper()
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	p := NewPicker("testdata/app.meta4", openDoc(t, "app.meta4"), pickerSettings, w)
	w.SetContent(p.Content)
	w.Resize(fyne.NewSize(760, 620))
	return p
}

func ticked(p *Picker) []string {
	var out []string
	for i, f := range p.Doc.Files {
		if p.Ticked[i] {
			out = append(out, f.Name)
		}
	}
	return out
}

const (
	enLinux = "braidtest-1.0-en-linux-x64.tar.gz"
	deLinux = "braidtest-1.0-de-linux-x64.tar.gz"
	enWin   = "braidtest-1.0-en-windows-x64.zip"
	readme  = "README.txt"
)

func TestPickerHeader(t *testing.T) {
	p := newTestPicker(t)
	if p.Title.Text != "Braid Test App" {
		t.Errorf("title %q", p.Title.Text)
	}
	if want := "Version 1.0 · Published by Example Org"; dimText(p.Subtitle) != want {
		t.Errorf("subtitle %q, want %q", dimText(p.Subtitle), want)
	}
	if !strings.Contains(p.Description.Text, "test Braid's picker") || !p.Description.Visible() {
		t.Errorf("description %q (visible %v)", p.Description.Text, p.Description.Visible())
	}
	if len(p.Doc.Rejected) != 1 {
		t.Fatalf("the unsafe file was not refused: %+v", p.Doc.Rejected)
	}
}

// TestPickerFilters types into the filter entries and checks that the
// ticks follow at once, with the reason for each file left out.
func TestPickerFilters(t *testing.T) {
	tests := []struct {
		name           string
		langs, oses    string
		want           []string
		leftOut        string // a file left out ...
		reasonContains string // ... and words of its reason
	}{
		{"settings: English on 64-bit Linux", "en", "Linux-x64", []string{enLinux, readme}, enWin, "Windows-x64"},
		{"German", "de", "Linux-x64", []string{deLinux, readme}, enLinux, "language en"},
		{"British English matches en", "en-GB", "linux/amd64", []string{enLinux, readme}, deLinux, "language de"},
		{"any language", "", "Linux-x64", []string{enLinux, deLinux, readme}, enWin, "Windows-x64"},
		{"Windows", "en", "Windows-x64", []string{enWin, readme}, enLinux, "Linux-x64"},
		{"no filters", "", "", []string{enLinux, deLinux, enWin, readme}, "", ""},
		{"a language nobody offers", "fr", "", []string{readme}, enWin, "language en"},
	}
	p := newTestPicker(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.Languages.SetText("")
			test.Type(p.Languages, tt.langs)
			p.OS.SetText(tt.oses)
			if got := ticked(p); !slices.Equal(got, tt.want) {
				t.Errorf("ticked %q, want %q", got, tt.want)
			}
			for i, f := range p.Doc.Files {
				if p.Ticked[i] != (p.Why[i] == "") {
					t.Errorf("%s: ticked %v with reason %q", f.Name, p.Ticked[i], p.Why[i])
				}
				r := p.createRow().(*pickerRow)
				p.updateRow(i, r)
				if r.check.Checked != p.Ticked[i] {
					t.Errorf("%s: box shows %v, state %v", f.Name, r.check.Checked, p.Ticked[i])
				}
				if f.Name == tt.leftOut {
					if !r.why.Visible() || !strings.Contains(r.why.Text, tt.reasonContains) || !strings.HasPrefix(r.why.Text, "Left out: ") {
						t.Errorf("%s: reason %q (visible %v), want it to mention %q", f.Name, r.why.Text, r.why.Visible(), tt.reasonContains)
					}
				}
				if p.Ticked[i] && r.why.Visible() {
					t.Errorf("%s is ticked but shows a reason %q", f.Name, r.why.Text)
				}
			}
		})
	}
}

func TestPickerLocationNeverLeavesOut(t *testing.T) {
	p := newTestPicker(t)
	p.Languages.SetText("")
	p.OS.SetText("")
	for _, c := range []string{"DE", "JP", "us, de"} {
		p.Countries.SetText(c)
		if got := ticked(p); len(got) != 4 {
			t.Errorf("countries %q ticked %q, want all four", c, got)
		}
	}
	p.Countries.SetText("DE")
	r := p.createRow().(*pickerRow)
	p.updateRow(0, r)
	if !strings.Contains(dimText(r.meta), "2 mirrors (1 near you)") {
		t.Errorf("meta line %q does not count the mirror in DE", dimText(r.meta))
	}
}

func TestPickerTickByHand(t *testing.T) {
	p := newTestPicker(t)
	r := p.createRow().(*pickerRow)
	p.updateRow(2, r) // the Windows build, left out by the OS filter
	if r.check.Checked {
		t.Fatal("Windows build ticked on Linux")
	}
	test.Tap(r.check)
	if !p.Ticked[2] {
		t.Fatal("tapping the box did not tick the file")
	}
	if want := "3 of 4 files · "; !strings.HasPrefix(p.Summary.Text, want) {
		t.Errorf("summary %q, want it to start %q", p.Summary.Text, want)
	}
	// Showing the row again for another file must not count as a tap.
	p.updateRow(1, r)
	if p.Ticked[1] {
		t.Error("reusing a row ticked the file it now shows")
	}
}

func TestPickerButtons(t *testing.T) {
	tests := []struct {
		name   string
		tap    func(p *Picker)
		paused bool
	}{
		{"Start", func(p *Picker) { test.Tap(p.Start) }, false},
		{"Add paused", func(p *Picker) { test.Tap(p.AddPaused) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestPicker(t)
			var got []AddRequest
			p.OnAdd = func(r AddRequest) { got = append(got, r) }
			p.Dir.SetText("/tmp/dl")
			tt.tap(p)
			if len(got) != 1 {
				t.Fatalf("OnAdd called %d times", len(got))
			}
			r := got[0]
			if r.Paused != tt.paused || r.Dir != "/tmp/dl" || r.Source != "testdata/app.meta4" || r.Doc != p.Doc {
				t.Errorf("request %+v", r)
			}
			if !slices.Equal(r.Files, []string{enLinux, readme}) {
				t.Errorf("files %q", r.Files)
			}
			if !slices.Equal(r.Prefs.Locations, []string{"DE"}) || !slices.Equal(r.Prefs.Languages, []string{"en"}) {
				t.Errorf("prefs %+v", r.Prefs)
			}
		})
	}
}

func TestPickerNothingToStart(t *testing.T) {
	p := newTestPicker(t)
	called := false
	p.OnAdd = func(AddRequest) { called = true }

	p.Dir.SetText("")
	if !p.Start.Disabled() || !p.AddPaused.Disabled() {
		t.Error("Start enabled without a folder")
	}
	p.Dir.SetText("/tmp")
	if p.Start.Disabled() {
		t.Error("Start disabled with files and a folder")
	}
	p.Languages.SetText("xx")
	p.OS.SetText("Plan9")
	if got := ticked(p); !slices.Equal(got, []string{readme}) {
		t.Fatalf("ticked %q; README.txt names no language or OS and should stay", got)
	}
	p.SetTicked(3, false)
	if slices.Contains(p.Ticked, true) {
		t.Fatalf("ticked %q", ticked(p))
	}
	if !p.Start.Disabled() {
		t.Error("Start enabled with no file ticked")
	}
	p.finish(false)
	if called {
		t.Error("OnAdd called with nothing ticked")
	}
	if p.Summary.Text != "0 of 4 files" {
		t.Errorf("summary %q", p.Summary.Text)
	}
}

func TestPickerCancel(t *testing.T) {
	p := newTestPicker(t)
	cancelled := false
	p.OnCancel = func() { cancelled = true }
	test.Tap(p.Cancel)
	if !cancelled {
		t.Error("Cancel did not call OnCancel")
	}
}

func TestPickerGolden(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(lightTheme())
	w := test.NewTempWindow(t, nil)
	p := NewPicker("testdata/app.meta4", openDoc(t, "app.meta4"), pickerSettings, w)
	w.SetContent(p.Content)
	w.Resize(fyne.NewSize(760, 640))
	// Wrapped text knows its height only once it knows its width: a real
	// window lays out again as it settles; so does this one.
	p.Content.Refresh()
	assertGolden(t, "picker.png", w.Canvas().Capture())
}

// A torrent's files come through the torrent: the picker offers no
// language, system or mirror filters, no Mirrors tab, and no "0 mirrors".
func TestPickerForATorrent(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	doc := &metalink.Document{Version: 4, Files: []metalink.File{
		{Name: "set/a.bin", Size: 1 << 20, MetaURLs: []metalink.MetaURL{{URL: "magnet:?xt=urn:btih:00", MediaType: "torrent", Name: "set/a.bin"}}},
		{Name: "set/b.bin", Size: 2 << 20, MetaURLs: []metalink.MetaURL{{URL: "magnet:?xt=urn:btih:00", MediaType: "torrent", Name: "set/b.bin"}}},
	}}
	p := NewPicker("magnet:?xt=urn:btih:00", doc, pickerSettings, w)
	w.SetContent(p.Content)
	if n := len(p.lists.Items); n != 1 {
		t.Errorf("the picker of a torrent has %d tabs, want the files only", n)
	}
	if m := fileMeta(doc.Files[0], nil); strings.Contains(m, "mirror") {
		t.Errorf("a torrent's file says %q", m)
	}
	if p.Languages.Visible() && isShown(p.Content, p.Languages) {
		t.Error("the language filter shows for a torrent")
	}
	// A metalink keeps them.
	q := newTestPicker(t)
	if n := len(q.lists.Items); n != 2 || !isShown(q.Content, q.Languages) {
		t.Errorf("a metalink's picker: %d tabs, language filter shown %v", n, isShown(q.Content, q.Languages))
	}
}

// isShown reports whether o is in the tree under root.
func isShown(root fyne.CanvasObject, o fyne.CanvasObject) bool {
	if root == o {
		return true
	}
	if c, ok := root.(*fyne.Container); ok {
		for _, k := range c.Objects {
			if isShown(k, o) {
				return true
			}
		}
	}
	return false
}
