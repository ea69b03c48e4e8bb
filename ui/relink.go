package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Relinker is a Backend that can give a job a fresh link in place of one
// that expired (a signed CDN link): "Change link…" in the row menu and
// the details.
type Relinker interface {
	// CanRelink reports whether job id has one link that can be changed
	// (one file, not a torrent, not done), and whether it is paused
	// because its link expired.
	CanRelink(id JobID) (ok, expired bool)
	// Relink gives job id the link newURL, keeping the bytes on disk when
	// the new link serves the same file, and resumes it. Otherwise it
	// refuses with a sentence that says why, and the job is left as it
	// was. checked says what was compared, in words.
	Relink(id JobID, newURL string) (checked string, err error)
}

// RelinkForm is the "Change link…" dialog's parts, exported for tests.
type RelinkForm struct {
	Message *widget.Label
	URL     *Entry
	// Problem shows why the last link given was refused, in red.
	Problem *widget.Label
	Content fyne.CanvasObject
}

// expiredKind reports whether the job's reason says its link expired.
func expiredKind(j Job) bool {
	return j.State == Paused && j.Mend == MendLink
}

// jobMenuItems are the row menu's items for job id that only some
// backends and jobs have: "Log in…" for a job a server wants a login
// for, "Change link…" for a job with one link. Those that mend what
// stopped the job (a login asked for, a link expired, a job failed) head
// the menu, as the next step; a "Change link…" that mends nothing (a
// download running well) is in rest, for its place after the common
// actions.
func (w *Window) jobMenuItems(id JobID) (head, rest []*fyne.MenuItem) {
	j, ok := w.model.find(id)
	if !ok {
		return nil, nil
	}
	if _, lg := w.Backend.(LoginGiver); lg && loginKind(j) {
		it := fyne.NewMenuItem(lang.L("Log in…"), w.LogInSelected)
		it.Icon = theme.AccountIcon()
		head = append(head, it)
	}
	if rl, ok := w.Backend.(Relinker); ok && j.State != Done && j.State != Seeding && j.State != Synced && !j.Sync && canRelink(rl, id) {
		it := fyne.NewMenuItem(lang.L("Change link…"), w.ChangeLinkSelected)
		it.Icon = theme.ContentPasteIcon()
		if expiredKind(j) || j.State == Failed {
			head = append(head, it)
		} else {
			rest = append(rest, it)
		}
	}
	if len(head) > 0 {
		head = append(head, fyne.NewMenuItemSeparator())
	}
	return head, rest
}

// ChangeLinkSelected asks for a new link for the selected job.
func (w *Window) ChangeLinkSelected() {
	if w.selected != 0 {
		w.ChangeLink(w.selected)
	}
}

// NewRelinkForm builds the "Change link…" dialog's parts for job j,
// offering link (from the clipboard) when it is one.
func NewRelinkForm(j Job, link string) *RelinkForm {
	LoadTranslations()
	f := &RelinkForm{URL: NewEntry(), Problem: widget.NewLabel("")}
	msg := fmt.Sprintf(lang.L("Paste a new link for %s. What is on disk is kept when the new link serves the same file."), j.Name)
	if expiredKind(j) {
		msg = fmt.Sprintf(lang.L("The link of %s has expired. Paste a new one: what is on disk is kept when it serves the same file."), j.Name)
	}
	f.Message = widget.NewLabel(msg)
	f.Message.Wrapping = fyne.TextWrapWord
	f.URL.SetPlaceHolder("https://…")
	f.URL.SetText(link)
	f.Problem.Wrapping = fyne.TextWrapWord
	f.Problem.Importance = widget.DangerImportance
	f.Problem.Hide()
	f.Content = container.NewVBox(f.Message, f.URL, f.Problem)
	return f
}

