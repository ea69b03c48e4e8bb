package ui

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// rowTapped is a click on job id's row with the modifier mod held: it
// selects as clicked says and moves the list's own selection there. The
// keys that act on the selection reach the window without focusing the
// list, whose focus ring would stay on a row not clicked.
func (w *Window) rowTapped(id JobID, mod fyne.KeyModifier) { w.selectWith(id, mod) }

// rowDoubleTapped is a double click on job id's row: it selects the row
// alone and opens its file when the job is finished.
func (w *Window) rowDoubleTapped(id JobID) {
	w.rowTapped(id, 0)
	w.OpenSelectedFile()
}

// clicked handles the selection of job id with the modifier mod: a plain
// click selects it alone, Ctrl (Cmd on macOS) adds or takes it away,
// Shift selects the rows from the last plain click to it.
func (w *Window) clicked(id JobID, mod fyne.KeyModifier) {
	switch {
	case w.reselecting:
	case mod&(fyne.KeyModifierControl|fyne.KeyModifierSuper) != 0:
		if w.marked[id] && id != w.selected {
			delete(w.marked, id)
		} else {
			w.marked[id] = true
		}
	case mod&fyne.KeyModifierShift != 0 && w.anchor != 0:
		w.selectRange(w.anchor, id)
	default:
		clear(w.marked)
		w.marked[id] = true
		w.anchor = id
	}
	w.selectJob(id)
	w.List.Refresh()
}

// selectRange selects the rows from a to b, both included.
func (w *Window) selectRange(a, b JobID) {
	i, okA := w.model.rowOf(a)
	k, okB := w.model.rowOf(b)
	if !okA || !okB {
		return
	}
	clear(w.marked)
	for r := min(i, k); r <= max(i, k); r++ {
		if j, ok := w.model.row(r); ok {
			w.marked[j.ID] = true
		}
	}
}

// SelectAll selects every job the list shows.
func (w *Window) SelectAll() {
	for r := range w.model.length() {
		if j, ok := w.model.row(r); ok {
			w.marked[j.ID] = true
		}
	}
	if w.selected == 0 {
		if j, ok := w.model.row(0); ok {
			w.anchor = j.ID
			w.reselecting = true
			w.List.Select(0)
			w.reselecting = false
		}
	}
	w.List.Refresh()
	w.setToolbar()
}

// SelectJobs selects exactly ids, the first shown in the details pane,
// as Ctrl-clicks would. For tests and scripts.
func (w *Window) SelectJobs(ids ...JobID) {
	if len(ids) == 0 {
		return
	}
	w.Select(ids[0])
	for _, id := range ids[1:] {
		if _, ok := w.model.rowOf(id); ok {
			w.marked[id] = true
		}
	}
	w.List.Refresh()
	w.setToolbar()
}

// Selection is the selected jobs in queue order.
func (w *Window) Selection() []Job {
	var out []Job
	if len(w.marked) == 0 {
		if j, ok := w.model.find(w.selected); ok {
			out = append(out, j)
		}
		return out
	}
	if len(w.marked) > selectionScan {
		// Many marked (select all): the queue in its order, with no sort.
		for _, j := range w.model.jobs {
			if w.marked[j.ID] || j.ID == w.selected {
				out = append(out, j)
			}
		}
		return out
	}
	for id := range w.marked {
		if j, ok := w.model.find(id); ok {
			out = append(out, j)
		}
	}
	if j, ok := w.model.find(w.selected); ok && !w.marked[w.selected] {
		out = append(out, j)
	}
	slices.SortFunc(out, func(a, b Job) int { return w.model.index[a.ID] - w.model.index[b.ID] })
	return out
}

// selectionScan is how many marked jobs make Selection walk the whole
// queue rather than sort the marked ones: the toolbar asks at every
// click, and sorting 10,000 selected jobs by their place took a tenth of
// a second each time.
const selectionScan = 256

func (w *Window) setToolbar() {
	sel := w.Selection()
	enable := func(b *widget.Button, on bool) {
		if on {
			b.Enable()
		} else {
			b.Disable()
		}
	}
	pause, resume := false, false
	for _, j := range sel {
		pause = pause || j.State.Pausable()
		resume = resume || j.State.Resumable()
	}
	enable(w.Toolbar.Pause, pause)
	enable(w.Toolbar.Resume, resume)
	enable(w.Toolbar.Remove, len(sel) > 0)
	enable(w.Toolbar.OpenFolder, len(sel) > 0)
	w.setMenu(sel)
}

