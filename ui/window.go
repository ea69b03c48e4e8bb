package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"braid/engine/metalink"
	sourcekind "braid/engine/source"
)

// DefaultInterval is how often the window reads the backend while
// something downloads: 4 Hz is smooth for progress and cheap for the UI.
const DefaultInterval = 250 * time.Millisecond

// Options tune a Window. The zero value is the production setting.
type Options struct {
	// Interval is the ticker period; 0 means DefaultInterval.
	Interval time.Duration
	// OpenFolder shows a folder in the desktop's file manager; nil opens
	// a file:// URL with the app.
	OpenFolder func(dir string) error
	// OpenFile opens a finished file with the desktop's application for
	// it; nil opens a file:// URL with the app.
	OpenFile func(path string) error
	// Version and Licence are what Help → About says of the build;
	// the commit comes from the build's own record.
	Version, Licence string
	// Commit is the commit the program was built from ("" when the build
	// does not say), CommitModified whether the checkout had changes.
	Commit         string
	CommitModified bool
	// AutoStart adds sources opened with OpenSource as soon as they are
	// read, with the files the filters tick, without showing the picker
	// (for scripted runs such as the screenshot).
	AutoStart bool
	// Window, when set, is an open window this one takes over instead of
	// making its own: its content, menu and keys are replaced, its place
	// and size kept (the window switched to another computer's
	// downloads).
	Window fyne.Window
}

// Window is Braid's main window: a toolbar, the queue, a status bar and
// the details pane of the selected job. Its parts are exported so tests
// can reach them. Everything but Start, Stop and OpenSource's reading runs
// on the UI goroutine; the ticker reads the backend on its own goroutine
// and applies what it read with fyne.Do.
type Window struct {
	runningShown bool // the list was scrolled to the running job (inview.go)

	App     fyne.App
	Win     fyne.Window
	Backend Backend
	// Connections keeps where the downloads run (connections.go); nil:
	// only here.
	Connections ConnectionKeeper

	Toolbar *Toolbar
	// Search and the side panel (Side: states and categories) narrow
	// the list; Filters is the search box.
	Search  *Entry
	Side    *SidePanel
	Filters fyne.CanvasObject
	List    *JobList
	// Header is the list's header: click a column to sort, drag an edge
	// to resize.
	Header *QueueHeader
	Empty  fyne.CanvasObject // shown instead of the list when the queue is empty
	// Menu is the main menu: the menu bar on desktops that have one.
	Menu *fyne.MainMenu
	// Split divides the queue (above) from the details pane.
	Split   *container.Split
	Status  *widget.Label
	Problem *widget.Label // the last error reading the queue, in red
	Details *Details

	// Settings are the user's settings as last read or saved; Schedule
	// likewise.
	Settings Settings
	Schedule Schedule
	// Pickers are the metalink pickers open now, oldest first.
	Pickers []*Picker
	// SettingsForm is the settings dialog last opened, for tests.
	SettingsForm *SettingsForm
	whenDoneForm *WhenDoneForm // the "When done" dialog last opened, for tests

	opts     Options
	model    model
	selected JobID // the job the details pane shows, the last one clicked
	// marked are the selected jobs, selected among them; anchor is where
	// a Shift-click range starts.
	marked map[JobID]bool
	anchor JobID
	// dropLine shows where a dragged row will land, on a layer over
	// the list.
	dropLine *canvas.Rectangle
	// cols lays out the header and every row; sort is the list's order.
	cols *columns
	// geometryKept: the window took its kept size and split, and keeps
	// changes to them from now on (prefs.go).
	geometryKept bool
	// tips is the tooltip over the content (tooltip.go).
	tips     *tipLayer
	asked    fyne.Size // the size it was given at start
	restored time.Time // when
	sort     sortOrder
	// resizes counts column resizes; see jobRow.layout.
	resizes int
	// reselecting is set while the window moves the list's selection
	// itself, so OnSelected does not take it for a click.
	reselecting bool
	// dialogs are the open dialogs that answer Enter and Escape, newest
	// last.
	dialogs []*dialogKeys
	menu    menuItems
	// pendingSelect is a job just added, selected once the list has it.
	pendingSelect JobID
	seen          map[JobID]JobState // live jobs seen this session, for notifications
	logins        loginPrompts       // jobs asked about a login (login.go)
	poll          *poller
	tray          bool   // a system tray menu is set: closing hides the window
	swarmWake     func() // reads the shown Peers or Trackers tab now (peers.go)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // the ticker and command goroutines
	doMu   sync.Mutex     // see do
}

