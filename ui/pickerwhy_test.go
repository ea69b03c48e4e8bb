package ui

import (
	"strings"
	"testing"
)

// TestPickerSaysEachReasonOnce: with a language typed in the picker, a
// file of another language says why it is left out once, in its row as
// the user reads it ("Left out: language en does not match de", not the
// same reason twice).
func TestPickerSaysEachReasonOnce(t *testing.T) {
	p := newTestPicker(t)
	p.Languages.SetText("de")
	var texts []string
	for row := range p.Files.Length() {
		item := p.Files.CreateItem()
		p.Files.UpdateItem(row, item)
		walkTexts(item, &texts)
	}
	found := false
	for _, s := range texts {
		if !strings.HasPrefix(s, "Left out: ") {
			continue
		}
		parts := strings.Split(strings.TrimPrefix(s, "Left out: "), "; ")
		for k := range parts {
			if strings.HasPrefix(parts[k], "language en does not match de") {
				found = true
			}
			for l := k + 1; l < len(parts); l++ {
				if parts[k] == parts[l] {
					t.Errorf("a row says one reason twice: %q", s)
				}
			}
		}
	}
	if !found {
		t.Errorf("no row says an English file does not match de; the rows say %q", texts)
	}
}
