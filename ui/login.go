package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"braid/engine/metalink"
	"braid/engine/transport"
)

// LoginGiver is a Backend that can give a job the login a server asks
// for (HTTP 401): the window then asks for a user name and password when
// a job stops for want of one, and resumes it with them.
type LoginGiver interface {
	// LoginWanted says whether job id stopped because a server asks for a
	// login (or refused the one given), and which; false when it did not.
	LoginWanted(id JobID) (LoginRequest, bool)
	// GiveLogin gives job id the login for the server LoginWanted named
	// and resumes it. remember keeps the password in the system's keyring;
	// otherwise it is kept until Braid closes. note is a sentence to show
	// when the password could not go to a keyring after all, else "".
	// The password is never stored in the queue's database in clear.
	GiveLogin(id JobID, user, password string, remember bool) (note string, err error)
	// CanRemember reports whether the system has a keyring that a
	// remembered password outlives the session in.
	CanRemember() bool
}

// LoginRequest is a server's request for a login, as the prompt shows it.
type LoginRequest struct {
	Host string // the server that asks, host[:port]
	// Refused: a login was given and the server refused it.
	Refused bool
	// User is the user name given before, to fill in; "" when none.
	User string
	// Lost: a password given in an earlier session was not remembered.
	Lost bool
}

// loginPrompts follows which stopped jobs the window has looked at, so a
// job that stops for want of a login is asked about once per stop. Only
// the UI goroutine touches it.
type loginPrompts struct {
	started bool
	// seen is each stopped job's reason as last read; a job that stops
	// again (or for another reason) is looked at again.
	seen map[JobID]string
	open map[JobID]bool // a prompt is showing
}

// LoginForm is the login prompt's parts, exported for tests.
type LoginForm struct {
	Message  *widget.Label
	User     *Entry
	Password *Entry
	Remember *keyCheck
	// Note says that remembered passwords cannot outlive the session,
	// when the system has no keyring; hidden otherwise.
	Note    *widget.Label
	Content fyne.CanvasObject
}

// askLogins looks at the jobs that stopped since the last reading, and
// asks for a login for those a server refused for want of one. The jobs
// stopped when the window opened are only noted: their row menu offers
// "Log in…". It runs on the UI goroutine.
func (w *Window) askLogins(all []Job) {
	lg, ok := w.Backend.(LoginGiver)
	if !ok {
		return
	}
	p := &w.logins
	if p.seen == nil {
		p.seen, p.open = map[JobID]string{}, map[JobID]bool{}
	}
	first := !p.started
	p.started = true
	for _, j := range all {
		if (j.State != Failed && j.State != Paused) || j.Err == "" {
			delete(p.seen, j.ID)
			continue
		}
		reason := j.Err + "\x00" + j.ErrDetail
		if prev, ok := p.seen[j.ID]; ok && prev == reason {
			continue
		}
		p.seen[j.ID] = reason
		if first || p.open[j.ID] {
			continue
		}
		w.askLogin(lg, j.ID, false)
	}
}

// Mend is what the user can do to get a job going that stopped on
// something only they can mend.
type Mend uint8

// The mends.
const (
	MendNone  Mend = iota
	MendLogin      // a server asks for a login, or refused the one given: "Log in…"
	MendLink       // its link expired: "Change link…"
)

// loginKind reports whether a server wants a login of the job: what
// "Log in…" is offered for.
func loginKind(j Job) bool {
	return (j.State == Failed || j.State == Paused) && j.Mend == MendLogin
}

// LogInSelected asks for a login for the selected job.
func (w *Window) LogInSelected() {
	lg, ok := w.Backend.(LoginGiver)
	if !ok || w.selected == 0 {
		return
	}
	w.askLogin(lg, w.selected, true)
}

// askLogin asks the backend, off the UI goroutine, whether job id wants a
// login, and shows the prompt when it does. asked says the user chose
// "Log in…": a job that wants none is then told so.
func (w *Window) askLogin(lg LoginGiver, id JobID, asked bool) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		req, ok := lg.LoginWanted(id)
		canRemember := lg.CanRemember()
		w.do(func() {
			if !ok {
				if asked {
					w.showError(fmt.Errorf("%s", lang.L("No server asks this download for a login.")))
				}
				return
			}
			if w.logins.open == nil {
				w.logins.seen, w.logins.open = map[JobID]string{}, map[JobID]bool{}
			}
			if w.logins.open[id] {
				return
			}
			w.showLogin(lg, id, req, canRemember)
		})
	}()
}

