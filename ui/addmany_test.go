package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestAddManyLinks pastes twelve links, one a line, with blank lines and
// spaces among them, into Add URL and presses Enter: each becomes a job,
// in the order given, and one dialog says so link by link. Shift+Enter
// in the box starts a new line instead.
func TestAddManyLinks(t *testing.T) {
	b := newMemBackend()
	w, _ := newTestWindow(t, b)
	var links, want []string
	for i := range 12 {
		// Names that sort otherwise than the order given.
		l := fmt.Sprintf("https://example.org/%02d-%c.iso", (i*7)%12, 'z'-i)
		links = append(links, l)
		want = append(want, fmt.Sprintf("add %s [%s] paused=false dir=/home/user/Downloads", l, l[len("https://example.org/"):]))
	}
	text := "  " + strings.Join(links[:6], "\n") + "\n\n   \n" + strings.Join(links[6:], " \n")
	shortcutKey(w, ctrl(fyne.KeyN))
	e, ok := w.Win.Canvas().Focused().(*Entry)
	if !ok || !e.MultiLine {
		t.Fatalf("Add URL's box is %T, not a multi-line entry", w.Win.Canvas().Focused())
	}
	w.Locked(func() { e.SetText(text) })
	typeKey(w, fyne.KeyReturn)
	w.Settle()
	if got := b.Calls(); !slices.Equal(got, want) {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// One dialog says what became of each link.
	if !dialogOpen(w) {
		t.Fatal("no dialog says what became of the links")
	}
	var texts []string
	w.Locked(func() { texts = VisibleTexts(w.Win.Canvas()) })
	shown := strings.Join(texts, "\n")
	for _, l := range links {
		name := l[len("https://example.org/"):]
		if !strings.Contains(shown, l+"\nAdded as "+name+".") {
			t.Errorf("the result does not say %s was added as %s:\n%s", l, name, shown)
		}
	}
	typeKey(w, fyne.KeyEscape)
	if dialogOpen(w) {
		t.Error("Escape left the result open")
	}

	// The clipboard's links, one a line, fill the box.
	w.App.Clipboard().SetContent(links[0] + "\n" + links[1] + "\n")
	shortcutKey(w, ctrl(fyne.KeyN))
	e = w.Win.Canvas().Focused().(*Entry)
	if e.Text != links[0]+"\n"+links[1] {
		t.Errorf("from the clipboard: %q", e.Text)
	}
	// Shift+Enter: a new line, nothing added.
	before := len(b.Calls())
	held := shiftHeld
	shiftHeld = func() bool { return true }
	t.Cleanup(func() { shiftHeld = held })
	w.Locked(func() { e.CursorRow, e.CursorColumn = 1, len(links[1]) })
	typeKey(w, fyne.KeyReturn)
	shiftHeld = held
	if len(b.Calls()) != before || !dialogOpen(w) {
		t.Errorf("Shift+Enter added: %q", b.Calls()[before:])
	}
	if e.Text != links[0]+"\n"+links[1]+"\n" {
		t.Errorf("Shift+Enter: %q, want a new line at the end", e.Text)
	}
	typeKey(w, fyne.KeyEscape)
}
