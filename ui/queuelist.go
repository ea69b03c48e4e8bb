package ui

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2/lang"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// model is the queue as the window holds it: the rows of the list, found
// by ID, and the totals of the status bar. It is owned by the UI goroutine.
type model struct {
	jobs  []Job
	index map[JobID]int

	// The list shows the jobs that pass the filter in the sort order:
	// shown holds their indexes in jobs, pos their place in shown. With
	// no filter and queue order both are nil and the list shows jobs as
	// they are, at no cost.
	filter filter
	order  sortOrder
	shown  []int
	pos    map[JobID]int
}

// view reports whether the list shows shown rather than jobs as they are.
func (m *model) view() bool { return m.filter.on() || m.order.on() }

// filter is what the search box and the side panel ask for.
type filter struct {
	text string  // lower case; matched against name and source
	side sideKey // the side panel's entry (sidepanel.go); zero: All
}

func (f filter) on() bool { return f.text != "" || f.side != (sideKey{}) }

func (f filter) match(j Job) bool {
	if !f.side.match(j) {
		return false
	}
	if f.text == "" {
		return true
	}
	return strings.Contains(strings.ToLower(j.Name), f.text) || strings.Contains(strings.ToLower(j.Source), f.text)
}

// refilter recomputes which jobs the list shows.
func (m *model) refilter() {
	if !m.view() {
		m.shown, m.pos = nil, nil
		return
	}
	m.shown = m.shown[:0]
	for i, j := range m.jobs {
		if m.filter.match(j) {
			m.shown = append(m.shown, i)
		}
	}
	if m.order.on() {
		slices.SortFunc(m.shown, func(a, b int) int { return m.order.compare(m.jobs[a], m.jobs[b], a, b) })
	}
	m.pos = make(map[JobID]int, len(m.shown))
	for k, i := range m.shown {
		m.pos[m.jobs[i].ID] = k
	}
}

// length is the number of rows the list shows.
func (m *model) length() int {
	if m.shown == nil && !m.view() {
		return len(m.jobs)
	}
	return len(m.shown)
}

// row is the job the list shows at row i.
func (m *model) row(i int) (Job, bool) {
	if !m.view() {
		if i < 0 || i >= len(m.jobs) {
			return Job{}, false
		}
		return m.jobs[i], true
	}
	if i < 0 || i >= len(m.shown) {
		return Job{}, false
	}
	return m.jobs[m.shown[i]], true
}

// rowOf is the list row that shows job id.
func (m *model) rowOf(id JobID) (int, bool) {
	if !m.view() {
		i, ok := m.index[id]
		return i, ok
	}
	i, ok := m.pos[id]
	return i, ok
}

// Totals are what the status bar counts.
type Totals struct {
	Speed                                 float64 // bytes per second, all jobs
	Upload                                float64 // bytes per second sent to peers
	Running, Queued, Paused, Done, Failed int
	Waiting, Seeding                      int
	Mismatch                              int  // jobs whose row says "Checksum mismatch"
	Live                                  bool // something is queued, running or verifying
}

// load replaces the whole queue.
func (m *model) load(jobs []Job) {
	m.jobs = jobs
	if m.index == nil || len(m.index) > 2*len(jobs)+64 {
		m.index = make(map[JobID]int, len(jobs))
	} else {
		clear(m.index)
	}
	for i, j := range jobs {
		m.index[j.ID] = i
	}
	m.refilter()
}

// merge applies live progress to known rows and returns the list rows
// that changed, and whether a job left or joined the filter's rows (the
// whole list must be redrawn). Jobs it does not know are ignored: a
// reload brings them.
func (m *model) merge(live []Job) (changed []int, refiltered bool) {
	for _, j := range live {
		i, ok := m.index[j.ID]
		if !ok {
			continue
		}
		if m.jobs[i] == j {
			continue
		}
		old := m.jobs[i]
		m.jobs[i] = j
		if m.filter.on() && m.filter.match(old) != m.filter.match(j) || m.order.keyChanged(old, j) {
			refiltered = true
		}
		if r, ok := m.rowOf(j.ID); ok {
			changed = append(changed, r)
		}
	}
	if refiltered {
		m.refilter()
	}
	return changed, refiltered
}

func (m *model) find(id JobID) (Job, bool) {
	i, ok := m.index[id]
	if !ok {
		return Job{}, false
	}
	return m.jobs[i], true
}

