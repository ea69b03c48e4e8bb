package ui

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"
)

// DataRemover is a Backend that can delete a job's downloaded data as it
// takes the job out of the queue: the remove dialog then offers to.
type DataRemover interface {
	// RemoveWithData removes job id as Remove does and deletes its
	// unfinished (.part) data and the finished files it wrote, never a
	// file that was there before it; deleted are the paths that went.
	RemoveWithData(id JobID) (deleted []string, err error)
}

// ManyRemover is a Backend that removes many jobs at once, as Remove does
// each but cheaper: the remove dialog hands it every job selected. An
// error says which jobs stayed; the others are gone.
type ManyRemover interface {
	RemoveMany(ids []JobID) error
}

// RemoveForm is the remove dialog's parts, exported for tests.
type RemoveForm struct {
	Message *widget.Label
	// Data: also delete the downloaded data; unticked at first, and
	// hidden when the backend cannot.
	Data *keyCheck
	// Keep says what becomes of the files on the disk, as Data stands.
	Keep    *widget.Label
	Content fyne.CanvasObject
}

// newRemoveForm builds the remove dialog's parts for jobs; canDelete
// shows the box that deletes their data too.
func newRemoveForm(jobs []Job, canDelete bool) *RemoveForm {
	f := &RemoveForm{}
	msg := fmt.Sprintf(lang.L("Remove “%s” from the queue?"), jobs[0].Name)
	if len(jobs) > 1 {
		msg = fmt.Sprintf(lang.L("Remove %s downloads from the queue?"), count(len(jobs)))
	}
	f.Message = widget.NewLabel(msg)
	f.Message.Wrapping = fyne.TextWrapWord
	f.Keep = widget.NewLabel("")
	f.Keep.Wrapping = fyne.TextWrapWord
	keep := func(del bool) {
		if del {
			f.Keep.SetText(lang.L("The unfinished data (.part) and the finished files Braid downloaded are deleted from the disk; a file that was there before Braid stays."))
		} else {
			f.Keep.SetText(lang.L("Files already downloaded, finished or not, stay where they are."))
		}
	}
	f.Data = newDialogCheck(lang.L("Also delete the downloaded data"), keep)
	keep(false)
	if !canDelete {
		f.Data.Hide()
	}
	f.Content = container.NewVBox(f.Message, f.Data, f.Keep)
	return f
}

// RemoveSelected asks, then takes the selected jobs out of the queue;
// with "Also delete the downloaded data" ticked it deletes their data
// too and then says what it deleted.
func (w *Window) RemoveSelected() {
	sel := w.Selection()
	if len(sel) == 0 {
		return
	}
	ids := make([]JobID, len(sel))
	for i, j := range sel {
		ids[i] = j.ID
	}
	dr, canDelete := w.Backend.(DataRemover)
	// A folder kept in sync is the user's copy: its files stay.
	canDelete = canDelete && slices.ContainsFunc(sel, func(j Job) bool { return !j.Sync })
	f := newRemoveForm(sel, canDelete)
	remove := func() {
		withData := canDelete && f.Data.Checked
		w.command(lang.L("Remove"), func() error {
			if mr, ok := w.Backend.(ManyRemover); ok && !withData {
				return mr.RemoveMany(ids)
			}
			var errs []error
			var deleted []string
			for _, id := range ids {
				if !withData {
					errs = append(errs, w.Backend.Remove(id))
					continue
				}
				gone, err := dr.RemoveWithData(id)
				deleted = append(deleted, gone...)
				errs = append(errs, err)
			}
			if withData {
				w.do(func() { w.showDeleted(deleted) })
			}
			return errors.Join(errs...)
		})
	}
	d := dialog.NewCustomConfirm(lang.L("Remove download"), lang.L("Remove"), lang.L("Cancel"), f.Content, func(yes bool) {
		if yes {
			remove()
		}
	}, w.Win)
	d.SetConfirmImportance(widget.DangerImportance)
	w.keyed(d, func() { d.Hide(); remove() }, d.Hide)
	d.Resize(fyne.NewSize(480, d.MinSize().Height))
	d.Show()
}

// showDeleted says which files a remove deleted from the disk.
func (w *Window) showDeleted(paths []string) {
	text := lang.L("No downloaded data was on the disk: nothing was deleted.")
	if len(paths) > 0 {
		names := make([]string, len(paths))
		for i, p := range paths {
			names[i] = filepath.Base(p)
		}
		text = fmt.Sprintf(lang.L("Deleted from %s: %s."), filepath.Dir(paths[0]), strings.Join(names, ", "))
		for _, p := range paths[1:] {
			if filepath.Dir(p) != filepath.Dir(paths[0]) {
				text = fmt.Sprintf(lang.L("Deleted: %s."), strings.Join(paths, ", "))
				break
			}
		}
	}
	msg := widget.NewLabel(text)
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom(lang.L("Removed"), lang.L("Close"), msg, w.Win)
	d.Resize(fyne.NewSize(480, d.MinSize().Height))
	w.keyed(d, d.Hide, d.Hide)
	d.Show()
}
