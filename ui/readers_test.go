package ui

import (
	"strings"
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

// PeerTexts are the Peers tab's rows as shown: each row's cells joined
// by " | ".
func (d *Details) PeerTexts() []string {
	var out []string
	for _, p := range d.swarm.peers {
		out = append(out, strings.Join(peerCells(p), " | "))
	}
	return out
}

// TrackerTexts are the Trackers tab's rows as shown: each row's cells
// joined by " | ".
func (d *Details) TrackerTexts() []string {
	var out []string
	for _, t := range d.swarm.trackers {
		out = append(out, strings.Join(trackerCells(t), " | "))
	}
	return out
}

// SwarmNote is the sentence the shown swarm tab says instead of rows,
// "" when it lists rows.
func (d *Details) SwarmNote() string {
	note := d.swarm.PeersNote
	if d.Tabs.Selected() == d.swarm.TrackersTab {
		note = d.swarm.TrackersNote
	}
	if !note.Visible() {
		return ""
	}
	return note.Segments[0].(*widget.TextSegment).Text
}
