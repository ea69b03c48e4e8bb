package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestProblemDetailsToggleAndCopy: a failed job's Info says its problem
// as a sentence; the technical text shows only after a tap on Details,
// selectable, and Copy puts it whole on the clipboard; a second tap hides
// it again.
func TestProblemDetailsToggleAndCopy(t *testing.T) {
	const raw = `http://127.0.0.1:9/x.bin: bytes 1048576-2097151: Get "http://127.0.0.1:9/x.bin": dial tcp 127.0.0.1:9: connect: connection refused`
	sentence, detail := Explain(raw)
	if sentence == "" || detail != raw {
		t.Fatalf("Explain(%q) = %q, %q", raw, sentence, detail)
	}
	b := newMemBackend()
	id := b.put(Detail{Job: Job{Name: "x.bin", State: Failed, Size: 2 << 20, ETA: -1, Err: sentence, ErrDetail: detail},
		Files: []FileDetail{{Name: "x.bin", Size: 2 << 20, State: FileFailed, Err: sentence, ErrDetail: detail}}})
	w, _ := newTestWindow(t, b)
	w.Locked(func() {
		w.Select(id)
		w.Tick()
		w.Details.Tabs.Select(w.Details.InfoTab)
	})
	texts := func() []string {
		var out []string
		w.Locked(func() { out = VisibleTexts(w.Win.Canvas()) })
		return out
	}
	button := func(label string) *widget.Button {
		t.Helper()
		var found *widget.Button
		w.Locked(func() {
			for _, o := range test.LaidOutObjects(w.Details.Info) {
				if b, ok := o.(*widget.Button); ok && b.Visible() && b.Text == label {
					found = b
				}
			}
		})
		if found == nil {
			t.Fatalf("Info has no %q button: %q", label, texts())
		}
		return found
	}
	tap := func(b *widget.Button) { w.Locked(func() { test.Tap(b) }) }
	shows := func(s string) bool {
		return slices.ContainsFunc(texts(), func(l string) bool { return strings.Contains(l, s) })
	}

	if !shows(sentence) {
		t.Fatalf("Info does not say %q: %q", sentence, texts())
	}
	if shows("dial tcp") {
		t.Fatalf("the technical text shows before Details is tapped: %q", texts())
	}
	tap(button("Details"))
	if !shows(raw) {
		t.Fatalf("after Details the technical text is not shown: %q", texts())
	}
	var selectable bool
	w.Locked(func() {
		for _, o := range test.LaidOutObjects(w.Details.Info) {
			if l, ok := o.(*widget.Label); ok && l.Text == raw {
				selectable = l.Selectable
			}
		}
	})
	if !selectable {
		t.Error("the technical text cannot be selected")
	}
	w.App.Clipboard().SetContent("")
	tap(button("Copy"))
	if got := w.App.Clipboard().Content(); got != raw {
		t.Errorf("Copy put %q on the clipboard, want %q", got, raw)
	}
	tap(button("Details"))
	if shows("dial tcp") {
		t.Errorf("a second tap on Details leaves the technical text shown: %q", texts())
	}
}
