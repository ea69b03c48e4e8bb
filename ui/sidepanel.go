package ui

import (
	"image/color"
	"slices"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The side panel, left of the queue, is the list's filter by state and by
// category, each entry with its live count, as qBittorrent's, Free
// Download Manager's and Motrix's side bars are: a click (or Up and Down
// while it has the keyboard, after Tab) shows only that entry's jobs.

// stateGroup is a side panel entry of states.
type stateGroup int

// The state entries of the side panel, in its order.
const (
	groupAll stateGroup = iota
	groupDownloading
	groupWaiting
	groupQueued
	groupPaused
	groupDone
	groupFailed
	groupCategory // an entry of categories: sideKey.category names it
	groupHeading  // a heading, not an entry one can choose
	// groupConnection is an entry of Downloads run on (connections.go):
	// sideKey.category is its URL, "" for this computer. A click on it
	// offers to switch, it filters nothing.
	groupConnection
)

// stateGroups are the state entries, in the panel's order.
var stateGroups = []stateGroup{groupAll, groupDownloading, groupWaiting, groupQueued, groupPaused, groupDone, groupFailed}

// String is the entry's name, translated.
func (g stateGroup) String() string {
	switch g {
	case groupAll:
		return lang.L("All")
	case groupDownloading:
		return lang.L("Downloading")
	case groupWaiting:
		return lang.L("Waiting")
	case groupQueued:
		return lang.L("Queued")
	case groupPaused:
		return lang.L("Paused")
	case groupDone:
		return lang.L("Done")
	case groupFailed:
		return lang.L("Failed")
	}
	return lang.L("Categories")
}

// icon is the entry's icon.
func (g stateGroup) icon() fyne.Resource {
	switch g {
	case groupAll:
		return theme.ListIcon()
	case groupDownloading:
		return theme.DownloadIcon()
	case groupWaiting:
		return theme.MediaReplayIcon()
	case groupQueued:
		return theme.HistoryIcon()
	case groupPaused:
		return theme.MediaPauseIcon()
	case groupDone:
		return theme.ConfirmIcon()
	case groupFailed:
		return theme.ErrorIcon()
	case groupConnection:
		return theme.ComputerIcon()
	}
	return theme.FolderIcon()
}

// groupOf is the state entry a job in state s counts under: a job
// checking or fetching metadata is downloading, a seeding or synced one
// done.
func groupOf(s JobState) stateGroup {
	switch s {
	case Running, FetchingMetadata, Verifying, Repairing:
		return groupDownloading
	case Waiting:
		return groupWaiting
	case Queued:
		return groupQueued
	case Paused:
		return groupPaused
	case Done, Seeding, Synced:
		return groupDone
	case Failed:
		return groupFailed
	}
	return groupAll
}

// sideKey is what a side panel entry shows: the jobs of a state entry, or
// of a category. The zero key is All.
type sideKey struct {
	group    stateGroup
	category string
}

// match reports whether the entry shows j.
func (k sideKey) match(j Job) bool {
	switch k.group {
	case groupAll:
		return true
	case groupCategory:
		return j.Category == k.category
	}
	return groupOf(j.State) == k.group
}

// sideEntry is one line of the panel.
type sideEntry struct {
	key   sideKey
	label string
	count int
	mark  bool // the connection whose downloads the window shows
}

// SidePanel is the side panel's parts, exported for tests. It runs on
// the UI goroutine.
type SidePanel struct {
	// List shows the entries; it takes the keyboard after Tab.
	List *sideList
	// Content is the panel as laid out, a fixed width left of the queue.
	Content fyne.CanvasObject

	entries []sideEntry
	chosen  sideKey
	// cats are the categories the backend keeps, read once (and again
	// after Settings saved them); loaded says they were read.
	cats   []Category
	loaded bool
	// onChoose hears a choice of entry, by click or key.
	onChoose func(sideKey)
	// conns are the saved connections listed under Downloads run on,
	// shown the URL of the one the window drives ("" this computer),
	// and onConnection hears a click on another one.
	conns        []Connection
	shown        string
	onConnection func(url string)
}

// sidePanelWidth is the panel's width.
const sidePanelWidth = 180

// newSidePanel builds the panel with its state entries.
func newSidePanel(onChoose func(sideKey)) *SidePanel {
	p := &SidePanel{onChoose: onChoose}
	p.setEntries(map[sideKey]int{}, 0)
	p.List = newSideList(p)
	p.List.Select(0)
	width := canvas.NewRectangle(color.Transparent)
	width.SetMinSize(fyne.NewSize(sidePanelWidth, 0))
	p.Content = container.NewStack(width, p.List)
	return p
}

// setEntries lays out the entries with their counts; total is All's.
func (p *SidePanel) setEntries(counts map[sideKey]int, total int) bool {
	entries := make([]sideEntry, 0, len(stateGroups)+len(p.cats)+1)
	for _, g := range stateGroups {
		n := counts[sideKey{group: g}]
		if g == groupAll {
			n = total
		}
		entries = append(entries, sideEntry{key: sideKey{group: g}, label: g.String(), count: n})
	}
	if len(p.cats) > 0 {
		entries = append(entries, sideEntry{key: sideKey{group: groupHeading}, label: lang.L("Categories")})
		for _, c := range p.cats {
			k := sideKey{group: groupCategory, category: c.Name}
			entries = append(entries, sideEntry{key: k, label: categoryName(c.Name), count: counts[k]})
		}
	}
	if len(p.conns) > 0 {
		entries = append(entries, sideEntry{key: sideKey{group: groupHeading}, label: lang.L("Computers")},
			sideEntry{key: sideKey{group: groupConnection}, label: lang.L("This computer"), mark: p.shown == ""})
		for _, c := range p.conns {
			name := c.Name
			if name == "" {
				name = c.URL
			}
			entries = append(entries, sideEntry{key: sideKey{group: groupConnection, category: c.URL}, label: name, mark: p.shown == c.URL})
		}
	}
	if slices.Equal(entries, p.entries) {
		return false
	}
	p.entries = entries
	return true
}

// choose makes the entry at i the chosen one, as a click on it does; a
// heading is not chosen.
func (p *SidePanel) choose(i int) {
	if i < 0 || i >= len(p.entries) || p.entries[i].key.group == groupHeading {
		p.List.selectKey(p.chosen)
		return
	}
	if e := p.entries[i]; e.key.group == groupConnection {
		// The filter stays; the click offers the other downloads.
		p.List.selectKey(p.chosen)
		if !e.mark && p.onConnection != nil {
			p.onConnection(e.key.category)
		}
		return
	}
	if k := p.entries[i].key; k != p.chosen {
		p.chosen = k
		if p.onChoose != nil {
			p.onChoose(k)
		}
	}
}

// sideList is the panel's list: a click chooses an entry; with the
// keyboard Up and Down choose the entry above or below at once (the list
// follows as one goes), skipping headings.
type sideList struct {
	widget.List
	p *SidePanel
}

func newSideList(p *SidePanel) *sideList {
	l := &sideList{p: p}
	l.Length = func() int { return len(p.entries) }
	l.CreateItem = newSideRow
	l.UpdateItem = func(i widget.ListItemID, o fyne.CanvasObject) {
		if i < len(p.entries) {
			o.(*sideRow).show(p.entries[i])
		}
	}
	l.OnSelected = func(i widget.ListItemID) { p.choose(i) }
	l.HideSeparators = true
	l.ExtendBaseWidget(l)
	return l
}

// TypedKey is Fyne's hook; see fyne.Focusable.
func (l *sideList) TypedKey(e *fyne.KeyEvent) {
	step := 0
	switch e.Name {
	case fyne.KeyUp:
		step = -1
	case fyne.KeyDown:
		step = 1
	default:
		l.List.TypedKey(e)
		return
	}
	at := slices.IndexFunc(l.p.entries, func(s sideEntry) bool { return s.key == l.p.chosen })
	for i := at + step; i >= 0 && i < len(l.p.entries); i += step {
		// Connections are for a click: an arrow key passing one would
		// offer to switch.
		if g := l.p.entries[i].key.group; g != groupHeading && g != groupConnection {
			l.focusOn(i)
			l.Select(i)
			return
		}
	}
}

// focusOn moves the list's keyboard focus (the ring drawn while it has
// the keyboard, which Space selects) to entry i. The list keeps that
// place to itself; its own Up and Down move it, and Up stops at the top.
func (l *sideList) focusOn(i int) {
	for range l.p.entries {
		l.List.TypedKey(&fyne.KeyEvent{Name: fyne.KeyUp})
	}
	for range i {
		l.List.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	}
}

// selectKey moves the list's highlight to the entry k, without choosing.
func (l *sideList) selectKey(k sideKey) {
	if i := slices.IndexFunc(l.p.entries, func(s sideEntry) bool { return s.key == k }); i >= 0 {
		on := l.OnSelected
		l.OnSelected = nil
		l.Select(i)
		l.OnSelected = on
	}
}

// sideRow is one line of the panel: icon, name and count.
type sideRow struct {
	row
	icon  *widget.Icon
	label *widget.Label
	count *widget.Label
	shown sideEntry // what it shows, to skip redrawing the same
	fresh bool
}

func newSideRow() fyne.CanvasObject {
	r := &sideRow{icon: widget.NewIcon(nil), label: widget.NewLabel(""), count: widget.NewLabel(""), fresh: true}
	r.label.Truncation = fyne.TextTruncateEllipsis
	r.count.Alignment = fyne.TextAlignTrailing
	r.content = container.NewBorder(nil, nil, r.icon, r.count, r.label)
	r.ExtendBaseWidget(r)
	return r
}

// show makes the row show e, touching only what changed: the list
// refreshes its rows on every count's change.
func (r *sideRow) show(e sideEntry) {
	old := r.shown
	if r.fresh || old.key.group != e.key.group || old.mark != e.mark {
		var icon fyne.Resource
		if e.key.group != groupHeading {
			icon = e.key.group.icon()
		}
		if e.mark {
			icon = theme.NewColoredResource(theme.ConfirmIcon(), theme.ColorNamePrimary)
		}
		r.icon.SetResource(icon)
		r.label.TextStyle = fyne.TextStyle{Bold: e.key.group == groupHeading || e.mark}
		r.label.Refresh()
	}
	if r.fresh || old.label != e.label {
		r.label.SetText(e.label)
	}
	if r.fresh || old.count != e.count {
		count := ""
		if e.count > 0 {
			count = strconv.Itoa(e.count)
		}
		r.count.SetText(count)
	}
	r.shown, r.fresh = e, false
}

// withSidePanel puts the side panel left of the queue and its details,
// the whole height of the window, as qBittorrent's side bar.
func (w *Window) withSidePanel(queue fyne.CanvasObject) fyne.CanvasObject {
	return container.NewBorder(nil, nil, container.NewHBox(w.Side.Content, widget.NewSeparator()), nil, queue)
}

// showStateCounts counts the jobs of each entry of the side panel and
// shows the counts; the entry chosen stays chosen.
func (w *Window) showStateCounts() {
	p := w.Side
	counts := make(map[sideKey]int, len(p.entries))
	for _, j := range w.model.jobs {
		counts[sideKey{group: groupOf(j.State)}]++
		if j.Category != "" {
			counts[sideKey{group: groupCategory, category: j.Category}]++
		}
	}
	if p.setEntries(counts, len(w.model.jobs)) {
		p.List.Refresh()
		p.List.selectKey(p.chosen)
	}
}

// readCategoriesOnce reads the backend's categories for the side panel
// the first time the window reads the queue.
func (w *Window) readCategoriesOnce() {
	if !w.Side.loaded {
		w.loadCategories()
	}
}

// chooseSide shows the jobs of the side panel's entry k, as a click on it
// does.
func (w *Window) chooseSide(k sideKey) {
	if i := slices.IndexFunc(w.Side.entries, func(s sideEntry) bool { return s.key == k }); i >= 0 {
		w.Side.List.focusOn(i)
		w.Side.List.Select(i)
	}
}

// Count is the count the entry named label shows (as the panel names it,
// translated), and whether there is such an entry. For tests.
func (p *SidePanel) Count(label string) (int, bool) {
	for _, e := range p.entries {
		if e.label == label && e.key.group != groupHeading {
			return e.count, true
		}
	}
	return 0, false
}

// Choose chooses the entry named label, as a click on it does, and
// reports whether there is one.
func (p *SidePanel) Choose(label string) bool {
	for i, e := range p.entries {
		if e.label == label && e.key.group != groupHeading {
			p.List.focusOn(i)
			p.List.Select(i)
			return true
		}
	}
	return false
}

// RowJob is the job the list shows at row i, as filtered and sorted.
func (w *Window) RowJob(i int) (Job, bool) { return w.model.row(i) }