// Toolbar holds the toolbar's buttons.
type Toolbar struct {
	AddURL, Open, Pause, Resume, Remove, OpenFolder, Settings *widget.Button
	// AltSpeed switches the alternative speed limit on and off.
	AltSpeed *widget.Button
	Content  fyne.CanvasObject
}

// New builds the window over b. It shows nothing and reads nothing until
// Start.
func New(app fyne.App, b Backend, opts Options) *Window {
	LoadTranslations()
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	w := &Window{
		App:     app,
		Backend: b,
		opts:    opts,
		seen:    map[JobID]JobState{},
		marked:  map[JobID]bool{},
		poll:    newPoller(b),
	}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	w.applyThemeMode()
	if opts.Window != nil {
		w.Win = opts.Window
		clearOverlays(w.Win.Canvas())
	} else {
		w.Win = app.NewWindow("Braid")
	}
	setWindowOf(w.Win.Canvas(), w) // keys.go
	w.Win.SetIcon(AppIcon)
	w.buildToolbar()

	w.cols = &columns{widths: append([]float32(nil), defaultQueueWidths...), flexMin: minName}
	w.loadColumns()
	w.model.order = w.sort
	w.List = newJobList(w.model.length, func() fyne.CanvasObject {
		r := newJobRowIn(w.cols).(*jobRow)
		r.onTap = w.rowTapped
		r.onDouble = w.rowDoubleTapped
		r.onDrag = w.dragRow
		r.onDrop = w.dropRow
		r.onMenu = w.ShowRowMenu
		return r
	}, func(i widget.ListItemID, o fyne.CanvasObject) {
		r := o.(*jobRow)
		if r.layout != w.resizes {
			r.layout = w.resizes
			r.cells.Refresh()
		}
		if j, ok := w.model.row(i); ok {
			r.show(j, w.marked[j.ID] && j.ID != w.selected)
		}
	})
	w.List.OnSelected = func(i widget.ListItemID) {
		if j, ok := w.model.row(i); ok {
			w.clicked(j.ID, 0)
		}
	}
	w.List.OnUnselected = func(widget.ListItemID) {}
	w.List.onKey = w.listKey
	w.buildFilters()

	icon := widget.NewIcon(theme.NewDisabledResource(theme.DownloadIcon()))
	w.Empty = container.NewCenter(container.NewVBox(
		container.NewCenter(container.NewGridWrap(fyne.NewSize(48, 48), icon)),
		container.NewCenter(newHint(lang.L("Drop a .meta4, .metalink or .torrent file, or a link, anywhere here."))),
		container.NewCenter(newHint(lang.L("Or use Add URL (Ctrl+N) or Open (Ctrl+O).")))))

	w.Status = widget.NewLabel("")
	w.Status.SizeName = theme.SizeNameCaptionText
	w.Problem = widget.NewLabel("")
	w.Problem.SizeName = theme.SizeNameCaptionText
	w.Problem.Importance = widget.DangerImportance
	w.Problem.Truncation = fyne.TextTruncateEllipsis

	w.Details = NewDetails()
	w.Details.OnVerify = func(id JobID) { w.command(lang.L("Verify"), func() error { return b.Verify(id) }) }
	w.Details.OnRepair = func(id JobID) { w.command(lang.L("Repair"), func() error { return b.Repair(id) }) }
	w.Details.OnImportKey = w.ImportKeyDialog
	w.Details.OnSyncAgain = func(id JobID) { w.syncAgain(id) }
	w.addJobLimitButton() // joblimit.go
	w.hookJobActions()
	w.Details.OnTab = func() {
		w.poll.pieces.Store(w.Details.NeedsPieces())
		w.poll.refreshDetail()
		if w.swarmWake != nil {
			w.swarmWake()
		}
	}

	w.dropLine = canvas.NewRectangle(theme.Color(theme.ColorNamePrimary))
	w.dropLine.Hide()
	w.Header = newQueueHeader(w.cols)
	w.Header.OnSort = w.SortBy
	w.Header.OnResized = w.saveWidths
	w.Header.onResize = func() {
		w.resizes++
		w.List.Refresh()
	}
	w.Header.show(w.sort)
	queue := container.NewBorder(container.NewVBox(w.Filters, w.Header.Content), nil, nil, nil,
		container.NewStack(w.List, w.Empty, container.NewWithoutLayout(w.dropLine)))
	// The layouts around the queue and the whole content hear the split
	// moved and the window resized, and keep them (prefs.go).
	split := container.NewVSplit(container.New(&watchLayout{seen: w.keepSplit}, queue), container.NewPadded(w.Details.Content))
	split.Offset = 0.45
	w.Split = split
	// The problem takes the width the status line leaves: at the edge of
	// a border a truncated label is as narrow as its ellipsis, and every
	// problem showed as a red "…".
	w.Problem.Alignment = fyne.TextAlignTrailing
	status := container.NewBorder(nil, nil, w.Status, nil, w.Problem)
	w.tips = newTipLayer()
	w.Win.SetContent(container.New(&watchLayout{seen: w.keepSize}, container.NewBorder(
		container.NewVBox(w.Toolbar.Content, widget.NewSeparator()),
		container.NewVBox(widget.NewSeparator(), status),
		nil, nil, w.withSidePanel(split)), w.tips.Layer))
	if opts.Window != nil {
		w.keepGeometry() // prefs.go: as the window is
	} else {
		w.restoreGeometry() // prefs.go: 1100×720 at first
	}
	w.Win.SetOnDropped(w.dropped)
	w.addShortcuts()
	w.buildMenu()
	w.Win.SetCloseIntercept(w.closeRequested)
	w.showModel()
	return w
}