// each runs do on the selected jobs that match, off the UI goroutine.
func (w *Window) each(what string, match func(Job) bool, do func(JobID) error) {
	var ids []JobID
	for _, j := range w.Selection() {
		if match(j) {
			ids = append(ids, j.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	w.command(what, func() error {
		var errs []error
		for _, id := range ids {
			errs = append(errs, do(id))
		}
		return errors.Join(errs...)
	})
}

// PauseSelected pauses the selected jobs that run or wait.
func (w *Window) PauseSelected() {
	w.each(lang.L("Pause"), func(j Job) bool { return j.State.Pausable() }, w.Backend.Pause)
}

// ResumeSelected resumes the selected jobs that are paused or failed.
func (w *Window) ResumeSelected() {
	w.each(lang.L("Resume"), func(j Job) bool { return j.State.Resumable() }, w.Backend.Resume)
}

// StopSeedingSelected ends the seeding of the selected torrents that
// seed; they stay done.
func (w *Window) StopSeedingSelected() {
	s, ok := w.Backend.(Seeder)
	if !ok {
		return
	}
	w.each(lang.L("Stop seeding"), func(j Job) bool { return j.State == Seeding }, s.StopSeeding)
}

// TogglePause pauses the selection when any of it runs or waits, and
// resumes it otherwise: what Space does.
func (w *Window) TogglePause() {
	for _, j := range w.Selection() {
		if j.State.Pausable() {
			w.PauseSelected()
			return
		}
	}
	w.ResumeSelected()
}

// MoveSelected moves the selected jobs by delta places in the queue,
// keeping their order; a job that would pass the end stops there.
func (w *Window) MoveSelected(delta int) {
	order := make([]JobID, len(w.model.jobs))
	for i, j := range w.model.jobs {
		order[i] = j.ID
	}
	sel := w.Selection()
	if delta > 0 {
		slices.Reverse(sel)
	}
	type step struct {
		id JobID
		to int
	}
	var steps []step
	for _, j := range sel {
		i := slices.Index(order, j.ID)
		to := min(max(0, i+delta), len(order)-1)
		// A job never passes another selected job that moves the same way.
		for k := min(i, to); k <= max(i, to); k++ {
			if k != i && w.isSelected(order[k], sel) {
				if delta < 0 {
					to = max(to, k+1)
				} else {
					to = min(to, k-1)
				}
			}
		}
		if to == i {
			continue
		}
		order = slices.Delete(order, i, i+1)
		order = slices.Insert(order, to, j.ID)
		steps = append(steps, step{j.ID, to})
	}
	if len(steps) == 0 {
		return
	}
	w.command(lang.L("Move"), func() error {
		for _, s := range steps {
			if err := w.Backend.Move(s.id, s.to); err != nil {
				return err
			}
		}
		return nil
	})
}

func (w *Window) isSelected(id JobID, sel []Job) bool {
	return slices.ContainsFunc(sel, func(j Job) bool { return j.ID == id })
}

// dragRow shows where a drag of row r, dy pixels down so far, would put
// its job: a line over the list between the rows it lands between.
func (w *Window) dragRow(r *jobRow, dy float32) {
	if w.sort.on() {
		return // sorted by a column, the list is not the queue's order
	}
	rowHeight := r.Size().Height + theme.Padding()
	i, ok := w.model.rowOf(r.shown.ID)
	if !ok || rowHeight <= 0 {
		w.dropLine.Hide()
		return
	}
	delta := int(math.Round(float64(dy / rowHeight)))
	to := min(max(0, i+delta), w.model.length()-1)
	if to == i {
		w.dropLine.Hide()
		return
	}
	// Rows are all one height, a padding apart.
	y := float32(to)*rowHeight - w.List.GetScrollOffset() - theme.Padding()/2
	if to > i {
		y += rowHeight // below the row it passes
	}
	const thick = 3
	y = min(max(0, y-thick/2), w.List.Size().Height-thick)
	w.dropLine.FillColor = theme.Color(theme.ColorNamePrimary)
	w.dropLine.Resize(fyne.NewSize(w.List.Size().Width, thick))
	w.dropLine.Move(fyne.NewPos(0, y))
	w.dropLine.Show()
	w.dropLine.Refresh()
}

// dropRow moves the jobs by a drag of job id's row dy pixels down: the
// selection when the row is in it, else the row's job alone.
func (w *Window) dropRow(id JobID, dy, rowHeight float32) {
	w.dropLine.Hide()
	w.dropLine.Refresh()
	if rowHeight <= 0 || w.sort.on() {
		return
	}
	delta := int(math.Round(float64(dy / rowHeight)))
	if delta == 0 {
		return
	}
	if !w.marked[id] && id != w.selected {
		w.Select(id)
	}
	w.MoveSelected(delta)
}

// MoveSelectedUp, MoveSelectedDown, MoveSelectedTop and MoveSelectedBottom
// change the place of the selected jobs in the queue.
func (w *Window) MoveSelectedUp() { w.MoveSelected(-1) }

// MoveSelectedDown moves the selected jobs one place later.
func (w *Window) MoveSelectedDown() { w.MoveSelected(1) }

// MoveSelectedTop moves the selected jobs to the front of the queue.
func (w *Window) MoveSelectedTop() { w.MoveSelected(-len(w.model.jobs)) }

// MoveSelectedBottom moves the selected jobs to the end of the queue.
func (w *Window) MoveSelectedBottom() { w.MoveSelected(len(w.model.jobs)) }

// OpenSelectedFolder shows the folder of the selected job's first file.
func (w *Window) OpenSelectedFolder() {
	j, ok := w.model.find(w.selected)
	if !ok {
		return
	}
	dir := j.Dir
	if p, ok := w.firstFile(j); ok {
		dir = filepath.Dir(p)
	}
	open := w.opts.OpenFolder
	if open == nil {
		open = w.openURL
	}
	if err := open(dir); err != nil {
		w.showError(fmt.Errorf(lang.L("open %s: %w"), dir, err))
	}
}

// OpenSelectedFile opens the selected finished job's first file with the
// desktop's application for it.
func (w *Window) OpenSelectedFile() {
	j, ok := w.model.find(w.selected)
	if !ok || !finished(j) {
		return
	}
	p, ok := w.firstFile(j)
	if !ok {
		return
	}
	w.openFile(p) // openfail.go
}

// finished reports whether a job's files are complete on disk.
func finished(j Job) bool {
	return (j.State == Done || j.State == Seeding || j.State == Synced) && !j.Mismatch
}

// firstFile is the path of a job's first selected file.
func (w *Window) firstFile(j Job) (string, bool) {
	d, err := w.Backend.Detail(j.ID, false)
	if err != nil || len(d.Files) == 0 {
		return "", false
	}
	return filepath.Join(j.Dir, filepath.FromSlash(d.Files[0].Name)), true
}

func (w *Window) openURL(p string) error {
	return w.App.OpenURL(&url.URL{Scheme: "file", Path: filepath.ToSlash(p)})
}

// CopySourceURL puts the selected jobs' sources on the clipboard, one a
// line.
func (w *Window) CopySourceURL() {
	var text string
	for i, j := range w.Selection() {
		if i > 0 {
			text += "\n"
		}
		text += j.Source
	}
	if c := w.App.Clipboard(); c != nil && text != "" {
		c.SetContent(text)
	}
}

// PauseAll pauses every job that runs or waits.
func (w *Window) PauseAll() {
	w.forAll(func(j Job) bool { return j.State.Pausable() }, w.Backend.Pause)
}

// ResumeAll resumes every paused job.
func (w *Window) ResumeAll() {
	w.forAll(func(j Job) bool { return j.State == Paused }, w.Backend.Resume)
}

func (w *Window) forAll(match func(Job) bool, do func(JobID) error) {
	var ids []JobID
	for _, j := range w.model.jobs {
		if match(j) {
			ids = append(ids, j.ID)
		}
	}
	w.command(lang.L("Update the queue"), func() error {
		var errs []error
		for _, id := range ids {
			errs = append(errs, do(id))
		}
		return errors.Join(errs...)
	})
}

// showError shows err in a dialog that Enter and Escape close.
// It says the error in a sentence (Explain), its text behind "Details".
func (w *Window) showError(err error) {
	sentence, detail := Explain(err.Error())
	if detail == "" {
		d := dialog.NewError(err, w.Win)
		w.keyed(d, d.Hide, d.Hide)
		d.Show()
		return
	}
	msg := widget.NewLabel(sentence)
	msg.Wrapping = fyne.TextWrapWord
	var details Details
	box := container.NewVBox(msg)
	var redraw func()
	redraw = func() {
		box.Objects = []fyne.CanvasObject{msg, details.detailToggle(detail, redraw)}
		box.Refresh()
	}
	redraw()
	d := dialog.NewCustom(lang.L("Error"), lang.L("Close"), box, w.Win)
	d.Resize(fyne.NewSize(520, 0))
	w.keyed(d, d.Hide, d.Hide)
	d.Show()
}

// SyncAgainSelected brings the selected sync jobs up to date with their
// sources.
func (w *Window) SyncAgainSelected() {
	for _, j := range w.Selection() {
		if j.Sync && !j.State.Live() {
			w.syncAgain(j.ID)
		}
	}
}

func (w *Window) syncAgain(id JobID) {
	s, ok := w.Backend.(Syncer)
	if !ok {
		return
	}
	w.command(lang.L("Sync again"), func() error { return s.SyncAgain(id) })
}

// InOrderer is an optional power of a Backend: a download in order, whose
// files are fetched from the front so they can be watched or read while
// they arrive. It is kept with the job.
type InOrderer interface {
	// InOrder reports whether job id downloads in order.
	InOrder(id JobID) bool
	// SetInOrder sets whether job id downloads in order; a running job
	// follows when it next starts a file, or is paused and resumed.
	SetInOrder(id JobID, on bool) error
}

// inOrderItem is the row menu's "Download in order" check item for job
// id's row, checked when that job downloads in order; choosing it sets
// the opposite for every selected job. nil when the backend keeps no such
// choice, or for a folder kept in sync, which has no order.
func (w *Window) inOrderItem(id JobID) *fyne.MenuItem {
	o, ok := w.Backend.(InOrderer)
	if j, found := w.model.find(id); !ok || (found && j.Sync) {
		return nil
	}
	on := o.InOrder(id)
	it := fyne.NewMenuItem(lang.L("Download in order"), func() {
		w.each(lang.L("Download in order"), func(j Job) bool { return !j.Sync }, func(id JobID) error {
			return o.SetInOrder(id, !on)
		})
	})
	it.Checked = on
	return it
}

// withInOrder is the row menu's items with job id's "Download in order"
// (inOrderItem) after the actions on the job's run, before the first
// separator.
func (w *Window) withInOrder(items []*fyne.MenuItem, id JobID) []*fyne.MenuItem {
	i := slices.IndexFunc(items, func(it *fyne.MenuItem) bool { return it.IsSeparator })
	if i < 0 {
		i = len(items)
	}
	return withItem(items, i, w.inOrderItem(id))
}

// LiveOpener is an optional power of a Backend: a download's file opened
// while it arrives, with the application of its final name (a .part has
// none), to watch or read what is there so far.
type LiveOpener interface {
	// CanOpenLive reports whether job id's file can be opened before it
	// is done: a torrent that runs (the player's reads are fetched
	// first), or a download in order (its front is whole first).
	CanOpenLive(id JobID) bool
	// OpenLive opens job id's first file that is not done yet; the error
	// says in a sentence why it did not.
	OpenLive(id JobID) error
}

// liveOpenable reports whether job j is not finished and can be opened
// while it arrives: it runs, waits or is paused, and the backend says so.
func (w *Window) liveOpenable(j Job) bool {
	o, ok := w.Backend.(LiveOpener)
	if !ok || finished(j) || (j.State != Running && j.State != Waiting && j.State != Paused) {
		return false
	}
	return o.CanOpenLive(j.ID)
}

// openFromMenu is the menus' Open: the selected finished job's file, or
// the file of one that can be opened while it arrives (openLive). A
// double click and Enter open finished files only: a player should not
// start from a click meant to select a running download.
func (w *Window) openFromMenu() {
	if j, ok := w.model.find(w.selected); ok && w.openLive(j) {
		return
	}
	w.OpenSelectedFile()
}

// openLive opens job j's file while it arrives, off the UI goroutine, and
// says why when it cannot. It reports false, doing nothing, for a job
// that is not opened so (finished, or neither in order nor a torrent).
func (w *Window) openLive(j Job) bool {
	if !w.liveOpenable(j) {
		return false
	}
	o := w.Backend.(LiveOpener)
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		if err := o.OpenLive(j.ID); err != nil {
			w.do(func() {
				w.showError(fmt.Errorf(lang.L("Open while it downloads: %w"), err))
			})
		}
	}()
	return true
}
