package ui

import (
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// newWantCheck is a file row's fetch/skip box, hidden until the row shows
// a file of a torrent that downloads now.
func (d *Details) newWantCheck() *widget.Check {
	c := widget.NewCheck("", nil)
	c.Hide()
	return c
}

// setWant shows a file row's fetch/skip box for a file of a downloading
// torrent, ticked when the file is fetched, and names a skipped file's
// state. Unticking asks the backend to skip the file at once
// (Details.OnWant); the next reading shows what it did.
func (d *Details) setWant(r *fileRow, f FileDetail) {
	if f.Skipped {
		setStyled(r.state, lang.L("Skipped"), theme.ColorNamePlaceHolder)
		r.progress.Set(0, theme.ColorNamePlaceHolder)
	}
	c := r.want
	c.OnChanged = nil
	c.SetChecked(!f.Skipped)
	if !f.Choosable || d.OnWant == nil {
		c.Hide()
		return
	}
	c.Show()
	id, name := d.Detail.ID, f.Name
	c.OnChanged = func(on bool) {
		if d.OnWant != nil {
			d.OnWant(id, name, on)
		}
	}
}
