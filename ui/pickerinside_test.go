package ui

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"braid/engine/metalink"
)

// TestInsidePicker: the picker of an archive's members lists its files
// (not its folders) with nothing ticked, will not tick a member that
// cannot be fetched and says why, keeps ticks while the search narrows
// the list, and hands over the ticked members of the archive's document.
func TestInsidePicker(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: "set.zip", Size: 9 << 20,
		URLs: []metalink.URL{{URL: "https://a.example/set.zip", Priority: 1}, {URL: "https://b.example/set.zip", Priority: 2}}}}}
	if !IsArchiveDoc(doc) || IsArchiveDoc(&metalink.Document{Files: []metalink.File{{Name: "set.iso", URLs: doc.Files[0].URLs}}}) {
		t.Fatal("IsArchiveDoc does not tell a ZIP from an ISO")
	}
	archive := Archive{Size: 9 << 20, Members: []ArchiveMember{
		{Name: "data/", Folder: true},
		{Name: "data/a.csv", Size: 4 << 20, Compressed: 1 << 20, Method: "deflate"},
		{Name: "data/b.csv", Size: 2 << 20, Compressed: 2 << 20, Method: "stored"},
		{Name: "keys.bin", Size: 10, Compressed: 10, Method: "stored", Refused: "the member is encrypted"},
	}}
	p := NewInsidePicker("https://a.example/set.zip", doc, archive, pickerSettings, w)
	w.SetContent(p.Content)
	w.Resize(fyne.NewSize(760, 620))
	var names []string
	for _, f := range p.Doc.Files {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"data/a.csv", "data/b.csv", "keys.bin"}) || slices.Contains(p.Ticked, true) {
		t.Fatalf("listed %v, ticked %v", names, p.Ticked)
	}
	if p.Why[2] != "Cannot be fetched: the member is encrypted" || p.TickMember("keys.bin", true) || p.Ticked[2] {
		t.Errorf("the encrypted member: why %q, ticked %v", p.Why[2], p.Ticked[2])
	}
	if !p.Start.Disabled() {
		t.Error("Start is enabled with nothing ticked")
	}
	if !p.TickMember("data/b.csv", true) || p.Summary.Text != "1 of 3 files · 2.0 MiB" || p.Start.Disabled() {
		t.Errorf("after ticking data/b.csv: %q, Start disabled %v", p.Summary.Text, p.Start.Disabled())
	}
	test.Type(p.Path, "a.csv")
	if !slices.Equal(p.Shown, []int{0}) || !p.Ticked[1] {
		t.Errorf("the search for a.csv shows %v; data/b.csv ticked %v", p.Shown, p.Ticked[1])
	}
	var got AddRequest
	p.OnAdd = func(req AddRequest) { got = req }
	p.Accept()
	if got.Doc != doc || !slices.Equal(got.Members, []string{"data/b.csv"}) || len(got.Files) != 0 || got.Dir != pickerSettings.Dir {
		t.Errorf("Start handed over %+v", got)
	}
}