func (w *Window) buildToolbar() {
	b := func(label string, icon fyne.Resource, f func()) *widget.Button {
		btn := widget.NewButtonWithIcon(label, icon, f)
		btn.Importance = widget.LowImportance
		return btn
	}
	t := &Toolbar{
		AddURL:     b(lang.L("Add URL"), theme.ContentAddIcon(), w.AskURL),
		Open:       b(lang.L("Open"), theme.FolderOpenIcon(), w.AskFile),
		Pause:      b(lang.L("Pause"), theme.MediaPauseIcon(), w.PauseSelected),
		Resume:     b(lang.L("Resume"), theme.MediaPlayIcon(), w.ResumeSelected),
		Remove:     b(lang.L("Remove"), theme.DeleteIcon(), w.RemoveSelected),
		OpenFolder: b(lang.L("Show in folder"), theme.FolderIcon(), w.OpenSelectedFolder),
		AltSpeed:   b(lang.L("Slow"), theme.MediaFastForwardIcon(), w.ToggleAltSpeed),
		Settings:   b(lang.L("Settings"), theme.SettingsIcon(), w.ShowSettings),
	}
	t.AddURL.Importance = widget.HighImportance
	t.Content = container.NewHBox(t.AddURL, t.Open, widget.NewSeparator(),
		t.Pause, t.Resume, t.Remove, widget.NewSeparator(), t.OpenFolder, layout.NewSpacer(), t.AltSpeed, t.Settings)
	w.Toolbar = t
}

// Start reads the settings, shows the window and starts the ticker. The
// ticker runs until Stop.
func (w *Window) Start() {
	if s, err := w.Backend.Settings(); err == nil {
		w.Settings = s
	} else {
		w.showProblem(fmt.Errorf(lang.L("read settings: %w"), err))
	}
	w.loadSchedule()
	w.watchSwarm() // peers.go
	w.Win.Show()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.poll.loop(w.ctx, w.opts.Interval, func(r reading) { w.do(func() { w.apply(r) }) })
	}()
}

// Stop ends the ticker and waits for it and for commands under way.
func (w *Window) Stop() {
	w.cancel()
	w.wg.Wait()
	if windowOf(w.Win.Canvas()) == w { // not one that took the window over
		setWindowOf(w.Win.Canvas(), nil)
	}
}