// NewLoginForm builds the prompt's parts for req.
func NewLoginForm(req LoginRequest, canRemember bool) *LoginForm {
	LoadTranslations()
	f := &LoginForm{User: NewEntry(), Password: NewEntry()}
	msg := fmt.Sprintf(lang.L("%s asks for a user name and password."), req.Host)
	switch {
	case req.Refused:
		msg = fmt.Sprintf(lang.L("%s: the server refused this user name and password. Try again."), req.Host)
	case req.Lost:
		msg = fmt.Sprintf(lang.L("%s asks for a user name and password: the one given before was kept for that session only."), req.Host)
	}
	f.Message = widget.NewLabel(msg)
	f.Message.Wrapping = fyne.TextWrapWord
	if req.Refused {
		f.Message.Importance = widget.DangerImportance
	}
	f.User.SetText(req.User)
	f.User.SetPlaceHolder(lang.L("user name"))
	f.Password.Password = true
	f.Password.SetPlaceHolder(lang.L("password"))
	f.Remember = newDialogCheck(lang.L("Remember (in the system's keyring)"), nil)
	f.Note = widget.NewLabel(lang.L("This system has no keyring (Secret Service): the password is kept only until Braid closes."))
	f.Note.Wrapping = fyne.TextWrapWord
	if canRemember {
		f.Note.Hide()
	} else {
		f.Remember.Disable()
	}
	form := widget.NewForm(
		widget.NewFormItem(lang.L("User name"), f.User),
		widget.NewFormItem(lang.L("Password"), f.Password),
		widget.NewFormItem("", f.Remember),
	)
	f.Content = container.NewVBox(f.Message, form, f.Note)
	return f
}

// showLogin shows the prompt for job id; Log in gives the backend the
// login and resumes the job, Cancel leaves it stopped. The password goes
// from the entry to the backend and nowhere else.
func (w *Window) showLogin(lg LoginGiver, id JobID, req LoginRequest, canRemember bool) {
	w.logins.open[id] = true
	w.promptLogin(req, canRemember, func() { delete(w.logins.open, id) }, func(user, pass string, remember bool) {
		// The next stop of the job, a refusal say, is looked at again.
		delete(w.logins.seen, id)
		w.command(lang.L("Log in"), func() error {
			note, err := lg.GiveLogin(id, user, pass, remember)
			if err == nil && note != "" {
				w.do(func() { w.showNote(note) })
			}
			return err
		})
	})
}

// promptLogin shows the login prompt for req; closed hears that it
// closed, either way, and login gets what was typed when Log in was
// chosen with a user name. The password entry is emptied as it closes.
func (w *Window) promptLogin(req LoginRequest, canRemember bool, closed func(), login func(user, pass string, remember bool)) {
	f := NewLoginForm(req, canRemember)
	d := dialog.NewCustomConfirm(lang.L("Log in"), lang.L("Log in"), lang.L("Cancel"), f.Content, func(ok bool) {
		user, pass, remember := strings.TrimSpace(f.User.Text), f.Password.Text, f.Remember.Checked && canRemember
		f.Password.SetText("")
		if closed != nil {
			closed()
		}
		if ok && user != "" {
			login(user, pass, remember)
		}
	}, w.Win)
	for _, e := range []*Entry{f.User, f.Password} {
		e.OnSubmitted = func(string) { d.Confirm() }
		e.OnEscape = d.Hide
	}
	w.keyed(d, d.Confirm, d.Hide)
	d.Resize(fyne.NewSize(480, d.MinSize().Height))
	d.Show()
	if req.User != "" {
		w.Win.Canvas().Focus(f.Password)
	} else {
		w.Win.Canvas().Focus(f.User)
	}
}

// showNote shows a sentence in a dialog that Enter and Escape close.
func (w *Window) showNote(text string) {
	d := dialog.NewInformation(lang.L("Log in"), text, w.Win)
	w.keyed(d, d.Hide, d.Hide)
	d.Show()
}

// LoginOpener is a Backend that can read a source whose server asks for a
// login (HTTP 401) with one: Add of what it read gives the job the login.
type LoginOpener interface {
	OpenWithLogin(ctx context.Context, source, user, password string, remember bool) (*metalink.Document, error)
}

// canAskLogin reports whether opening source failed because its server
// asks for a login the window can ask the user for (askOpenLogin).
func (w *Window) canAskLogin(source string, err error) bool {
	var le *transport.LoginError
	if _, ok := w.Backend.(LoginOpener); !ok || !errors.As(err, &le) || le.Proxy {
		return false
	}
	u, perr := url.Parse(source)
	return perr == nil && u.Host != ""
}

// askOpenLogin takes an error of opening source that says its server
// wants a login (not the proxy): it asks for one and opens source again
// with it. It reports whether it took the error. It runs on the UI
// goroutine.
func (w *Window) askOpenLogin(source string, pick bool, err error) bool {
	if !w.canAskLogin(source, err) {
		return false
	}
	lo := w.Backend.(LoginOpener)
	var le *transport.LoginError
	errors.As(err, &le)
	u, _ := url.Parse(source)
	canRemember := false
	if lg, ok := w.Backend.(LoginGiver); ok {
		canRemember = lg.CanRemember()
	}
	user := ""
	if u.User != nil {
		user = u.User.Username()
	}
	w.promptLogin(LoginRequest{Host: u.Host, Refused: le.Refused, User: user}, canRemember, nil, func(user, pass string, remember bool) {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			doc, err := lo.OpenWithLogin(w.ctx, source, user, pass, remember)
			w.do(func() {
				if err != nil {
					if !w.askOpenLogin(source, pick, err) {
						w.showError(fmt.Errorf(lang.L("open %s: %w"), source, err))
					}
					return
				}
				w.offer(source, doc, pick)
			})
		}()
	})
	return true
}
