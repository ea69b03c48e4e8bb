package metalink

import (
	"strings"
	"testing"
)

func selectedNames(files []File, choices []Choice) []string {
	var out []string
	for i, c := range choices {
		if c.Selected {
			out = append(out, files[i].Name)
		}
	}
	return out
}

func TestSelectLanguageBestMatch(t *testing.T) {
	setup := func(langs ...string) []File {
		var files []File
		for _, l := range langs {
			files = append(files, File{Name: "setup-" + l + ".exe", Languages: []string{l}})
		}
		return append(files, File{Name: "manual.pdf"}, File{Name: "manual-de.pdf", Languages: []string{"de"}}, File{Name: "manual-en.pdf", Languages: []string{"en"}})
	}
	tests := []struct {
		name     string
		files    []File
		given    []string
		defaults []string
		want     string
		note     bool
	}{
		{"en-GB gets en-GB, not en-US", setup("en-US", "en-GB", "de"), nil, []string{"en-GB"},
			"setup-en-GB.exe manual.pdf manual-en.pdf", false},
		{"en-GB gets en-US where there is no en-GB", setup("en-US", "de"), nil, []string{"en-GB"},
			"setup-en-US.exe manual.pdf manual-en.pdf", false},
		{"the user's first language wins", setup("en-US", "de"), nil, []string{"de", "en"},
			"setup-de.exe manual.pdf manual-de.pdf", false},
		{"no file in the default language: the first listed, or English", setup("fr", "it"), nil, []string{"ja"},
			"setup-fr.exe manual.pdf manual-en.pdf", true},
		{"a Chinese locale with de and en builds gets en (issue 23)", setup("de", "en"), nil, []string{"zh-CN", "zh"},
			"setup-en.exe manual.pdf manual-en.pdf", true},
		{"English fallback takes the closest English (en is en-US)", setup("de", "en-GB", "en-US"), nil, []string{"zh-Hans"},
			"setup-en-US.exe manual.pdf manual-en.pdf", true},
		{"a given language is a real filter", setup("fr", "it"), []string{"ja"}, []string{"en"},
			"manual.pdf", false},
		{"given overrides the default", setup("en-GB", "de"), []string{"de"}, []string{"en-GB"},
			"setup-de.exe manual.pdf manual-de.pdf", false},
		{"given empty: any", setup("en-GB", "de"), []string{}, []string{"en-GB"},
			"setup-en-GB.exe setup-de.exe manual.pdf manual-de.pdf manual-en.pdf", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			choices, notes := Select(tc.files, Prefs{Languages: tc.given}, Prefs{Languages: tc.defaults})
			if got := strings.Join(selectedNames(tc.files, choices), " "); got != tc.want {
				t.Errorf("selected %q, want %q", got, tc.want)
			}
			if (len(notes) > 0) != tc.note {
				t.Errorf("notes %q, want notes: %v", notes, tc.note)
			}
			for _, n := range notes {
				if !strings.Contains(n, "the English one is taken") && !strings.Contains(n, "the first listed (") {
					t.Errorf("note %q does not say which build was taken instead", n)
				}
			}
			for i, c := range choices {
				if !c.Selected && c.Why == "" {
					t.Errorf("%s left out without a reason", tc.files[i].Name)
				}
			}
		})
	}
}

func TestSelectOSDefaultsNeverEmpty(t *testing.T) {
	files := []File{
		{Name: "app-win.exe", Identity: "App", OS: []string{"Windows-x64"}},
		{Name: "app.dmg", Identity: "App", OS: []string{"MacOSX-Intel"}},
	}
	linux := Prefs{OS: []string{"linux/amd64"}}
	choices, notes := Select(files, Prefs{}, linux)
	if got := selectedNames(files, choices); len(got) != 2 {
		t.Errorf("selected %q; no file is for Linux, so the default must not filter", got)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "linux/amd64") {
		t.Errorf("notes %q, want one saying why the OS did not narrow", notes)
	}
	// Given by the user, the OS is a real filter.
	choices, _ = Select(files, linux, Prefs{})
	if got := selectedNames(files, choices); len(got) != 0 {
		t.Errorf("given --os linux selected %q", got)
	}
	// With a Linux build among them, the default narrows to it.
	files = append(files, File{Name: "app.tar.gz", Identity: "App", OS: []string{"Linux-x64"}})
	choices, notes = Select(files, Prefs{}, linux)
	if got := strings.Join(selectedNames(files, choices), " "); got != "app.tar.gz" || len(notes) != 0 {
		t.Errorf("selected %q, notes %q; want app.tar.gz alone", got, notes)
	}
}

// A PAR2 set listed beside its file (as braid make --parity lists it) is
// left out of what is downloaded, with the reason; a .par2 file whose
// file the document does not list is an ordinary file.
func TestSelectLeavesParityOut(t *testing.T) {
	names := []string{"big.iso", "big.iso.par2", "big.iso.vol000+01.par2", "big.iso.vol127+73.PAR2", "other.par2", "big.iso.volume+1.par2"}
	files := make([]File, len(names))
	for i, n := range names {
		files[i] = File{Name: n}
	}
	choices, _ := Select(files, Prefs{}, Prefs{})
	want := []bool{true, false, false, false, true, true}
	for i, c := range choices {
		if c.Selected != want[i] {
			t.Errorf("%s: selected %v (%s), want %v", names[i], c.Selected, c.Why, want[i])
		}
		if !c.Selected && !strings.Contains(c.Why, "PAR2 parity for big.iso") {
			t.Errorf("%s: why %q", names[i], c.Why)
		}
	}
	for name, want := range map[string]string{"a.bin.par2": "a.bin", "a.bin.vol00+01.par2": "a.bin", "x.vol1+2.par2": "x", "a.bin.volx+1.par2": "a.bin.volx+1", ".par2": ""} {
		if got, _ := ParityOf(name); got != want {
			t.Errorf("ParityOf(%q) = %q, want %q", name, got, want)
		}
	}
}