// clearOverlays closes the dialogs and menus open on c, whose window
// another Window takes over.
func clearOverlays(c fyne.Canvas) {
	for o := c.Overlays().Top(); o != nil; o = c.Overlays().Top() {
		c.Overlays().Remove(o)
	}
}

// Tick reads the backend and applies what it read, on the calling
// goroutine: what one tick of the ticker does, for tests and benchmarks.
func (w *Window) Tick() { w.apply(w.poll.read()) }

// Settle waits for commands under way, then ticks once: after it, the
// window shows what the commands did. For tests.
func (w *Window) Settle() {
	w.wg.Wait()
	w.Tick()
}

// apply shows one reading. It runs on the UI goroutine.
func (w *Window) apply(r reading) {
	localNames(r.all)
	localNames(r.live)
	if r.detail != nil {
		r.detail.Job.Name = localName(r.detail.Job.Name)
	}
	if r.err != nil {
		w.showProblem(r.err)
	} else if r.reloaded {
		w.Problem.SetText("")
	}
	// A backend that cannot read its queue may still give the rows it
	// knows, each saying so (state Unknown): they replace stale ones.
	if r.reloaded && (r.err == nil || r.all != nil) {
		w.askLogins(r.all)
		w.notifyTransitions(r.all)
		w.model.load(r.all)
		w.List.Refresh()
		w.reselect()
		w.readCategoriesOnce()
	}
	changed, refiltered := w.model.merge(r.live)
	if refiltered {
		w.List.Refresh()
		w.reselect()
	} else {
		for _, i := range changed {
			w.List.RefreshItem(i)
		}
	}
	for _, j := range r.live {
		w.seen[j.ID] = j.State
	}
	if w.pendingSelect != 0 {
		if _, ok := w.model.rowOf(w.pendingSelect); ok {
			w.Select(w.pendingSelect)
			w.pendingSelect = 0
		}
	}
	w.showModel()
	w.showRunningOnce()
	if r.detail != nil && r.detail.ID == w.selected {
		w.Details.Show(*r.detail)
	}
}

// showModel updates what depends on the whole queue: the empty hint, the
// status bar and the toolbar.
func (w *Window) showModel() {
	w.showStateCounts()
	if len(w.model.jobs) == 0 {
		w.Empty.Show()
	} else {
		w.Empty.Hide()
	}
	s := w.model.totals().statusText()
	if st := w.scheduleText(); st != "" {
		s += "  ·  " + st
	}
	if s != w.Status.Text {
		w.Status.SetText(s)
	}
	w.setToolbar()
}

func (w *Window) showProblem(err error) {
	sentence, _ := Explain(err.Error())
	w.Problem.SetText(sentence)
}

// selectJob makes id the job the details pane and the toolbar act on.
func (w *Window) selectJob(id JobID) {
	if id == w.selected {
		return
	}
	w.selected = id
	w.poll.selected.Store(int64(id))
	w.poll.pieces.Store(w.Details.NeedsPieces())
	if j, ok := w.model.find(id); ok {
		// Show the row at once; the full detail follows on the ticker.
		w.Details.Show(Detail{Job: j})
	}
	w.poll.refreshDetail()
	w.setToolbar()
}

// Select selects the job with the given ID in the list, alone, as a
// plain click does.
func (w *Window) Select(id JobID) { w.selectWith(id, 0) }

// selectWith selects job id as a click with the modifier mod does and
// moves the list's own selection (its highlight) to its row.
func (w *Window) selectWith(id JobID, mod fyne.KeyModifier) bool {
	i, ok := w.model.rowOf(id)
	if !ok {
		return false
	}
	w.clicked(id, mod)
	w.reselecting = true
	w.List.Select(i)
	w.reselecting = false
	return true
}

// Selected is the selected job's ID, 0 when none.
func (w *Window) Selected() JobID { return w.selected }

// Jobs is the queue as the window shows it.
func (w *Window) Jobs() []Job { return w.model.jobs }

