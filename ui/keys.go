package ui

import (
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"
)

// dialogKeys is what Enter and Escape do in an open dialog.
type dialogKeys struct {
	ok, cancel func()
}

// keyed makes Enter run ok and Escape run cancel while d is open. The
// keys reach the dialog through the canvas when nothing has the focus,
// and through Entry and Check, which pass them on, when one does.
func (w *Window) keyed(d dialog.Dialog, ok, cancel func()) {
	k := &dialogKeys{ok: ok, cancel: cancel}
	w.dialogs = append(w.dialogs, k)
	d.SetOnClosed(func() {
		for i, o := range w.dialogs {
			if o == k {
				w.dialogs = append(w.dialogs[:i], w.dialogs[i+1:]...)
				break
			}
		}
		w.releaseFocus()
	})
}

// dialogKey gives Enter and Escape to the newest open dialog; it reports
// whether one took the key.
func (w *Window) dialogKey(name fyne.KeyName) bool {
	if len(w.dialogs) == 0 {
		return false
	}
	k := w.dialogs[len(w.dialogs)-1]
	switch name {
	case fyne.KeyReturn, fyne.KeyEnter:
		if k.ok != nil {
			k.ok()
		}
		return true
	case fyne.KeyEscape:
		if k.cancel != nil {
			k.cancel()
		}
		return true
	}
	return false
}

// Entry is a one-line entry that hands Escape to OnEscape (Enter goes
// to OnSubmitted, as in widget.Entry), so a dialog answers both keys
// while the entry has the focus.
//
// It also keeps count of the entries that hold the focus: a dialog taken
// off the window drops its focus manager without telling the entry it
// focused, whose cursor then blinks on unseen, an animation that redraws
// the window for ever (about 9 % of a core per dialog once closed). The
// window ends that focus when a dialog closes; see releaseFocus.
type Entry struct {
	widget.Entry
	OnEscape     func()
	enterSubmits bool // see NewLinesEntry
}

// focusedEntries are the entries that gained the focus and have not lost
// it, in any window. Only the UI goroutine touches it (a test's goroutine
// on Fyne's test driver, which holds the window's lock).
var focusedEntries = map[*Entry]bool{}

// FocusGained is Fyne's hook; see fyne.Focusable.
func (e *Entry) FocusGained() {
	focusedEntries[e] = true
	e.Entry.FocusGained()
}

// FocusLost is Fyne's hook; see fyne.Focusable.
func (e *Entry) FocusLost() {
	delete(focusedEntries, e)
	e.Entry.FocusLost()
}

// HasFocus reports whether e holds the focus as far as e knows: whether
// its cursor shows.
func (e *Entry) HasFocus() bool { return focusedEntries[e] }

// releaseFocus ends the focus of every entry that believes it has it
// while the window's canvas has another in focus: entries of dialogs no
// longer shown. It runs when the last open dialog closes, so an entry of
// a dialog still open under another keeps its focus.
func (w *Window) releaseFocus() {
	if len(w.dialogs) > 0 {
		return
	}
	c := w.Win.Canvas()
	now := c.Focused()
	for e := range focusedEntries {
		if fyne.Focusable(e) == now {
			continue
		}
		if other := fyne.CurrentApp().Driver().CanvasForObject(e); other != nil && other != c {
			continue // another window's
		}
		e.FocusLost()
	}
}