// totals counts every job once: a job that stopped because its file did
// not match its checksum (its row says so, lookOf) is a checksum
// mismatch, not a failure as well, so the counts add up to the rows. One
// that runs again counts as running.
func (m *model) totals() Totals {
	var t Totals
	for _, j := range m.jobs {
		t.Live = t.Live || j.State.Live()
		if j.Mismatch && !j.State.Live() {
			t.Mismatch++
			continue
		}
		switch j.State {
		case Running, Verifying, FetchingMetadata, Repairing:
			t.Running++
			t.Speed += j.Speed
		case Waiting:
			t.Waiting++
		case Seeding:
			t.Seeding++
			t.Upload += j.Upload
		case Queued:
			t.Queued++
		case Paused:
			t.Paused++
		case Done, Synced:
			t.Done++
		case Failed:
			t.Failed++
		}
	}
	return t
}

// statusText is the status bar's line. No space follows an arrow: it
// would be drawn in the arrows' font, which has none (Theme.Font).
func (t Totals) statusText() string {
	var parts []string
	if s := speedText(t.Speed); s != "" {
		parts = append(parts, "↓"+s)
	}
	if s := speedText(t.Upload); s != "" {
		parts = append(parts, "↑"+s)
	}
	parts = append(parts, countL("%s active", t.Running), countL("%s queued", t.Queued))
	if t.Waiting > 0 {
		parts = append(parts, countL("%s waiting", t.Waiting))
	}
	if t.Seeding > 0 {
		parts = append(parts, countL("%s seeding", t.Seeding))
	}
	if t.Paused > 0 {
		parts = append(parts, countL("%s paused", t.Paused))
	}
	if t.Done > 0 {
		parts = append(parts, countL("%s done", t.Done))
	}
	if t.Failed > 0 {
		parts = append(parts, countL("%s failed", t.Failed))
	}
	if t.Mismatch > 0 {
		parts = append(parts, countL("%s checksum mismatch", t.Mismatch))
	}
	return strings.Join(parts, "  ·  ")
}

// jobRow is one row of the queue list; rows are reused as the list
// scrolls.
type jobRow struct {
	row
	icon     *widget.Icon
	name     *widget.Label
	size     *widget.Label
	progress *Bar
	speed    *widget.Label
	eta      *widget.Label
	state    *widget.RichText
	added    *widget.Label
	// cells lays the columns out; layout is the window's count of
	// column resizes when it last did, so a resize reaches every row.
	cells    *fyne.Container
	layout   int
	shown    Job    // what the row shows, to skip redundant updates
	iconName string // the icon's resource name
	fresh    bool
	// mark is the background of a row selected beside the list's own
	// selection.
	mark   *canvas.Rectangle
	marked bool
	// The row, not the list around it, receives the driver's clicks: it
	// takes mouse-down, right-click and drag, so Fyne hands every click
	// on it to the row. onTap hears a click with the modifier held as
	// the button went down (pressed), onDouble a double click.
	onTap    func(id JobID, mod fyne.KeyModifier)
	onDouble func(id JobID)
	pressed  fyne.KeyModifier
	// onDrag hears each step of a drag of the row and onDrop its end,
	// with the job and how far it went down (negative: up); dragged is
	// that distance so far.
	onDrag  func(r *jobRow, dy float32)
	onDrop  func(id JobID, dy, rowHeight float32)
	dragged float32
	// onMenu hears a right click on the row, where it happened.
	onMenu func(id JobID, at fyne.Position)
}

// Tapped is Fyne's hook; see fyne.Tappable.
func (r *jobRow) Tapped(*fyne.PointEvent) {
	if r.onTap != nil && r.shown.ID != 0 {
		r.onTap(r.shown.ID, r.pressed)
	}
}

// DoubleTapped is Fyne's hook; see fyne.DoubleTappable. The driver sends
// a double click here instead of two Tapped.
func (r *jobRow) DoubleTapped(*fyne.PointEvent) {
	if r.onDouble != nil && r.shown.ID != 0 {
		r.onDouble(r.shown.ID)
	}
}

// TappedSecondary is Fyne's hook; see fyne.SecondaryTappable.
func (r *jobRow) TappedSecondary(e *fyne.PointEvent) {
	if r.onMenu != nil && r.shown.ID != 0 {
		r.onMenu(r.shown.ID, e.AbsolutePosition)
	}
}