// reselect keeps the selection on the same jobs after the rows moved;
// jobs removed or hidden by the filter leave it.
func (w *Window) reselect() {
	for id := range w.marked {
		if _, ok := w.model.rowOf(id); !ok {
			delete(w.marked, id)
		}
	}
	if w.selected == 0 {
		return
	}
	i, ok := w.model.rowOf(w.selected)
	if !ok {
		w.selected = 0
		w.poll.selected.Store(0)
		w.List.UnselectAll()
		w.Details.Clear()
		w.setToolbar()
		return
	}
	// The list calls OnSelected when the row moved; that is not a click
	// and must keep the other selected jobs.
	w.reselecting = true
	w.List.Select(i)
	w.reselecting = false
}

// do runs f on the UI goroutine with fyne.Do. The lock makes the
// one-at-a-time promise explicit for drivers whose fyne.Do runs f at once
// on the caller's goroutine (Fyne's test driver); on the desktop it is
// never contended.
//
// Once the window has stopped (Quit, Stop) f is dropped: after the app's
// loop ends, Fyne runs f at once on the caller's goroutine, beside the
// shutdown, and a window another took over must not draw on the canvas
// it gave up. Callers that wait for f also wait on w.ctx.
func (w *Window) do(f func()) {
	fyne.Do(func() {
		if w.ctx.Err() != nil {
			return
		}
		w.doMu.Lock()
		defer w.doMu.Unlock()
		f()
	})
}

// Locked runs f at once holding the lock do holds, as the UI goroutine
// would: for tests on Fyne's test driver, whose fyne.Do runs on the
// caller, so a test's clicks and typing do not race the window's own
// updates.
func (w *Window) Locked(f func()) {
	w.doMu.Lock()
	defer w.doMu.Unlock()
	f()
}

// command runs a backend call off the UI goroutine, shows its error, and
// makes the ticker read the queue again.
func (w *Window) command(what string, f func() error) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		err := f()
		if err != nil {
			w.do(func() { w.showError(fmt.Errorf(lang.L("%s: %w"), what, err)) })
		}
		w.poll.reloadSoon()
	}()
}

// AskURL asks for links, one a line, offering those on the clipboard,
// and opens them in their order. Enter adds, Shift+Enter starts a new
// line, Escape cancels.
func (w *Window) AskURL() {
	e := NewLinesEntry(4)
	e.SetPlaceHolder(lang.L("https://example.org/file.iso or a .meta4 link\nOne link a line: Shift+Enter starts a new line"))
	if c := w.App.Clipboard(); c != nil {
		if links := urlLines(c.Content()); len(links) > 0 && len(links) == len(nonEmptyLines(c.Content())) {
			e.SetText(strings.Join(links, "\n"))
		}
	}
	w.askText(lang.L("Add URL"), lang.L("Links"), lang.L("Add"), e, func(text string) {
		w.OpenSources(nonEmptyLines(text))
	})
}

// nonEmptyLines are text's lines, trimmed, blank ones left out.
func nonEmptyLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// urlLines are the lines of text that are links.
func urlLines(text string) []string {
	var out []string
	for _, l := range nonEmptyLines(text) {
		if sourcekind.Of(l).IsURL() {
			out = append(out, l)
		}
	}
	return out
}

// askText shows a one-entry form dialog; Enter or the ok button hands
// the entry's trimmed text, when not empty, to got, and Escape cancels.
func (w *Window) askText(title, label, ok string, e *Entry, got func(string)) {
	items := []*widget.FormItem{widget.NewFormItem(label, e)}
	d := dialog.NewForm(title, ok, lang.L("Cancel"), items, func(ok bool) {
		if text := strings.TrimSpace(e.Text); ok && text != "" {
			got(text)
		}
	}, w.Win)
	e.OnSubmitted = func(string) { d.Submit() }
	e.OnEscape = d.Hide
	w.keyed(d, d.Submit, d.Hide)
	d.Resize(fyne.NewSize(560, d.MinSize().Height))
	d.Show()
	w.Win.Canvas().Focus(e)
}

// AskFile asks for a .meta4, .metalink or .torrent file and opens it.
func (w *Window) AskFile() {
	w.chooseFile(lang.L("Open a file"), []string{".meta4", ".metalink", ".torrent", ".xml"}, w.OpenSource)
}

