package ui

import (
	"cmp"
	"math"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The queue list's columns, in the order they show.
const (
	colIcon = iota
	colName
	colSize
	colProgress
	colSpeed
	colETA
	colState
	colAdded
	queueColumns
)

// defaultQueueWidths are the columns' widths before the user changes
// them; 0 is the name, which takes what the others leave.
var defaultQueueWidths = []float32{20, 0, 80, 130, 100, 60, 240, 110}

// minColumn is the narrowest a column can be dragged.
const minColumn = 36

// minName is the narrowest the name column is laid out or dragged: the
// other columns give up width first (columns.flexMin).
const minName = 120

// The preferences (Fyne's, in the user's config folder) that keep the
// queue's columns across restarts. The Backend's settings are the queue's
// and the engine's; how the window looks is the window's own.
const (
	prefSort   = "queue.sort"   // column number, negative: descending; 0: queue order
	prefWidths = "queue.widths" // widths, comma separated
)

// sortOrder is how the list orders the jobs: by a column, or (col 0) in
// queue order, the order they run in.
type sortOrder struct {
	col  int
	desc bool
}

func (s sortOrder) on() bool { return s.col != 0 }

// compare orders two jobs by the column, ties in queue order (by ia, ib,
// their places in the queue).
func (s sortOrder) compare(a, b Job, ia, ib int) int {
	c := 0
	switch s.col {
	case colName:
		c = cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	case colSize:
		c = cmp.Compare(a.Size, b.Size)
	case colProgress:
		c = cmp.Compare(a.Progress(), b.Progress())
	case colSpeed:
		c = cmp.Compare(a.Speed+a.Upload, b.Speed+b.Upload)
	case colETA:
		c = cmp.Compare(etaKey(a), etaKey(b))
	case colState:
		c = cmp.Compare(a.State.String(), b.State.String())
	case colAdded:
		c = a.Added.Compare(b.Added)
		if c == 0 {
			c = cmp.Compare(a.ID, b.ID) // IDs grow as jobs are added
		}
	}
	if s.desc {
		c = -c
	}
	if c == 0 {
		c = cmp.Compare(ia, ib)
	}
	return c
}

// etaKey puts jobs with no time left known after those with one.
func etaKey(j Job) time.Duration {
	if j.State != Running || j.ETA < 0 {
		return 1<<63 - 1
	}
	return j.ETA
}

// keyChanged reports whether a job's sort key changed from old to j.
func (s sortOrder) keyChanged(old, j Job) bool {
	return s.on() && s.compare(old, j, 0, 0) != 0
}

func (s sortOrder) String() string {
	if s.desc {
		return strconv.Itoa(-s.col)
	}
	return strconv.Itoa(s.col)
}

func parseSort(v string) sortOrder {
	n, err := strconv.Atoi(v)
	if err != nil || n == 0 || n >= queueColumns || n <= -queueColumns || n == colIcon {
		return sortOrder{}
	}
	if n < 0 {
		return sortOrder{col: -n, desc: true}
	}
	return sortOrder{col: n}
}

func widthsText(ws []float32) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = strconv.FormatFloat(float64(w), 'f', 0, 32)
	}
	return strings.Join(parts, ",")
}

// parseWidths reads widths kept by widthsText; anything else (an older
// set of columns) gives the defaults.
func parseWidths(v string) []float32 {
	out := append([]float32(nil), defaultQueueWidths...)
	parts := strings.Split(v, ",")
	if len(parts) != len(out) {
		return out
	}
	for i, p := range parts {
		f, err := strconv.ParseFloat(p, 32)
		if err != nil || math.IsNaN(f) || f < 0 || f > 2000 || (f == 0) != (defaultQueueWidths[i] == 0) {
			return append([]float32(nil), defaultQueueWidths...)
		}
		out[i] = max(float32(f), min(minColumn, defaultQueueWidths[i]))
	}
	return out
}

// addedText is the Added column: the time a job was added today, else
// the date, so that the column shows it whole at its width (the date
// and time together were cut: "2026-11-29 0…"). The whole of it is
// addedFull, in the cell's tooltip.
func addedText(t time.Time) string { return addedTextAt(t, time.Now()) }

func addedTextAt(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	t, now = t.Local(), now.Local()
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04")
	}
	return t.Format("2006-01-02")
}

// QueueHeader is the queue list's header: a click on a column's name
// sorts by it (again: the other way; a third time: back to queue order),
// and the handle at a column's right edge resizes it.
type QueueHeader struct {
	Cells   []*HeaderCell
	Content fyne.CanvasObject
	cols    *columns
	// row and edges are laid out again when a column is resized.
	row, edges *fyne.Container
	// OnSort hears a click on column col; OnResized the end of a
	// resize.
	OnSort    func(col int)
	OnResized func()
	onResize  func() // relayout the rows while a handle moves
}

