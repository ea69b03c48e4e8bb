package ui

import (
	"fmt"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// keysBackend is the in-memory backend with the optional powers whose
// dialogs the window has: a speed limit per download, a link to change,
// a step when done.
type keysBackend struct{ limitBackend }

func (keysBackend) CanRelink(JobID) (ok, expired bool)   { return true, false }
func (keysBackend) Relink(JobID, string) (string, error) { return "", nil }
func (keysBackend) SetWhenDone(JobID, WhenDone) error    { return nil }

// TestEveryDialogAnswersEnterAndEscape opens every dialog the window has
// and, for each widget in it that can take the focus (a click on a radio
// button, a check box, a choice or an entry gives it the focus), focuses
// it and presses Escape: the dialog must close. Fyne's own radio group,
// check box and select took the focus and ate both keys, so the Speed
// limit dialog stopped answering once a radio button was clicked. Every
// such widget must be one that hands the keys on.
func TestEveryDialogAnswersEnterAndEscape(t *testing.T) {
	b := keysBackend{limitBackend{newMemBackend()}}
	running := sampleQueue(b.memBackend)
	w, _ := newTestWindow(t, b)
	dialogs := map[string]func(){
		"Speed limit": w.AskJobLimit,
		"Remove":      w.RemoveSelected,
		"Add URL":     w.AskURL,
		"Settings":    w.ShowSettings,
		"Schedule":    w.ShowSchedule,
		"When done":   w.AskWhenDone,
		"About":       w.ShowAbout,
		"Shortcuts":   w.ShowShortcuts,
		"Change link": func() { w.ChangeLink(running) },
	}
	c := w.Win.Canvas()
	open := func(name string) fyne.CanvasObject {
		t.Helper()
		w.Select(running)
		w.Settle()
		w.Locked(dialogs[name])
		top := c.Overlays().Top()
		if top == nil {
			t.Fatalf("%s: no dialog opened", name)
		}
		return top
	}
	for name := range dialogs {
		top := open(name)
		var focusable []fyne.Focusable
		for _, o := range test.LaidOutObjects(top) {
			f, ok := o.(fyne.Focusable)
			if !ok || !o.Visible() {
				continue
			}
			switch o.(type) {
			case *widget.Button, *widget.List, *widget.Hyperlink:
				continue // a click does not focus them
			case *Entry, *keyCheck, *keyRadioItem, *keySelect:
			default:
				t.Errorf("%s: a %T takes the focus and does not hand Enter and Escape to the dialog", name, o)
				continue
			}
			focusable = append(focusable, f)
		}
		w.Locked(func() { w.dialogKey(fyne.KeyEscape) })
		if c.Overlays().Top() != nil {
			t.Fatalf("%s: Escape with nothing focused left the dialog open", name)
		}
		for i := range focusable {
			top := open(name)
			var f fyne.Focusable
			k := 0
			for _, o := range test.LaidOutObjects(top) {
				if ff, ok := o.(fyne.Focusable); ok && o.Visible() {
					switch o.(type) {
					case *Entry, *keyCheck, *keyRadioItem, *keySelect:
						if k == i {
							f = ff
						}
						k++
					}
				}
			}
			w.Locked(func() {
				c.Focus(f)
				c.Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
			})
			if top := c.Overlays().Top(); top != nil {
				t.Errorf("%s: Escape with a %T focused left the dialog open", name, f)
				w.Locked(func() {
					c.Unfocus()
					w.dialogKey(fyne.KeyEscape)
				})
				for c.Overlays().Top() != nil {
					c.Overlays().Remove(c.Overlays().Top())
				}
			}
		}
		t.Logf("%s: %d widgets that take the focus, each hands Escape on", name, len(focusable))
	}

	// Enter applies the Speed limit dialog with a radio button focused:
	// a rate typed, "At most" clicked, Enter.
	top := open("Speed limit")
	var item *keyRadioItem
	var rate *Entry
	for _, o := range test.LaidOutObjects(top) {
		switch o := o.(type) {
		case *keyRadioItem:
			item = o // the last: "At most"
		case *Entry:
			rate = o
		}
	}
	w.Locked(func() {
		rate.SetText("300K")
		test.Tap(item)
		c.Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	if c.Overlays().Top() != nil {
		t.Fatal("Enter with a radio button focused left the Speed limit dialog open")
	}
	w.Settle()
	if calls := b.Calls(); !slices.Contains(calls, fmt.Sprintf("limit %d %d", running, 300<<10)) {
		t.Errorf("Enter did not apply the limit: calls %q", calls)
	}
}