// OpenSource reads source off the UI goroutine and then shows the picker
// for it (or, for a plain link to one file, adds it at once); a source in
// the queue already selects its job instead and says so. It may be called
// from any goroutine.
func (w *Window) OpenSource(source string) { w.open(source, false) }

// open reads source and offers it; with pick the picker shows even for
// a plain link. A magnet link's files are known only once its metadata
// came from peers, which may take long or never happen: meanwhile a
// dialog says so, and its Cancel ends the open.
func (w *Window) open(source string, pick bool) {
	ctx, cancel := context.WithCancel(w.ctx)
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer cancel()
		if id, ok := w.inQueue(source); ok { // addlinks.go
			name := w.jobName(id)
			w.do(func() { w.showInQueue(id, name) })
			return
		}
		var fetching dialog.Dialog // only touched on the UI goroutine
		if name, ok := magnetName(source); ok {
			w.do(func() { fetching = w.showFetching(name, cancel) })
		}
		doc, err := w.Backend.Open(ctx, source)
		if err != nil && ctx.Err() == nil && !w.canAskLogin(source, err) {
			// Add first, reach later: a plain link that fails is listed,
			// failed with its reason, as it is among several links.
			if f := w.unread(source, err); f.added {
				w.do(func() {
					if fetching != nil {
						fetching.Hide()
					}
					w.showFates([]linkFate{f})
				})
				return
			}
		}
		w.do(func() {
			if fetching != nil {
				fetching.Hide()
			}
			if err != nil {
				if ctx.Err() != nil && errors.Is(err, context.Canceled) {
					return // the user canceled, or the window closes
				}
				if !w.askOpenLogin(source, pick, err) { // login.go
					if !strings.Contains(err.Error(), source) {
						err = fmt.Errorf(lang.L("open %s: %w"), source, err)
					}
					w.showError(err)
				}
				return
			}
			w.offer(source, doc, pick)
		})
	}()
}

// showFetching shows that a magnet link's metadata is being fetched; its
// Cancel (or Escape) calls cancel. The caller hides it when the open
// ends.
func (w *Window) showFetching(name string, cancel func()) dialog.Dialog {
	msg := widget.NewLabel(fmt.Sprintf(lang.L("Fetching metadata for %s…"), name))
	msg.Wrapping = fyne.TextWrapWord
	var d *dialog.CustomDialog
	stop := func() {
		cancel()
		d.Hide()
	}
	// The bar's animation runs until the bar is stopped, seen or not.
	bar := widget.NewProgressBarInfinite()
	d = dialog.NewCustomWithoutButtons(lang.L("Fetching metadata"), container.NewVBox(msg, bar), w.Win)
	d.SetButtons([]fyne.CanvasObject{widget.NewButton(lang.L("Cancel"), stop)})
	w.keyed(d, nil, stop)
	d.SetOnClosed(bar.Stop) // after keyed's: Fyne calls both
	d.Resize(fyne.NewSize(480, d.MinSize().Height))
	d.Show()
	return d
}

// magnetName is what the window calls a magnet link while its metadata
// is fetched: its display name (dn), else its info hash; false for a
// source that is not a magnet link.
func magnetName(source string) (string, bool) {
	if sourcekind.Of(source).Kind() != sourcekind.Magnet {
		return "", false
	}
	_, query, _ := strings.Cut(source, "?")
	hash := ""
	for _, kv := range strings.Split(query, "&") {
		if v, ok := strings.CutPrefix(kv, "dn="); ok {
			if dn, err := url.QueryUnescape(v); err == nil && strings.TrimSpace(dn) != "" {
				return strings.TrimSpace(dn), true
			}
		}
		if v, ok := strings.CutPrefix(strings.ToLower(kv), "xt=urn:btih:"); ok && v != "" {
			hash = v
		}
	}
	if hash != "" {
		return hash, true
	}
	return source, true
}

// offer shows the picker for doc, or adds it directly when there is
// nothing to pick and pick is false.
func (w *Window) offer(source string, doc *metalink.Document, pick bool) {
	if req, ok := w.offerDirect(source, doc, pick); ok {
		w.add(req)
	}
}