// Dragged is Fyne's hook; see fyne.Draggable. On the desktop the list
// scrolls with the wheel, so a drag is free to move jobs.
func (r *jobRow) Dragged(e *fyne.DragEvent) {
	r.dragged += e.Dragged.DY
	if r.onDrag != nil && r.shown.ID != 0 {
		r.onDrag(r, r.dragged)
	}
}

// DragEnd is Fyne's hook; see fyne.Draggable.
func (r *jobRow) DragEnd() {
	dy := r.dragged
	r.dragged = 0
	if r.onDrop != nil && r.shown.ID != 0 {
		r.onDrop(r.shown.ID, dy, r.Size().Height+theme.Padding())
	}
}

// MouseDown is Fyne's hook; see desktop.Mouseable.
func (r *jobRow) MouseDown(e *desktop.MouseEvent) { r.pressed = e.Modifier }

// MouseUp is Fyne's hook; see desktop.Mouseable.
func (r *jobRow) MouseUp(*desktop.MouseEvent) {}

// newJobRowIn is a row laid out by cols, which the list's rows and its
// header share: a column resized is resized in every row.
func newJobRowIn(cols *columns) fyne.CanvasObject {
	r := &jobRow{
		icon:     widget.NewIcon(nil),
		name:     cellLabel(fyne.TextAlignLeading),
		size:     cellLabel(fyne.TextAlignTrailing),
		progress: NewBar(),
		speed:    cellLabel(fyne.TextAlignTrailing),
		eta:      cellLabel(fyne.TextAlignTrailing),
		state:    newStyled(fyne.TextAlignLeading),
		added:    cellLabel(fyne.TextAlignLeading),
		fresh:    true,
		mark:     canvas.NewRectangle(theme.Color(theme.ColorNameSelection)),
	}
	r.mark.Hide()
	r.cells = container.New(cols, r.icon, r.name, r.size, r.progress, r.speed, r.eta, r.state, r.added)
	r.content = container.NewStack(r.mark, r.cells)
	r.ExtendBaseWidget(r)
	return r
}

// show updates the row's widgets to j, touching only what changed: at 4 Hz
// over a screenful of rows, unchanged labels cost nothing.
func (r *jobRow) show(j Job, marked bool) {
	if marked != r.marked {
		r.marked = marked
		r.mark.Hidden = !marked
		r.mark.FillColor = theme.Color(theme.ColorNameSelection)
		r.mark.Refresh()
	}
	old := r.shown
	look := lookOf(j)
	if r.fresh || r.iconName != look.Icon.Name() {
		r.icon.SetResource(look.Icon)
		r.iconName = look.Icon.Name()
	}
	setStyled(r.state, look.Text, look.Color)
	if r.fresh || old.Name != j.Name {
		r.name.SetText(j.Name)
	}
	if c := sizeCell(j); r.fresh || c != sizeCell(old) {
		r.size.SetText(c)
	}
	progress := j.Progress()
	if j.Size < 0 && j.State != Done && j.State != Synced {
		progress = -1 // no percentage of a size not known yet
	}
	r.progress.Set(progress, look.Color)
	if s := rowSpeed(j); r.fresh || s != rowSpeed(old) {
		r.speed.SetText(s)
	}
	if e := rowETA(j); r.fresh || e != rowETA(old) {
		r.eta.SetText(e)
	}
	if r.fresh || !j.Added.Equal(old.Added) {
		r.added.SetText(addedText(j.Added))
	}
	r.shown, r.fresh = j, false
}

// sizeCell is the size column: the size, or while it is not known the
// bytes so far.
func sizeCell(j Job) string {
	if j.Size < 0 && j.Done > 0 {
		return fmt.Sprintf(lang.L("%s so far"), bytesText(j.Done))
	}
	return bytesText(j.Size)
}

func rowSpeed(j Job) string {
	switch j.State {
	case Running:
		return limited(j, speedText(j.Speed))
	case Seeding:
		if s := speedText(j.Upload); s != "" {
			return "↑" + s
		}
		return ""
	}
	return limited(j, "")
}

func rowETA(j Job) string {
	if j.State != Running {
		return ""
	}
	return etaText(j.ETA)
}
