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

	"braid/engine/explain"
	"braid/engine/redact"
	"braid/engine/transport"
)

// QueueFinder is a Backend that can tell that a source is in the queue
// already: the same link, or the same torrent however it is spelled (a
// magnet, a .torrent). The window then selects that job and says so
// instead of adding a second one.
type QueueFinder interface {
	// InQueue returns the job that downloads source already; false when
	// none does, or when that cannot be told without the network.
	InQueue(ctx context.Context, source string) (JobID, bool)
}

// InQueueError is Add's error for a source that is in the queue already
// (a torrent whose info hash a job has): ID is that job.
type InQueueError struct{ ID JobID }

func (e *InQueueError) Error() string {
	return fmt.Sprintf(lang.L("already in the queue as job %d"), e.ID)
}

// UnreadAdder is a Backend that can add a plain link that could not be
// read as a job all the same: listed, failed with its reason, so the
// user sees it, can log in for it, change its link or resume it.
type UnreadAdder interface {
	// AddUnread adds source, whose Open failed with cause, into dir as a
	// failed job; false (and no job) when source is no plain link to one
	// file (a metalink's or a torrent's link: its file would be the
	// document itself).
	AddUnread(ctx context.Context, source, dir string, cause error) (JobID, bool, error)
}

// linkFate is what became of one link of several added at once.
type linkFate struct {
	link string // as given, without credentials
	// text says what happened, in a sentence; detail is the technical
	// text behind it, "" when none.
	text, detail string
	bad          bool // it did not become a job that runs
	login        bool // its job waits for a login
	added        bool // a link that could not be read is listed as a job all the same
}

// OpenSources opens sources one after the other, in their order: each
// plain link is added before the next is read, so the queue keeps the
// order they were given in; a document with files to choose shows its
// picker; a magnet link's files come from peers when they come, and it
// opens on its own as OpenSource opens it. A source already in the queue
// selects its job. Several sources end with one dialog that says, link by
// link, what became of each. It may be called from any goroutine.
func (w *Window) OpenSources(sources []string) {
	if len(sources) == 1 {
		w.OpenSource(sources[0])
		return
	}
	if len(sources) == 0 {
		return
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		fates := make([]linkFate, 0, len(sources))
		for _, src := range sources {
			f, ok := w.openOne(src)
			if !ok {
				return // the window closes
			}
			fates = append(fates, f)
		}
		w.do(func() { w.showFates(fates) })
	}()
}

// openOne opens one source of several and says what became of it; false
// when the window closes meanwhile. It runs off the UI goroutine.
func (w *Window) openOne(src string) (linkFate, bool) {
	f := linkFate{link: redact.Text(src)}
	if id, ok := w.inQueue(src); ok {
		f.text = fmt.Sprintf(lang.L("Already in the queue: %s."), w.jobName(id))
		w.do(func() { w.pendingSelect = id })
		w.poll.reloadSoon()
		return f, true
	}
	if _, magnet := magnetName(src); magnet {
		w.OpenSource(src)
		f.text = lang.L("Its files come from peers first; then a window asks which to download.")
		return f, true
	}
	doc, err := w.Backend.Open(w.ctx, src)
	if w.ctx.Err() != nil {
		return f, false
	}
	if err != nil {
		return w.unread(src, err), true
	}
	var req AddRequest
	direct := false
	shown := make(chan struct{})
	w.do(func() {
		defer close(shown)
		req, direct = w.offerDirect(src, doc, false)
		if req.Dir == "" {
			req.Dir = w.Settings.Dir
		}
	})
	select {
	case <-shown:
	case <-w.ctx.Done():
		return f, false
	}
	if !direct {
		f.text = lang.L("It holds files to choose from: a window shows them.")
		return f, true
	}
	id, err := w.Backend.Add(w.ctx, req)
	var dup *InQueueError
	switch {
	case errors.As(err, &dup):
		f.text = fmt.Sprintf(lang.L("Already in the queue: %s."), w.jobName(dup.ID))
		id = dup.ID
	case err != nil:
		f.bad = true
		f.text, f.detail = Explain(err.Error())
		f.text = fmt.Sprintf(lang.L("Not added: %s"), f.text)
		return f, true
	default:
		name := ""
		if len(req.Doc.Files) > 0 {
			name = req.Doc.Files[0].Name
		}
		f.text = fmt.Sprintf(lang.L("Added as %s."), name)
		if len(req.Doc.Warnings) > 0 {
			f.text += " " + explain.AsSentence(strings.Join(req.Doc.Warnings, "; "))
		}
	}
	w.do(func() { w.pendingSelect = id })
	w.poll.reloadSoon()
	return f, true
}