// offerDirect is offer for a caller that adds itself: it returns the
// request to add at once, or shows the picker and returns false.
func (w *Window) offerDirect(source string, doc *metalink.Document, pick bool) (AddRequest, bool) {
	syncer, ok := w.Backend.(Syncer)
	sync := ok && syncer.SyncDocument(doc)
	s := w.Settings
	s.Dir = w.saveDir()
	p := newPicker(source, doc, s, w.Win, sync)
	_, reads := w.Backend.(ArchiveReader)
	inside := reads && !sync && IsArchiveDoc(doc) // a ZIP: its files can be chosen
	if w.opts.AutoStart || (!sync && !pick && !inside && sourcekind.Of(source).Kind() == sourcekind.Link && len(doc.Files) == 1 && len(doc.Rejected) == 0) {
		return p.Request(false), true
	}
	w.showPicker(lang.L("Add downloads"), p, func(done func()) { w.offerInside(p, done) }) // pickerinside.go
	return AddRequest{}, false
}

// showPicker shows picker p in a dialog titled title, listed in Pickers
// while it shows, until the user adds what it offers or cancels. with,
// when set, is given the func that closes the dialog before it shows.
func (w *Window) showPicker(title string, p *Picker, with func(done func())) {
	d := dialog.NewCustomWithoutButtons(title, p.Content, w.Win)
	done := func() {
		d.Hide()
		if i := slices.Index(w.Pickers, p); i >= 0 {
			w.Pickers = slices.Delete(w.Pickers, i, i+1)
		}
	}
	p.OnAdd = func(req AddRequest) {
		done()
		w.rememberDir(req.Dir)
		w.add(req)
	}
	p.OnCancel = done
	if with != nil {
		with(done)
	}
	w.keyed(d, p.Accept, p.OnCancel)
	w.Pickers = append(w.Pickers, p)
	size := w.Win.Canvas().Size()
	d.Resize(fyne.NewSize(min(780, size.Width-40), min(680, size.Height-40)))
	d.Show()
}

func (w *Window) add(req AddRequest) {
	if req.Dir == "" {
		req.Dir = w.Settings.Dir
	}
	w.command(fmt.Sprintf(lang.L("Add %s"), req.Source), func() error {
		id, err := w.Backend.Add(w.ctx, req)
		var dup *InQueueError
		if errors.As(err, &dup) {
			name := w.jobName(dup.ID)
			w.do(func() { w.showInQueue(dup.ID, name) })
			return nil
		}
		if err == nil {
			w.do(func() { w.pendingSelect = id })
		}
		return err
	})
}

// dropped opens what was dropped on the window: metalink, torrent and
// ResourceSync files, and links, each in a picker, so a drop of several
// never starts anything unseen.
func (w *Window) dropped(_ fyne.Position, uris []fyne.URI) {
	for _, u := range uris {
		if src, ok := droppedSource(u); ok {
			w.open(src, true)
		}
	}
}

// droppedSource turns a dropped URI into a source: a path of a .meta4,
// .metalink or .torrent file, or a link. The desktop hands a dropped link
// to Fyne as if it were a file name, which Fyne makes absolute: a link to
// https://host/a.iso arrives as file:///cwd/https:/host/a.iso.
func droppedSource(u fyne.URI) (string, bool) {
	if u == nil {
		return "", false
	}
	if u.Scheme() != "file" {
		s := u.String()
		return s, sourcekind.Of(s).IsURL()
	}
	p := u.Path()
	if i := strings.Index(p, "magnet:?"); i >= 0 {
		return p[i:], true
	}
	for _, scheme := range []string{"https", "http", "ftp"} {
		if i := strings.Index(p, "/"+scheme+":/"); i >= 0 {
			link := scheme + "://" + strings.TrimLeft(p[i+len(scheme)+2:], "/")
			return link, sourcekind.Of(link).IsURL()
		}
	}
	// .xml: a ResourceSync resource list or sitemap, read like a metalink;
	// the reader says so if it is not one.
	if s := sourcekind.Of(p); s.Kind() == sourcekind.Metalink || s.Kind() == sourcekind.Torrent || s.Ext() == ".xml" {
		return p, true
	}
	return "", false
}
