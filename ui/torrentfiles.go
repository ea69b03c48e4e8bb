package ui

import (
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// newWantCheck is a file row's fetch/skip box, hidden until the row shows
// a file of a torrent whose files can be chosen now.
func (d *Details) newWantCheck() *widget.Check {
	c := widget.NewCheck("", nil)
	c.Hide()
	return c
}

// priorityNames are a fetched file's priorities, as the Files tab offers
// them.
func priorityNames() []string { return []string{lang.L("Normal"), lang.L("High")} }

// newPriorityChoice is a file row's priority, hidden as its box is.
func (d *Details) newPriorityChoice() *widget.Select {
	s := widget.NewSelect(priorityNames(), nil)
	s.Hide()
	return s
}

// setWant shows a file row's fetch/skip box and, for a fetched file, its
// priority, for a file of a torrent whose files can be chosen now
// (downloading, or queued, paused or done and not seeding), ticked when
// the file is fetched, and names a skipped file's state. Unticking asks
// the backend to skip the file (Details.OnWant), choosing High to fetch
// it first (Details.OnPriority); the next reading shows what it did.
func (d *Details) setWant(r *fileRow, f FileDetail) {
	if f.Skipped {
		setStyled(r.state, lang.L("Skipped"), theme.ColorNamePlaceHolder)
		r.progress.Set(0, theme.ColorNamePlaceHolder)
	}
	c := r.want
	c.OnChanged = nil
	c.SetChecked(!f.Skipped)
	p := r.prio
	p.OnChanged = nil
	names := priorityNames()
	p.Options = names
	if f.High {
		p.SetSelected(names[1])
	} else {
		p.SetSelected(names[0])
	}
	if !f.Choosable || d.OnWant == nil {
		c.Hide()
		p.Hide()
		return
	}
	c.Show()
	id, name := d.Detail.ID, f.Name
	c.OnChanged = func(on bool) {
		if d.OnWant != nil {
			d.OnWant(id, name, on)
		}
	}
	if f.Skipped || d.OnPriority == nil {
		p.Hide()
		return
	}
	p.Show()
	p.OnChanged = func(v string) {
		if d.OnPriority != nil {
			d.OnPriority(id, name, v == names[1])
		}
	}
}
