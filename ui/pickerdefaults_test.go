package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"braid/engine/metalink"
)

// TestPickerLanguageFallback: the picker opens with the user's languages
// (the locale, or Settings) as preferences, not a filter: with a Chinese
// locale, a document offering a German and an English build preselects
// the English one (then the first listed when there is no English),
// never only the language-free files; each build left out says why. A
// language typed into the picker is a filter, and may leave nothing.
func TestPickerLanguageFallback(t *testing.T) {
	test.NewTempApp(t)
	win := test.NewTempWindow(t, nil)
	build := func(l string) metalink.File {
		return metalink.File{Name: "app-" + l + ".exe", Identity: "App", Version: "2.0", Languages: []string{l}, Size: 100,
			URLs: []metalink.URL{{URL: "http://example.org/app-" + l + ".exe", Priority: 1}}}
	}
	notes := metalink.File{Name: "NOTES.txt", Size: 10, URLs: []metalink.URL{{URL: "http://example.org/NOTES.txt", Priority: 1}}}
	zh := Settings{Dir: "/tmp", Languages: []string{"zh-CN", "zh"}}
	for _, tc := range []struct {
		name  string
		files []metalink.File
		want  []string
	}{
		{"English before the first listed", []metalink.File{build("de"), build("en"), notes}, []string{"app-en.exe", "NOTES.txt"}},
		{"no English: the first listed", []metalink.File{build("fr"), build("de"), notes}, []string{"app-fr.exe", "NOTES.txt"}},
		{"a build in the user's language wins", []metalink.File{build("de"), build("zh"), build("en"), notes}, []string{"app-zh.exe", "NOTES.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPicker("app.meta4", &metalink.Document{Version: 4, Files: tc.files}, zh, win)
			if got := ticked(p); !slices.Equal(got, tc.want) {
				t.Fatalf("ticked %q, want %q", got, tc.want)
			}
			for i, f := range p.Doc.Files {
				if !p.Ticked[i] && p.Why[i] == "" {
					t.Errorf("%s left out without a reason", f.Name)
				}
			}
			if !strings.HasPrefix(p.Title.Text, "App") {
				t.Errorf("title %q", p.Title.Text)
			}
		})
	}

	p := NewPicker("app.meta4", &metalink.Document{Version: 4, Files: []metalink.File{build("de"), build("en"), notes}}, zh, win)
	p.Languages.SetText("")
	test.Type(p.Languages, "fr")
	if got := ticked(p); !slices.Equal(got, []string{"NOTES.txt"}) {
		t.Errorf("with fr typed in, ticked %q, want only NOTES.txt", got)
	}
	p.Languages.SetText("zh-CN, zh") // back as it opened: preferences again
	if got := ticked(p); !slices.Equal(got, []string{"app-en.exe", "NOTES.txt"}) {
		t.Errorf("with the languages as they opened, ticked %q", got)
	}
}
