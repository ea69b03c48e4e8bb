package ui

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// JobLimiter is an optional power of a Backend: a download's own speed
// limit, on top of the one for all downloads. It is kept with the job and
// reaches a running download at once, without restarting it.
type JobLimiter interface {
	// SetJobLimit sets job id's own limit in bytes per second; 0
	// removes it.
	SetJobLimit(id JobID, bytesPerSec int64) error
}

// limited is a row's speed cell with the job's own limit after it:
// "480 KiB/s ≤ 500 KiB/s", or "≤ 500 KiB/s" while it waits to run; a
// finished job's limit no longer matters and is not shown.
func limited(j Job, speed string) string {
	switch {
	case j.Limit <= 0:
		return speed
	case j.State != Running && j.State != Queued && j.State != Paused && j.State != Waiting && j.State != FetchingMetadata:
		return speed
	}
	if speed == "" {
		return "≤ " + rateText(j.Limit)
	}
	return speed + " ≤ " + rateText(j.Limit)
}

// jobLimitForm is the "Speed limit" dialog's content: no limit of the
// job's own, or at most a rate.
type jobLimitForm struct {
	Choice  *keyRadio
	Rate    *Entry
	Content fyne.CanvasObject
}

func newJobLimitForm(current int64, about string) *jobLimitForm {
	f := &jobLimitForm{Rate: NewEntry()}
	none, atMost := lang.L("No limit of its own"), lang.L("At most")
	f.Rate.SetPlaceHolder(rateText(500 << 10))
	f.Choice = newKeyRadio([]string{none, atMost}, nil, nil)
	if current > 0 {
		f.Rate.SetText(rateText(current))
		f.Choice.SetSelected(atMost)
	} else {
		f.Choice.SetSelected(none)
	}
	// Typing a rate chooses it.
	f.Rate.OnChanged = func(t string) {
		if strings.TrimSpace(t) != "" {
			f.Choice.SetSelected(atMost)
		}
	}
	f.Rate.Validator = func(t string) error {
		if f.Choice.Selected != atMost {
			return nil
		}
		_, err := f.value()
		return err
	}
	f.Content = container.NewVBox(
		widget.NewLabel(about),
		f.Choice,
		f.Rate, // its text says "/s": a "per second" beside it said it twice
		newHint(lang.L("The limit for all downloads still holds; the lower one wins.")),
	)
	return f
}

// value is the limit chosen, in bytes per second (0: none), or why the
// rate does not read.
func (f *jobLimitForm) value() (int64, error) {
	if f.Choice.Selected != lang.L("At most") {
		return 0, nil
	}
	bps, err := ParseRate(f.Rate.Text)
	if err == nil && bps == 0 {
		err = fmt.Errorf(lang.L("%q is not a speed such as 2 MiB/s"), f.Rate.Text)
	}
	return bps, err
}

// AskJobLimit asks for the selected downloads' own speed limit and sets
// it on each; the dialog starts from the first one's.
func (w *Window) AskJobLimit() {
	jl, ok := w.Backend.(JobLimiter)
	sel := slices.DeleteFunc(w.Selection(), func(j Job) bool { return j.Sync })
	if !ok || len(sel) == 0 {
		return
	}
	about := fmt.Sprintf(lang.L("How fast “%s” may download:"), sel[0].Name)
	if len(sel) > 1 {
		about = countL("How fast each of %s downloads may download:", len(sel))
	}
	f := newJobLimitForm(sel[0].Limit, about)
	ids := make([]JobID, len(sel))
	for i, j := range sel {
		ids[i] = j.ID
	}
	d := dialog.NewCustomConfirm(lang.L("Speed limit"), lang.L("Save"), lang.L("Cancel"), f.Content, func(ok bool) {
		if !ok {
			return
		}
		bps, err := f.value()
		if err != nil {
			w.showError(err)
			return
		}
		w.command(lang.L("Speed limit"), func() error {
			for _, id := range ids {
				if err := jl.SetJobLimit(id, bps); err != nil {
					return err
				}
			}
			return nil
		})
	}, w.Win)
	f.Rate.OnSubmitted = func(string) { d.Confirm() }
	f.Rate.OnEscape = d.Hide
	w.keyed(d, d.Confirm, d.Hide)
	d.Resize(fyne.NewSize(420, d.MinSize().Height))
	d.Show()
	w.Win.Canvas().Focus(f.Rate)
}

// jobLimitItem is the menu item that opens the dialog, for the main
// menu's Downloads menu and the row menu; nil when the backend keeps no
// limit per download.
func (w *Window) jobLimitItem() *fyne.MenuItem {
	if _, ok := w.Backend.(JobLimiter); !ok {
		return nil
	}
	it := fyne.NewMenuItem(lang.L("Speed limit…"), w.AskJobLimit)
	it.Icon = theme.MediaFastForwardIcon()
	return it
}

// withItem is items with it inserted at i; items when it is nil.
func withItem(items []*fyne.MenuItem, i int, it *fyne.MenuItem) []*fyne.MenuItem {
	if it == nil {
		return items
	}
	return slices.Insert(slices.Clip(items), i, it)
}

// addJobLimitButton puts "Speed limit…" among the details pane's
// actions, for the job it shows.
func (w *Window) addJobLimitButton() {
	if _, ok := w.Backend.(JobLimiter); !ok {
		return
	}
	d := w.Details
	b := widget.NewButtonWithIcon(lang.L("Speed limit…"), theme.MediaFastForwardIcon(), func() {
		if d.Empty || d.Detail.Sync {
			return
		}
		if !w.isSelected(d.Detail.ID, w.Selection()) {
			w.Select(d.Detail.ID)
		}
		w.AskJobLimit()
	})
	d.jobLimit = b
	d.actions.Objects = append([]fyne.CanvasObject{b}, d.actions.Objects...)
	d.actions.Refresh()
}
