package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// model is the queue as the window holds it: the rows of the list, found
// by ID, and the totals of the status bar. It is owned by the UI goroutine.
type model struct {
	jobs  []Job
	index map[JobID]int
}

// Totals are what the status bar counts.
type Totals struct {
	Speed                                 float64 // bytes per second, all jobs
	Upload                                float64 // bytes per second sent to peers
	Running, Queued, Paused, Done, Failed int
	Waiting, Seeding                      int
	Mismatch                              int  // jobs with a checksum mismatch
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
}

// merge applies live progress to known rows and returns the indexes of the
// rows that changed. Jobs it does not know are ignored: a reload brings
// them.
func (m *model) merge(live []Job) (changed []int) {
	for _, j := range live {
		i, ok := m.index[j.ID]
		if !ok {
			continue
		}
		if m.jobs[i] != j {
			m.jobs[i] = j
			changed = append(changed, i)
		}
	}
	return changed
}

func (m *model) find(id JobID) (Job, bool) {
	i, ok := m.index[id]
	if !ok {
		return Job{}, false
	}
	return m.jobs[i], true
}

func (m *model) totals() Totals {
	var t Totals
	for _, j := range m.jobs {
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
		if j.Mismatch {
			t.Mismatch++
		}
		t.Live = t.Live || j.State.Live()
	}
	return t
}

// statusText is the status bar's line.
func (t Totals) statusText() string {
	var parts []string
	if s := speedText(t.Speed); s != "" {
		parts = append(parts, "↓ "+s)
	}
	if s := speedText(t.Upload); s != "" {
		parts = append(parts, "↑ "+s)
	}
	parts = append(parts, fmt.Sprintf("%s active", count(t.Running)), fmt.Sprintf("%s queued", count(t.Queued)))
	if t.Waiting > 0 {
		parts = append(parts, fmt.Sprintf("%s waiting", count(t.Waiting)))
	}
	if t.Seeding > 0 {
		parts = append(parts, fmt.Sprintf("%s seeding", count(t.Seeding)))
	}
	if t.Paused > 0 {
		parts = append(parts, fmt.Sprintf("%s paused", count(t.Paused)))
	}
	if t.Done > 0 {
		parts = append(parts, fmt.Sprintf("%s done", count(t.Done)))
	}
	if t.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%s failed", count(t.Failed)))
	}
	if t.Mismatch > 0 {
		parts = append(parts, fmt.Sprintf("%s checksum mismatch", count(t.Mismatch)))
	}
	return strings.Join(parts, "  ·  ")
}

// Queue list columns: icon, name, size, progress, speed, ETA, state.
var queueWidths = []float32{20, 0, 80, 150, 90, 70, 170}

func queueHeader() fyne.CanvasObject {
	return header(queueWidths, "", "Name", "Size", "Progress", "Speed", "ETA", "State")
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
	shown    Job    // what the row shows, to skip redundant updates
	iconName string // the icon's resource name
	fresh    bool
}

func newJobRow() fyne.CanvasObject {
	r := &jobRow{
		icon:     widget.NewIcon(nil),
		name:     cellLabel(fyne.TextAlignLeading),
		size:     cellLabel(fyne.TextAlignTrailing),
		progress: NewBar(),
		speed:    cellLabel(fyne.TextAlignTrailing),
		eta:      cellLabel(fyne.TextAlignTrailing),
		state:    newStyled(fyne.TextAlignLeading),
		fresh:    true,
	}
	r.content = container.New(&columns{widths: queueWidths},
		r.icon, r.name, r.size, r.progress, r.speed, r.eta, r.state)
	r.ExtendBaseWidget(r)
	return r
}

// show updates the row's widgets to j, touching only what changed: at 4 Hz
// over a screenful of rows, unchanged labels cost nothing.
func (r *jobRow) show(j Job) {
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
	if r.fresh || old.Size != j.Size {
		r.size.SetText(bytesText(j.Size))
	}
	r.progress.Set(j.Progress(), look.Color)
	if s := rowSpeed(j); r.fresh || s != rowSpeed(old) {
		r.speed.SetText(s)
	}
	if e := rowETA(j); r.fresh || e != rowETA(old) {
		r.eta.SetText(e)
	}
	r.shown, r.fresh = j, false
}

func rowSpeed(j Job) string {
	switch j.State {
	case Running:
		return speedText(j.Speed)
	case Seeding:
		if s := speedText(j.Upload); s != "" {
			return "↑ " + s
		}
	}
	return ""
}

func rowETA(j Job) string {
	if j.State != Running {
		return ""
	}
	return etaText(j.ETA)
}
