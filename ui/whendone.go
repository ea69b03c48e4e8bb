package ui

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// WhenDoneAction is what Braid does with a job's file once the job is
// done.
type WhenDoneAction int

// The actions when done.
const (
	WhenDoneNothing WhenDoneAction = iota
	WhenDoneOpen                   // open the file with its application
	WhenDoneShow                   // show it in the file manager
	WhenDoneCommand                // run a command with the file as its last argument
)

// WhenDone is a job's action for when it is done.
type WhenDone struct {
	Action WhenDoneAction
	// Command is the program and its words, for WhenDoneCommand; the
	// file's path is added as one more argument, and no shell reads it.
	Command string
}

// WhenDoneNote is what went wrong when a job's action ran: Kind is the
// action, Detail the technical text. The zero note: nothing went wrong.
type WhenDoneNote struct {
	Kind   WhenDoneAction
	Detail string
}

// WhenDoneSetter is a Backend that runs actions when jobs are done (found
// by type assertion): Job.WhenDone and Job.WhenDoneNote say each job's.
type WhenDoneSetter interface {
	SetWhenDone(id JobID, w WhenDone) error
}

// whenDoneActions are the choices of the dialog, in its order.
var whenDoneActions = []WhenDoneAction{WhenDoneNothing, WhenDoneOpen, WhenDoneShow, WhenDoneCommand}

// String is the action as the window names it.
func (a WhenDoneAction) String() string {
	switch a {
	case WhenDoneOpen:
		return lang.L("Open the file")
	case WhenDoneShow:
		return lang.L("Show it in its folder")
	case WhenDoneCommand:
		return lang.L("Run a command with the file")
	}
	return lang.L("Nothing")
}

// phrase is the action as it reads after "when done:".
func (a WhenDoneAction) phrase() string {
	switch a {
	case WhenDoneOpen:
		return lang.L("open the file")
	case WhenDoneShow:
		return lang.L("show it in its folder")
	case WhenDoneCommand:
		return lang.L("run a command with the file")
	}
	return lang.L("nothing")
}

// whenDoneSentence says in a sentence what went wrong, by its kind; ""
// when nothing did.
func whenDoneSentence(n WhenDoneNote) string {
	switch n.Kind {
	case WhenDoneNothing:
		return ""
	case WhenDoneOpen:
		return lang.L("The file could not be opened when the download was done.")
	case WhenDoneShow:
		return lang.L("The folder could not be shown when the download was done.")
	}
	return lang.L("The command to run when done failed.")
}

// newOrganiseLine is the details' line about the job's category and its
// action when done: the words dim, what went wrong in the warning colour.
func newOrganiseLine() *widget.RichText {
	rt := widget.NewRichText(
		&widget.TextSegment{Style: widget.RichTextStyle{ColorName: theme.ColorNamePlaceHolder, Inline: true}},
		&widget.TextSegment{Style: widget.RichTextStyle{ColorName: theme.ColorNameWarning, Inline: true}})
	rt.Wrapping = fyne.TextWrapWord // a long sentence in German takes a second line, not a cut
	rt.Hide()
	return rt
}

// showOrganise shows j's category and action when done in the line:
// "Documents · when done: open the file", and what went wrong when it
// ran; the line hides when there is neither.
func showOrganise(rt *widget.RichText, j Job) {
	var parts []string
	if j.Category != "" {
		parts = append(parts, categoryName(j.Category))
	}
	if j.WhenDone.Action != WhenDoneNothing {
		parts = append(parts, fmt.Sprintf(lang.L("when done: %s"), j.WhenDone.Action.phrase()))
	}
	info, problem := upperFirst(strings.Join(parts, " · ")), whenDoneSentence(j.WhenDoneNote)
	if info != "" && problem != "" {
		problem = "  " + problem
	}
	a, b := rt.Segments[0].(*widget.TextSegment), rt.Segments[1].(*widget.TextSegment)
	hidden := info == "" && problem == ""
	if a.Text == info && b.Text == problem && rt.Hidden == hidden {
		return
	}
	a.Text, b.Text, rt.Hidden = info, problem, hidden
	rt.Refresh()
}