// NewEntry returns an empty Entry.
func NewEntry() *Entry {
	e := &Entry{}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey is Fyne's hook; see fyne.Focusable. In a multi-line entry
// made with NewLinesEntry, Enter submits as in a one-line entry and
// Shift+Enter starts a new line.
func (e *Entry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.OnEscape != nil {
		e.OnEscape()
		return
	}
	// Without handlers of its own, a one-line entry hands Enter and
	// Escape to the dialog it is in.
	enter := k.Name == fyne.KeyReturn || k.Name == fyne.KeyEnter
	if enter && e.Disabled() {
		// A click focuses a disabled entry too (When done's command
		// field), and Fyne's entry then ignores every key: Enter still
		// answers.
		if e.OnSubmitted != nil {
			e.OnSubmitted(e.Text)
		} else {
			passKey(e, nil, k.Name)
		}
		return
	}
	if (k.Name == fyne.KeyEscape || enter && !e.MultiLine && e.OnSubmitted == nil) && passKey(e, nil, k.Name) {
		return
	}
	if e.enterSubmits && (k.Name == fyne.KeyReturn || k.Name == fyne.KeyEnter) {
		if !shiftHeld() {
			if e.OnSubmitted != nil {
				e.OnSubmitted(e.Text)
			}
			return
		}
		// Fyne's multi-line entry submits on Shift+Enter when it has an
		// OnSubmitted: without one it starts a new line.
		submitted := e.OnSubmitted
		e.OnSubmitted = nil
		e.Entry.TypedKey(k)
		e.OnSubmitted = submitted
		return
	}
	e.Entry.TypedKey(k)
}

// NewLinesEntry returns a multi-line Entry for a list, one item a line,
// rows lines high, where Enter submits and Shift+Enter starts a new line.
func NewLinesEntry(rows int) *Entry {
	e := &Entry{enterSubmits: true}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapOff
	e.SetMinRowsVisible(rows)
	e.ExtendBaseWidget(e)
	return e
}

// shiftHeld reports whether Shift is held down now, on drivers that know
// (Fyne's test driver does not: tests set their own).
var shiftHeld = func() bool {
	d, ok := fyne.CurrentApp().Driver().(desktop.Driver)
	return ok && d.CurrentKeyModifiers()&fyne.KeyModifierShift != 0
}

// keyCheck is a check box that hands Enter and Escape to its dialog
// while it has the focus (a tap on it gives it the focus).
type keyCheck struct {
	widget.Check
	onKey func(fyne.KeyName) bool
}

func newKeyCheck(changed func(bool), onKey func(fyne.KeyName) bool) *keyCheck {
	c := &keyCheck{onKey: onKey}
	c.OnChanged = changed
	c.ExtendBaseWidget(c)
	return c
}

// newDialogCheck is a check box for a dialog: Enter and Escape reach the
// dialog (Window.dialogKey) while it has the focus.
func newDialogCheck(label string, changed func(bool)) *keyCheck {
	c := newKeyCheck(changed, nil)
	c.Text = label
	return c
}

// TypedKey is Fyne's hook; see fyne.Focusable.
func (c *keyCheck) TypedKey(k *fyne.KeyEvent) {
	if k.Name != fyne.KeySpace && passKey(c, c.onKey, k.Name) {
		return
	}
	c.Check.TypedKey(k)
}

// openWindows are the open Windows by their canvas, so that a widget in a
// dialog finds the window whose dialog it is in (windowOf).
var openWindows = struct {
	sync.Mutex
	m map[fyne.Canvas]*Window
}{m: map[fyne.Canvas]*Window{}}

// windowOf is the Window whose canvas c is; nil for none.
func windowOf(c fyne.Canvas) *Window {
	openWindows.Lock()
	defer openWindows.Unlock()
	return openWindows.m[c]
}

// setWindowOf records w as the Window of canvas c; nil forgets it.
func setWindowOf(c fyne.Canvas, w *Window) {
	openWindows.Lock()
	defer openWindows.Unlock()
	if w == nil {
		delete(openWindows.m, c)
	} else {
		openWindows.m[c] = w
	}
}

// passKey gives key to onKey, or without one to the dialog open in the
// window o is shown in; it reports whether one took it.
func passKey(o fyne.CanvasObject, onKey func(fyne.KeyName) bool, key fyne.KeyName) bool {
	if onKey != nil {
		return onKey(key)
	}
	if c := fyne.CurrentApp().Driver().CanvasForObject(o); c != nil {
		if w := windowOf(c); w != nil && len(w.dialogs) > 0 {
			return w.dialogKey(key)
		}
	}
	return false
}

// JobList is the queue's list. It is a widget.List whose keys, while it
// has the focus, reach the window first: Space pauses and resumes rather
// than selecting, Enter opens a finished file, Delete removes.
type JobList struct {
	widget.List
	onKey func(*fyne.KeyEvent) bool
}

func newJobList(length func() int, create func() fyne.CanvasObject, update func(widget.ListItemID, fyne.CanvasObject)) *JobList {
	l := &JobList{}
	l.Length, l.CreateItem, l.UpdateItem = length, create, update
	l.ExtendBaseWidget(l)
	return l
}

// TypedKey is Fyne's hook; see fyne.Focusable.
func (l *JobList) TypedKey(k *fyne.KeyEvent) {
	if l.onKey != nil && l.onKey(k) {
		return
	}
	l.List.TypedKey(k)
}

// listKey handles the keys without a modifier that act on the queue. It
// runs for the list when it has the focus and for the canvas when
// nothing has; it reports whether it used the key.
func (w *Window) listKey(k *fyne.KeyEvent) bool {
	if len(w.dialogs) > 0 {
		// A dialog is open: the queue behind it takes no keys.
		return w.dialogKey(k.Name)
	}
	switch k.Name {
	case fyne.KeySpace:
		w.TogglePause()
	case fyne.KeyDelete:
		w.RemoveSelected()
	case fyne.KeyReturn, fyne.KeyEnter:
		w.OpenSelectedFile()
	case fyne.KeyF1:
		w.ShowShortcuts()
	case fyne.KeyEscape:
		w.clearSelection()
	default:
		return false
	}
	return true
}

func (w *Window) clearSelection() {
	clear(w.marked)
	if w.selected != 0 {
		w.selected = 0
		w.poll.selected.Store(0)
		w.List.UnselectAll()
		w.Details.Clear()
	}
	w.List.Refresh()
	w.setToolbar()
}

// addShortcuts binds the keys for the common actions.
func (w *Window) addShortcuts() {
	c := w.Win.Canvas()
	for _, s := range w.shortcuts() {
		if s.key == nil {
			continue
		}
		do := s.do
		c.AddShortcut(s.key, func(fyne.Shortcut) { do() })
	}
	c.AddShortcut(&fyne.ShortcutPaste{}, func(fyne.Shortcut) { w.PasteURL() })
	c.AddShortcut(&fyne.ShortcutSelectAll{}, func(fyne.Shortcut) { w.SelectAll() })
	c.SetOnTypedKey(func(e *fyne.KeyEvent) { w.listKey(e) })
}

// shortcut is one key of the window and what it does; the shortcuts
// help lists them all.
type shortcut struct {
	key  fyne.Shortcut // nil: handled by listKey or Fyne itself
	keys string        // as the help names them
	what string
	do   func()
}

func ctrl(k fyne.KeyName) fyne.Shortcut {
	return &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault}
}