// unread is the fate of link src whose Open failed with err: a failed
// job when the backend can list it so, else only the reason. A server
// that asks for a login has its job ask for one (askLogins).
func (w *Window) unread(src string, err error) linkFate {
	f := linkFate{link: redact.Text(src), bad: true}
	why, detail := Explain(err.Error())
	f.detail = detail
	ua, ok := w.Backend.(UnreadAdder)
	if !ok {
		f.text = fmt.Sprintf(lang.L("Not added: %s"), why)
		return f
	}
	// The folder the picker would offer, read on the UI goroutine.
	dirc := make(chan string, 1)
	w.do(func() { dirc <- w.saveDir() })
	var dir string
	select {
	case dir = <-dirc:
	case <-w.ctx.Done():
		f.text = fmt.Sprintf(lang.L("Not added: %s"), why)
		return f
	}
	id, added, aerr := ua.AddUnread(w.ctx, src, dir, err)
	switch {
	case aerr != nil:
		f.text = fmt.Sprintf(lang.L("Not added: %s"), why)
		f.detail = strings.TrimSpace(detail + "\n" + aerr.Error())
		return f
	case !added:
		f.text = fmt.Sprintf(lang.L("Not added: %s"), why)
		return f
	}
	f.added = true
	var le *transport.LoginError
	if errors.As(err, &le) && !le.Proxy {
		host := ""
		if u, perr := url.Parse(src); perr == nil {
			host = u.Host
		}
		f.text = fmt.Sprintf(lang.L("Added; it waits for a login: %s asks for a user name and password."), host)
		f.login = true
	} else {
		f.text = fmt.Sprintf(lang.L("Added, and failed: %s Resume tries it again."), why)
	}
	w.do(func() { w.pendingSelect = id })
	w.poll.reloadSoon()
	return f
}

// inQueue asks the backend, when it can tell, whether source is in the
// queue already.
func (w *Window) inQueue(source string) (JobID, bool) {
	qf, ok := w.Backend.(QueueFinder)
	if !ok {
		return 0, false
	}
	return qf.InQueue(w.ctx, source)
}

// jobName is job id's name as the list shows it; it may be called from
// any goroutine.
func (w *Window) jobName(id JobID) string {
	if d, err := w.Backend.Detail(id, false); err == nil && d.Name != "" {
		return localName(d.Name)
	}
	return fmt.Sprintf(lang.L("job %d"), id)
}

// showFates shows what became of each link of several added at once: a
// line with the link, and under it a sentence (and its Details).
func (w *Window) showFates(fates []linkFate) {
	box := container.NewVBox()
	for _, f := range fates {
		link := widget.NewLabel(f.link)
		link.TextStyle = fyne.TextStyle{Bold: true}
		link.Truncation = fyne.TextTruncateEllipsis
		text := widget.NewLabel(f.text)
		text.Wrapping = fyne.TextWrapWord
		switch {
		case f.login:
			text.Importance = widget.WarningImportance
		case f.bad:
			text.Importance = widget.DangerImportance
		}
		row := container.NewVBox(link, text)
		if f.detail != "" {
			var details Details
			var redraw func()
			redraw = func() {
				row.Objects = []fyne.CanvasObject{link, text, details.detailToggle(f.detail, redraw)}
				row.Refresh()
			}
			redraw()
		}
		box.Add(row)
	}
	d := dialog.NewCustom(lang.L("Add URL"), lang.L("Close"), container.NewVScroll(box), w.Win)
	// Tall enough for three or four links without scrolling: the
	// sentences wrap, and a wrapped label asks for one line until laid
	// out.
	size := w.Win.Canvas().Size()
	d.Resize(fyne.NewSize(min(640, size.Width-40), min(max(float32(len(fates))*130+100, 240), size.Height-40)))
	w.keyed(d, d.Hide, d.Hide)
	d.Show()
}

// showInQueue selects job id, which source is already in the queue as,
// and says so. It runs on the UI goroutine.
func (w *Window) showInQueue(id JobID, name string) {
	w.pendingSelect = id
	w.poll.reloadSoon()
	d := dialog.NewInformation(lang.L("Already in the queue"), fmt.Sprintf(lang.L("Already in the queue: %s."), name), w.Win)
	w.keyed(d, d.Hide, d.Hide)
	d.Show()
}