// upperFirst is s with its first letter upper case.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// WhenDoneForm is the "When done" dialog's parts, exported for tests.
type WhenDoneForm struct {
	Action  *keyRadio
	Command *Entry
	// Problem says what went wrong last time, with the detail.
	Problem *widget.Label
	Detail  *widget.Entry
	Content fyne.CanvasObject
	dialog  *dialog.ConfirmDialog
}

// value is the action as the form says.
func (f *WhenDoneForm) value() WhenDone {
	w := WhenDone{}
	for _, a := range whenDoneActions {
		if f.Action.Selected == a.String() {
			w.Action = a
		}
	}
	if w.Action == WhenDoneCommand {
		w.Command = strings.TrimSpace(f.Command.Text)
	}
	return w
}

// AskWhenDone asks what the selected jobs do when they are done, showing
// the first one's choice; OK keeps it for every selected job.
func (w *Window) AskWhenDone() {
	setter, ok := w.Backend.(WhenDoneSetter)
	sel := w.Selection()
	if !ok || len(sel) == 0 {
		return
	}
	now := sel[0]
	f := &WhenDoneForm{Command: NewEntry()}
	names := make([]string, len(whenDoneActions))
	for i, a := range whenDoneActions {
		names[i] = a.String()
	}
	f.Action = newKeyRadio(names, func(s string) {
		if s == WhenDoneCommand.String() {
			f.Command.Enable()
		} else {
			f.Command.Disable()
		}
	}, nil)
	f.Command.SetPlaceHolder(lang.L(`notify-send "Download done"`))
	f.Command.SetText(now.WhenDone.Command)
	f.Action.SetSelected(now.WhenDone.Action.String())
	hint := newHint(lang.L("The file's path is added as the last argument. No shell runs it: quotes group words, and nothing else in the command or the file name is special."))
	hint.Wrapping = fyne.TextWrapWord
	box := container.NewVBox(f.Action, f.Command, hint)
	if s := whenDoneSentence(now.WhenDoneNote); s != "" {
		f.Problem = widget.NewLabel(s)
		f.Problem.Importance = widget.DangerImportance
		f.Problem.Wrapping = fyne.TextWrapWord
		f.Detail = widget.NewMultiLineEntry()
		f.Detail.SetText(now.WhenDoneNote.Detail)
		f.Detail.Wrapping = fyne.TextWrapWord
		f.Detail.SetMinRowsVisible(2)
		box.Add(widget.NewSeparator())
		box.Add(f.Problem)
		box.Add(widget.NewAccordion(widget.NewAccordionItem(lang.L("Details"), f.Detail)))
	}
	f.Content = box
	title := fmt.Sprintf(lang.L("When %s is done"), now.Name)
	if len(sel) > 1 {
		title = countL("When the %s selected downloads are done", len(sel))
	}
	ids := make([]JobID, len(sel))
	for i, j := range sel {
		ids[i] = j.ID
	}
	f.dialog = dialog.NewCustomConfirm(title, lang.L("OK"), lang.L("Cancel"), f.Content, func(ok bool) {
		if !ok {
			return
		}
		v := f.value()
		w.command(lang.L("When done"), func() error {
			for _, id := range ids {
				if err := setter.SetWhenDone(id, v); err != nil {
					return err
				}
			}
			return nil
		})
	}, w.Win)
	f.Command.OnSubmitted = func(string) { f.dialog.Confirm() }
	f.Command.OnEscape = f.dialog.Hide
	w.keyed(f.dialog, f.dialog.Confirm, f.dialog.Hide)
	w.whenDoneForm = f
	f.dialog.Resize(fyne.NewSize(560, f.dialog.MinSize().Height))
	f.dialog.Show()
}