func newQueueHeader(cols *columns) *QueueHeader {
	h := &QueueHeader{cols: cols}
	names := []string{"", lang.L("Name"), lang.L("Size"), lang.L("Progress"), lang.L("Speed"), lang.L("ETA"), lang.L("State"), lang.L("Added")}
	var cells, handles []fyne.CanvasObject
	for i, n := range names {
		c := newHeaderCell(n, i)
		if i != colIcon {
			c.onTap = func() {
				if h.OnSort != nil {
					h.OnSort(c.col)
				}
			}
		}
		h.Cells = append(h.Cells, c)
		cells = append(cells, c)
		if i < len(names)-1 && i != colIcon {
			handles = append(handles, h.newHandle(i))
		}
	}
	h.row = container.New(cols, cells...)
	h.edges = container.New(&edgeLayout{cols: cols, n: len(names)}, handles...)
	h.Content = container.NewVBox(container.NewStack(h.row, h.edges), widget.NewSeparator())
	return h
}

// show marks the column the list is sorted by.
func (h *QueueHeader) show(s sortOrder) {
	for _, c := range h.Cells {
		switch {
		case !s.on() || c.col != s.col:
			c.setArrow(nil)
		case s.desc:
			c.setArrow(theme.MenuDropDownIcon())
		default:
			c.setArrow(theme.MenuDropUpIcon())
		}
	}
}

// resize moves the edge between column col and the next by dx, as the
// mouse moves it: the column grows and the next shrinks as much (the
// name column, which takes what is left, grows by itself), neither
// below minColumn, and the name not below its minimum (columns.flexMin).
func (h *QueueHeader) resize(col int, dx float32) {
	ws := h.cols.widths
	next := col + 1
	if ws[col] > 0 {
		dx = max(dx, minColumn-ws[col])
	} else if width := h.row.Size().Width; width > 0 && dx < 0 {
		xs := h.cols.edges(len(ws), width)
		dx = max(dx, min(0, h.cols.flexMin-(xs[col+1]-xs[col]-theme.Padding())))
	}
	if next < len(ws) && ws[next] > 0 {
		dx = min(dx, ws[next]-minColumn)
	}
	if dx == 0 {
		return
	}
	if ws[col] > 0 {
		ws[col] += dx
	}
	if next < len(ws) && ws[next] > 0 {
		ws[next] -= dx
	}
	// A container lays itself out again on Refresh; one whose size did
	// not change is not laid out by its parent.
	h.row.Refresh()
	h.edges.Refresh()
	if h.onResize != nil {
		h.onResize()
	}
}

// HeaderCell is one column's name in the header, with the arrow of the
// sort order when the list is sorted by it.
type HeaderCell struct {
	widget.BaseWidget
	Label *widget.Label
	arrow *widget.Icon
	col   int
	onTap func()
}

func newHeaderCell(name string, col int) *HeaderCell {
	l := widget.NewLabelWithStyle(name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.SizeName = theme.SizeNameCaptionText
	l.Truncation = fyne.TextTruncateEllipsis
	if col == colSize || col == colSpeed || col == colETA {
		l.Alignment = fyne.TextAlignTrailing
	}
	c := &HeaderCell{Label: l, arrow: widget.NewIcon(nil), col: col}
	c.arrow.Hide()
	c.ExtendBaseWidget(c)
	return c
}

func (c *HeaderCell) setArrow(r fyne.Resource) {
	if r == nil {
		if c.arrow.Visible() {
			c.arrow.Hide()
		}
		return
	}
	c.arrow.SetResource(r)
	c.arrow.Show()
}

// Tapped is Fyne's hook; see fyne.Tappable.
func (c *HeaderCell) Tapped(*fyne.PointEvent) {
	if c.onTap != nil {
		c.onTap()
	}
}

// CreateRenderer is Fyne's hook; see fyne.Widget.
func (c *HeaderCell) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewBorder(nil, nil, nil, c.arrow, c.Label))
}

// edgeHandle is the grip at a column's right edge: dragged, it resizes
// the column; the mouse shows it can.
type edgeHandle struct {
	widget.BaseWidget
	line    *canvas.Rectangle
	onDrag  func(dx float32)
	onEnd   func()
	hovered bool
}

func (h *QueueHeader) newHandle(col int) *edgeHandle {
	e := &edgeHandle{line: canvas.NewRectangle(theme.Color(theme.ColorNameSeparator))}
	e.onDrag = func(dx float32) { h.resize(col, dx) }
	e.onEnd = func() {
		if h.OnResized != nil {
			h.OnResized()
		}
	}
	e.ExtendBaseWidget(e)
	return e
}

