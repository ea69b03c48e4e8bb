package ui

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// TrackerState is where one tracker of a torrent stands.
type TrackerState int

// The states of a tracker.
const (
	TrackerNotContacted TrackerState = iota // no announce has ended yet
	TrackerWorking                          // the last announce was answered
	TrackerFailed                           // the last announce failed: Err says why
	TrackerDisabled                         // trackers are off in the settings
	TrackerUnknown                          // the BitTorrent library keeps no status for it
)

// String is the state as the window names it.
func (s TrackerState) String() string {
	switch s {
	case TrackerNotContacted:
		return lang.L("Not contacted yet")
	case TrackerWorking:
		return lang.L("Working")
	case TrackerFailed:
		return lang.L("Not working")
	case TrackerDisabled:
		return lang.L("Off: peer discovery is turned off in Settings")
	}
	return lang.L("Status not known")
}

// TrackerDetail is one tracker of a torrent, as the Trackers tab shows
// it. Seeders and leechers are not among them: the BitTorrent library
// Braid uses (anacrolix/torrent v1.59.1) does not keep them from the
// tracker's answer.
type TrackerDetail struct {
	URL   string // without credentials
	Tier  int    // 0 first
	State TrackerState
	// Err is why the last announce failed, in a sentence (see Explain);
	// ErrDetail the library's own words.
	Err, ErrDetail string
	Peers          int           // peers its last answer gave; -1 not known
	Next           time.Duration // until the next announce; 0 any time now; -1 not known
}

// Trackers tab: URL, tier, status, peers, next announce.
var trackerWidths = []float32{0, 50, 330, 70, 120}

type trackerRow struct {
	row
	url, tier, peers, next *widget.Label
	status                 *widget.RichText
}

func newTrackerRow() fyne.CanvasObject {
	r := &trackerRow{
		url:    cellLabel(fyne.TextAlignLeading),
		tier:   cellLabel(fyne.TextAlignTrailing),
		status: newStyled(fyne.TextAlignLeading),
		peers:  cellLabel(fyne.TextAlignTrailing),
		next:   cellLabel(fyne.TextAlignTrailing),
	}
	r.content = container.New(&columns{widths: trackerWidths}, r.url, r.tier, r.status, r.peers, r.next)
	r.ExtendBaseWidget(r)
	return r
}

func (s *swarmTabs) updateTrackerRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(s.trackers) {
		return
	}
	t := s.trackers[i]
	r := o.(*trackerRow)
	c := trackerCells(t)
	r.url.SetText(c[0])
	r.tier.SetText(c[1])
	color := theme.ColorNameForeground
	switch t.State {
	case TrackerWorking:
		color = theme.ColorNameSuccess
	case TrackerFailed:
		color = theme.ColorNameError
	case TrackerDisabled, TrackerUnknown, TrackerNotContacted:
		color = theme.ColorNamePlaceHolder
	}
	setStyled(r.status, c[2], color)
	r.peers.SetText(c[3])
	r.next.SetText(c[4])
}

// trackerCells are a tracker's cells as text, in the columns' order.
func trackerCells(t TrackerDetail) []string {
	status := t.State.String()
	if t.State == TrackerFailed && t.Err != "" {
		status = t.Err
	}
	peers := ""
	if t.Peers >= 0 {
		peers = fmt.Sprint(t.Peers)
	}
	next := ""
	switch {
	case t.State == TrackerDisabled || t.Next < 0:
	case t.Next == 0:
		next = lang.L("any time now")
	default:
		next = etaText(t.Next)
	}
	return []string{t.URL, fmt.Sprint(t.Tier + 1), status, peers, next}
}