// ChangeLink shows the "Change link…" dialog for job id. Change hands the
// link to the backend; a refusal is shown in the dialog as its sentence,
// the job left as it was, and the user may paste another.
func (w *Window) ChangeLink(id JobID) {
	rl, ok := w.Backend.(Relinker)
	if !ok {
		return
	}
	j, ok := w.model.find(id)
	if !ok {
		return
	}
	link := ""
	if c := w.App.Clipboard(); c != nil {
		if l := urlLines(c.Content()); len(l) == 1 {
			link = l[0]
		}
	}
	f := NewRelinkForm(j, link)
	d := dialog.NewCustomWithoutButtons(lang.L("Change link"), f.Content, w.Win)
	busy := false
	submit := func() {
		text := strings.TrimSpace(f.URL.Text)
		if busy || text == "" {
			return
		}
		busy = true
		f.Problem.Importance = widget.MediumImportance
		f.Problem.SetText(lang.L("Checking the new link…"))
		f.Problem.Show()
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			_, err := rl.Relink(id, text)
			w.do(func() {
				busy = false
				if err != nil {
					// Refused: the job is as it was; the dialog stays
					// for another link.
					f.Problem.Importance = widget.DangerImportance
					f.Problem.SetText(relinkSentence(err))
					return
				}
				d.Hide()
			})
			w.poll.reloadSoon()
		}()
	}
	change := widget.NewButtonWithIcon(lang.L("Change link"), theme.ConfirmIcon(), submit)
	change.Importance = widget.HighImportance
	d.SetButtons([]fyne.CanvasObject{widget.NewButtonWithIcon(lang.L("Cancel"), theme.CancelIcon(), d.Hide), change})
	f.URL.OnSubmitted = func(string) { submit() }
	f.URL.OnEscape = d.Hide
	w.keyed(d, submit, d.Hide)
	d.Resize(fyne.NewSize(560, d.MinSize().Height))
	d.Show()
	w.Win.Canvas().Focus(f.URL)
}

// relinkSentence is a refusal as the dialog shows it: why the new link
// cannot replace the old one (the backend says why in a sentence), or
// the sentence for an error of another kind.
func relinkSentence(err error) string {
	text := err.Error()
	if sentence, detail := Explain(text); detail != "" {
		return sentence
	}
	return lang.L("The new link cannot replace the old one:") + " " + text
}

// jobActions are the details pane's buttons for a job that stopped on
// something the user can mend: "Change link…" for a link that expired,
// "Log in…" for a server that wants a login.
type jobActions struct {
	ChangeLink, LogIn *widget.Button
	// OnChangeLink and OnLogIn run when the buttons are pressed, with
	// the shown job's ID.
	OnChangeLink, OnLogIn func(JobID)
}

// addJobActions makes the buttons and puts them first among the pane's
// actions, hidden until a job needs them.
func (d *Details) addJobActions() {
	x := &d.Extra
	x.ChangeLink = widget.NewButtonWithIcon(lang.L("Change link…"), theme.ContentPasteIcon(), func() {
		if x.OnChangeLink != nil && !d.Empty {
			x.OnChangeLink(d.Detail.ID)
		}
	})
	x.ChangeLink.Importance = widget.HighImportance
	x.LogIn = widget.NewButtonWithIcon(lang.L("Log in…"), theme.AccountIcon(), func() {
		if x.OnLogIn != nil && !d.Empty {
			x.OnLogIn(d.Detail.ID)
		}
	})
	x.LogIn.Importance = widget.HighImportance
	x.ChangeLink.Hide()
	x.LogIn.Hide()
	d.actions.Objects = append([]fyne.CanvasObject{x.ChangeLink, x.LogIn}, d.actions.Objects...)
}

// showJobActions shows the buttons the shown job needs.
func (d *Details) showJobActions() {
	j := d.Detail.Job
	showIf(d.Extra.OnChangeLink != nil && expiredKind(j), d.Extra.ChangeLink)
	showIf(d.Extra.OnLogIn != nil && loginKind(j), d.Extra.LogIn)
}

// logInJob asks for a login for job id: the details' "Log in…".
func (w *Window) logInJob(id JobID) {
	if lg, ok := w.Backend.(LoginGiver); ok {
		w.askLogin(lg, id, true)
	}
}

// hookJobActions connects the details' buttons to the backend's powers.
func (w *Window) hookJobActions() {
	if _, ok := w.Backend.(Relinker); ok {
		w.Details.Extra.OnChangeLink = w.ChangeLink
	}
	if _, ok := w.Backend.(LoginGiver); ok {
		w.Details.Extra.OnLogIn = w.logInJob
	}
}

// canRelink: job id has a link to change (one file, not a torrent).
func canRelink(rl Relinker, id JobID) bool {
	ok, _ := rl.CanRelink(id)
	return ok
}