// Cursor is Fyne's hook; see desktop.Cursorable.
func (e *edgeHandle) Cursor() desktop.Cursor { return desktop.HResizeCursor }

// Dragged is Fyne's hook; see fyne.Draggable.
func (e *edgeHandle) Dragged(d *fyne.DragEvent) { e.onDrag(d.Dragged.DX) }

// DragEnd is Fyne's hook; see fyne.Draggable.
func (e *edgeHandle) DragEnd() { e.onEnd() }

// MouseIn is Fyne's hook; see desktop.Hoverable.
func (e *edgeHandle) MouseIn(*desktop.MouseEvent) { e.hover(true) }

// MouseMoved is Fyne's hook; see desktop.Hoverable.
func (e *edgeHandle) MouseMoved(*desktop.MouseEvent) {}

// MouseOut is Fyne's hook; see desktop.Hoverable.
func (e *edgeHandle) MouseOut() { e.hover(false) }

func (e *edgeHandle) hover(on bool) {
	e.hovered = on
	e.line.FillColor = theme.Color(theme.ColorNameSeparator)
	if on {
		e.line.FillColor = theme.Color(theme.ColorNamePrimary)
	}
	e.line.Refresh()
}

// CreateRenderer is Fyne's hook; see fyne.Widget.
func (e *edgeHandle) CreateRenderer() fyne.WidgetRenderer {
	return &edgeRenderer{WidgetRenderer: widget.NewSimpleRenderer(container.New(&centreLine{}, e.line)), e: e}
}

// edgeRenderer takes the line's colour from the theme again on each
// refresh, so a theme switched in Settings reaches it.
type edgeRenderer struct {
	fyne.WidgetRenderer
	e *edgeHandle
}

func (r *edgeRenderer) Refresh() {
	r.e.hover(r.e.hovered)
	r.WidgetRenderer.Refresh()
}

// centreLine draws its one object as a 1-pixel (2 when wide) line down the
// middle.
type centreLine struct{}

func (centreLine) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Resize(fyne.NewSize(2, size.Height*0.6))
		o.Move(fyne.NewPos((size.Width-2)/2, size.Height*0.2))
	}
}

func (centreLine) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(8, 8) }

// edgeLayout places the handles on the columns' right edges (every
// column's but the icon's and the last).
type edgeLayout struct {
	cols *columns
	n    int
}

func (l *edgeLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	xs := l.cols.edges(l.n, size.Width)
	const w = 8
	k := 0
	for i := 0; i < l.n-1 && k < len(objs); i++ {
		if i == colIcon {
			continue
		}
		right := xs[i+1] - theme.Padding()/2
		objs[k].Resize(fyne.NewSize(w, size.Height))
		objs[k].Move(fyne.NewPos(right-w/2, 0))
		k++
	}
}

func (l *edgeLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.Size{} }

// loadColumns reads the kept sort order and widths.
func (w *Window) loadColumns() {
	p := w.App.Preferences()
	w.sort = parseSort(p.StringWithFallback(prefSort, "0"))
	copy(w.cols.widths, parseWidths(p.String(prefWidths)))
}

// SortBy sorts the list by column col: a column not sorted by yet sorts
// ascending, then descending, then the list is back in queue order. The
// choice is kept across restarts.
func (w *Window) SortBy(col int) {
	switch {
	case w.sort.col != col:
		w.sort = sortOrder{col: col}
	case !w.sort.desc:
		w.sort.desc = true
	default:
		w.sort = sortOrder{}
	}
	w.App.Preferences().SetString(prefSort, w.sort.String())
	w.applySort()
}

// Sort is the list's order: the column (0: queue order) and whether it
// is descending.
func (w *Window) Sort() (col int, desc bool) { return w.sort.col, w.sort.desc }

func (w *Window) applySort() {
	w.model.order = w.sort
	w.model.refilter()
	w.Header.show(w.sort)
	w.List.Refresh()
	w.reselect()
}

// ColumnWidths are the queue's column widths now (0: the name, which
// takes the rest).
func (w *Window) ColumnWidths() []float32 { return append([]float32(nil), w.cols.widths...) }

// ResizeColumn moves column col's right edge by dx, as a drag of its
// handle does, and keeps the widths.
func (w *Window) ResizeColumn(col int, dx float32) {
	w.Header.resize(col, dx)
	w.saveWidths()
}

func (w *Window) saveWidths() {
	w.App.Preferences().SetString(prefWidths, widthsText(w.cols.widths))
}
