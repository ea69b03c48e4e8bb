package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// What the tests read of the window's parts, which the window itself
// never asks.

// organiseText is what the details' line says.
func organiseText(rt *widget.RichText) string { return rt.String() }

// dimText is the text of a newDim line.
func dimText(rt *widget.RichText) string { return rt.Segments[0].(*widget.TextSegment).Text }

// newJobRow is a row with the default column widths.
func newJobRow() fyne.CanvasObject {
	return newJobRowIn(&columns{widths: append([]float32(nil), defaultQueueWidths...)})
}

// addedFull is the date and time a job was added.
func addedFull(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("2006-01-02 15:04")
}

// count is the count of one entry as the panel shows it now, and
// whether the panel has that entry.
func (p *SidePanel) count(k sideKey) (int, bool) {
	for _, e := range p.entries {
		if e.key == k {
			return e.count, true
		}
	}
	return 0, false
}
