package metalink

import (
	"strings"
	"testing"
)

// TestSelectSaysEachReasonOnce: a file left out by a language the user
// gave is told so once, though the filter is applied both among its
// alternatives and to every file ("language en does not match de;
// language en does not match de" was shown); distinct reasons are all
// kept.
func TestSelectSaysEachReasonOnce(t *testing.T) {
	files := []File{
		{Name: "app-1.0-en-linux.tar.gz", Identity: "app", Version: "1.0", Languages: []string{"en"}, OS: []string{"Linux-x64"}},
		{Name: "app-1.0-de-linux.tar.gz", Identity: "app", Version: "1.0", Languages: []string{"de"}, OS: []string{"Linux-x64"}},
		{Name: "app-1.0-en-windows.zip", Identity: "app", Version: "1.0", Languages: []string{"en"}, OS: []string{"Windows-x64"}},
	}
	choices, _ := Select(files, Prefs{Languages: []string{"de"}, OS: []string{"Linux-x64"}}, Prefs{})
	want := []Choice{
		{Why: "language en does not match de"},
		{Selected: true},
		{Why: "for Windows-x64, not Linux-x64; language en does not match de"},
	}
	for i, c := range choices {
		if c != want[i] {
			t.Errorf("%s: %+v, want %+v", files[i].Name, c, want[i])
		}
		parts := strings.Split(c.Why, "; ")
		for k := range parts {
			for l := k + 1; l < len(parts); l++ {
				if parts[k] == parts[l] {
					t.Errorf("%s: the reason %q is given twice: %q", files[i].Name, parts[k], c.Why)
				}
			}
		}
	}
}