func ctrlShift(k fyne.KeyName) fyne.Shortcut {
	return &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
}

func (w *Window) shortcuts() []shortcut {
	return []shortcut{
		{ctrl(fyne.KeyN), "Ctrl+N", lang.L("Add URL"), w.AskURL},
		{ctrl(fyne.KeyO), "Ctrl+O", lang.L("Open a file"), w.AskFile},
		{nil, "Ctrl+V", lang.L("Add the link on the clipboard"), w.PasteURL},
		{nil, lang.L("Space"), lang.L("Pause or resume"), w.TogglePause},
		{ctrl(fyne.KeyP), "Ctrl+P", lang.L("Pause"), w.PauseSelected},
		{ctrl(fyne.KeyR), "Ctrl+R", lang.L("Resume"), w.ResumeSelected},
		{ctrl(fyne.KeyDelete), lang.L("Delete"), lang.L("Remove"), w.RemoveSelected},
		{nil, "Ctrl+A", lang.L("Select all"), w.SelectAll},
		{nil, lang.L("Ctrl+click, Shift+click"), lang.L("Select several"), nil},
		{ctrl(fyne.KeyUp), "Ctrl+↑", lang.L("Move up"), w.MoveSelectedUp},
		{ctrl(fyne.KeyDown), "Ctrl+↓", lang.L("Move down"), w.MoveSelectedDown},
		{ctrl(fyne.KeyHome), "Ctrl+Home", lang.L("Move to the top"), w.MoveSelectedTop},
		{ctrl(fyne.KeyEnd), "Ctrl+End", lang.L("Move to the bottom"), w.MoveSelectedBottom},
		{nil, lang.L("Drag a row"), lang.L("Move in the queue"), nil},
		{nil, lang.L("Enter"), lang.L("Open the finished file"), w.OpenSelectedFile},
		{ctrl(fyne.KeyE), "Ctrl+E", lang.L("Show in folder"), w.OpenSelectedFolder},
		{ctrlShift(fyne.KeyC), "Ctrl+Shift+C", lang.L("Copy the source URL"), w.CopySourceURL},
		{ctrl(fyne.KeyF), "Ctrl+F", lang.L("Search"), w.FocusSearch},
		{ctrl(fyne.KeyL), "Ctrl+L", lang.L("Alternative speed limit on or off"), w.ToggleAltSpeed},
		{ctrl(fyne.KeyComma), "Ctrl+,", lang.L("Settings"), w.ShowSettings},
		{nil, "F1", lang.L("Keyboard shortcuts"), w.ShowShortcuts},
		{nil, lang.L("Enter, Escape"), lang.L("Accept or cancel a dialog"), nil},
		{ctrl(fyne.KeyQ), "Ctrl+Q", lang.L("Quit"), w.closeRequested},
	}
}

// ShortcutsText lists the keyboard shortcuts, a line each.
func (w *Window) ShortcutsText() string {
	var b strings.Builder
	for _, s := range w.shortcuts() {
		b.WriteString(s.keys)
		b.WriteString(strings.Repeat(" ", max(1, 26-len([]rune(s.keys)))))
		b.WriteString(s.what)
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// ShowShortcuts shows the keyboard shortcuts (F1).
func (w *Window) ShowShortcuts() {
	keys := widget.NewLabel(w.ShortcutsText())
	keys.TextStyle.Monospace = true
	d := dialog.NewCustom(lang.L("Keyboard shortcuts"), lang.L("Close"), container.NewVScroll(keys), w.Win)
	w.keyed(d, d.Hide, d.Hide)
	d.Resize(fyne.NewSize(560, min(640, w.Win.Canvas().Size().Height-40)))
	d.Show()
}

// PasteURL opens the link on the clipboard, if it holds one.
func (w *Window) PasteURL() {
	if c := w.App.Clipboard(); c != nil {
		if links := urlLines(c.Content()); len(links) > 0 {
			w.OpenSources(links)
		}
	}
}
