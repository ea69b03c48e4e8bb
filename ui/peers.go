package ui

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// PeerDetail is one peer of a torrent, as the Peers tab shows it.
type PeerDetail struct {
	Addr   string     // host:port
	Client string     // the peer's program; "" unknown
	Source PeerSource // how it was found
	// Flags says whether the choke and interest flags were read; the
	// rest of the flags mean nothing without it.
	Flags                       bool
	AmInterested, AmChoking     bool
	PeerInterested, PeerChoking bool
	Encrypted, UTP              bool
	Down, Up                    float64 // bytes per second
	Progress                    float64 // share of the torrent it has, [0, 1]
	Seeder                      bool
}

// PeerSource is how a peer was found.
type PeerSource int

// The ways a peer is found.
const (
	PeerFromUnknown  PeerSource = iota
	PeerFromTracker             // a tracker's answer
	PeerFromIncoming            // it connected to us
	PeerFromDHT
	PeerFromPEX
	PeerFromLink // named by the link (x.pe) or the .torrent
)

// Swarm is a Backend that shows a torrent's peers and trackers: the
// details pane has Peers and Trackers tabs for torrent jobs
// (Job.Torrent), read about once a second while one of them shows.
type Swarm interface {
	// Peers returns the peers of job id's torrent now; false when it
	// runs no torrent now (queued, paused, done and not seeding).
	Peers(id JobID) ([]PeerDetail, bool)
	// Trackers is Peers for the torrent's trackers.
	Trackers(id JobID) ([]TrackerDetail, bool)
}

// FileChooser is a Backend that can fetch or skip a file of a torrent
// while it downloads (FileDetail.Choosable): the Files tab shows a
// checkbox by each file.
type FileChooser interface {
	SetFileWanted(id JobID, name string, want bool) error
}

// FilePrioritizer is a FileChooser that can also fetch a torrent's file
// before its others (high) or like them: the Files tab shows a choice of
// priority by each fetched file.
type FilePrioritizer interface {
	SetFilePriority(id JobID, name string, high bool) error
}

// swarmTabs are the details pane's Peers and Trackers tabs, shown for
// torrent jobs only. Changed on the UI goroutine.
type swarmTabs struct {
	PeersTab, TrackersTab *container.TabItem
	Peers, Trackers       *widget.List
	PeersNote             *widget.RichText // the empty state, as a sentence
	TrackersNote          *widget.RichText
	peers                 []PeerDetail
	trackers              []TrackerDetail
	shown                 bool
	wake                  func() // the reader: read now (nil: none)
	// visible is which tab shows (0 none, 1 peers, 2 trackers), for the
	// reader's goroutine.
	visible atomic.Int32
}

const (
	swarmHidden = iota
	swarmPeers
	swarmTrackers
)

func newSwarmTabs() *swarmTabs {
	s := &swarmTabs{}
	s.Peers = widget.NewList(func() int { return len(s.peers) }, newPeerRow, s.updatePeerRow)
	s.Trackers = widget.NewList(func() int { return len(s.trackers) }, newTrackerRow, s.updateTrackerRow)
	s.PeersNote = newHint("")
	s.TrackersNote = newHint("")
	s.PeersTab = container.NewTabItemWithIcon(lang.L("Peers"), theme.AccountIcon(),
		container.NewBorder(header(peerWidths, lang.L("Address"), lang.L("Client"), lang.L("Has"), lang.L("Down"), lang.L("Up"), lang.L("Flags"), lang.L("Found by")),
			nil, nil, nil, container.NewStack(s.Peers, container.NewCenter(s.PeersNote))))
	s.TrackersTab = container.NewTabItemWithIcon(lang.L("Trackers"), theme.ComputerIcon(),
		container.NewBorder(header(trackerWidths, lang.L("Tracker"), lang.L("Tier"), lang.L("Status"), lang.L("Peers"), lang.L("Next announce")),
			nil, nil, nil, container.NewStack(s.Trackers, container.NewCenter(s.TrackersNote))))
	return s
}

// showSwarm adds the Peers and Trackers tabs for a torrent job and takes
// them away for any other; a tab taken away while shown leaves the pane
// on Files. A row's own detail, shown at once on a click before the full
// one is read (no files yet), leaves them as they are.
func (d *Details) showSwarm(det Detail, same bool) {
	s := d.swarm
	if !same {
		s.peers, s.trackers = nil, nil
		s.Peers.Refresh()
		s.Trackers.Refresh()
		if s.wake != nil {
			s.wake()
		}
	}
	if len(det.Files) == 0 && !det.Sync {
		d.noteSwarmTab()
		return
	}
	if det.Torrent != s.shown {
		s.shown = det.Torrent
		if det.Torrent {
			d.Tabs.Append(s.PeersTab)
			d.Tabs.Append(s.TrackersTab)
		} else {
			if sel := d.Tabs.Selected(); sel == s.PeersTab || sel == s.TrackersTab {
				d.Tabs.Select(d.FilesTab)
			}
			d.Tabs.Remove(s.PeersTab)
			d.Tabs.Remove(s.TrackersTab)
		}
	}
	d.noteSwarmTab()
}

// noteSwarmTab tells the reader which swarm tab shows, if any.
func (d *Details) noteSwarmTab() {
	v := int32(swarmHidden)
	if !d.Empty && d.swarm.shown {
		switch d.Tabs.Selected() {
		case d.swarm.PeersTab:
			v = swarmPeers
		case d.swarm.TrackersTab:
			v = swarmTrackers
		}
	}
	if old := d.swarm.visible.Swap(v); old != v && d.swarm.wake != nil {
		d.swarm.wake()
	}
}

// PeersTab and TrackersTab are the swarm tabs, for tests.
func (d *Details) PeersTab() *container.TabItem    { return d.swarm.PeersTab }
func (d *Details) TrackersTab() *container.TabItem { return d.swarm.TrackersTab }

// SwarmShown reports whether the Peers and Trackers tabs are in the pane.
func (d *Details) SwarmShown() bool { return d.swarm.shown }

// ShowPeers shows what Swarm.Peers returned for the job in the pane;
// running false: it runs no torrent now.
func (d *Details) ShowPeers(peers []PeerDetail, running bool) {
	s := d.swarm
	s.peers = peers
	switch {
	case !running:
		setDim(s.PeersNote, lang.L("The torrent is not running: its peers show while it downloads or seeds."))
	case len(peers) == 0:
		setDim(s.PeersNote, lang.L("No peers connected yet."))
	}
	showIf(!running || len(peers) == 0, s.PeersNote)
	s.Peers.Refresh()
}

// ShowTrackers is ShowPeers for the Trackers tab.
func (d *Details) ShowTrackers(trackers []TrackerDetail, running bool) {
	s := d.swarm
	s.trackers = trackers
	switch {
	case !running:
		setDim(s.TrackersNote, lang.L("The torrent is not running: its trackers show while it downloads or seeds."))
	case len(trackers) == 0:
		setDim(s.TrackersNote, lang.L("This torrent names no tracker: its peers come from the link, DHT or PEX."))
	}
	showIf(!running || len(trackers) == 0, s.TrackersNote)
	s.Trackers.Refresh()
}

// Peers tab: address, client, share of the torrent, down, up, flags,
// how it was found.
var peerWidths = []float32{170, 0, 70, 90, 90, 230, 80}

type peerRow struct {
	row
	addr, client, down, up, flags, source *widget.Label
	has                                   *Bar
}

func newPeerRow() fyne.CanvasObject {
	r := &peerRow{
		addr:   cellLabel(fyne.TextAlignLeading),
		client: cellLabel(fyne.TextAlignLeading),
		has:    NewBar(),
		down:   cellLabel(fyne.TextAlignTrailing),
		up:     cellLabel(fyne.TextAlignTrailing),
		flags:  cellLabel(fyne.TextAlignLeading),
		source: cellLabel(fyne.TextAlignLeading),
	}
	r.content = container.New(&columns{widths: peerWidths}, r.addr, r.client, r.has, r.down, r.up, r.flags, r.source)
	r.ExtendBaseWidget(r)
	return r
}

func (s *swarmTabs) updatePeerRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(s.peers) {
		return
	}
	p := s.peers[i]
	r := o.(*peerRow)
	c := peerCells(p)
	r.addr.SetText(c[0])
	r.client.SetText(c[1])
	color := theme.ColorNamePrimary
	if p.Seeder {
		color = theme.ColorNameSuccess
	}
	r.has.Set(p.Progress, color)
	r.down.SetText(c[3])
	r.up.SetText(c[4])
	r.flags.SetText(c[5])
	r.source.SetText(c[6])
}

// peerCells are a peer's cells as text, in the columns' order.
func peerCells(p PeerDetail) []string {
	client := p.Client
	if client == "" {
		client = lang.L("unknown")
	}
	has := fmt.Sprintf("%.0f %%", p.Progress*100)
	if p.Seeder {
		has = lang.L("seed")
	}
	return []string{p.Addr, client, has, speedText(p.Down), speedText(p.Up), peerFlags(p), sourceText(p.Source)}
}

// peerFlags says in words what a peer connection is doing, as the
// choke and interest flags tell it.
func peerFlags(p PeerDetail) string {
	if !p.Flags {
		return lang.L("not known yet")
	}
	var out []string
	switch {
	case p.AmInterested && !p.PeerChoking:
		out = append(out, lang.L("downloading"))
	case p.AmInterested:
		out = append(out, lang.L("waiting to download"))
	}
	switch {
	case p.PeerInterested && !p.AmChoking:
		out = append(out, lang.L("uploading"))
	case p.PeerInterested:
		out = append(out, lang.L("wants to download"))
	}
	if len(out) == 0 {
		out = append(out, lang.L("idle"))
	}
	if p.Encrypted {
		out = append(out, lang.L("encrypted"))
	}
	if p.UTP {
		out = append(out, lang.L("µTP"))
	}
	return strings.Join(out, ", ")
}

func sourceText(s PeerSource) string {
	switch s {
	case PeerFromTracker:
		return lang.L("tracker")
	case PeerFromIncoming:
		return lang.L("incoming")
	case PeerFromLink:
		return lang.L("the link")
	case PeerFromDHT:
		return lang.L("DHT")
	case PeerFromPEX:
		return lang.L("PEX")
	}
	return ""
}

// swarmReader reads the shown swarm tab's job about once a second while
// the tab shows, and not at all otherwise: a torrent's peers cost
// nothing until someone looks.
type swarmReader struct {
	s    Swarm
	wake chan struct{}
}

// watchSwarm starts the reader of the Peers and Trackers tabs, when the
// backend has them, for the window's life.
func (w *Window) watchSwarm() {
	s, ok := w.Backend.(Swarm)
	if !ok {
		return
	}
	if c, ok := w.Backend.(FileChooser); ok {
		w.Details.OnWant = func(id JobID, name string, want bool) {
			w.command(lang.L("Choose files"), func() error { return c.SetFileWanted(id, name, want) })
		}
	}
	if c, ok := w.Backend.(FilePrioritizer); ok {
		w.Details.OnPriority = func(id JobID, name string, high bool) {
			w.command(lang.L("Choose files"), func() error { return c.SetFilePriority(id, name, high) })
		}
	}
	r := &swarmReader{s: s, wake: make(chan struct{}, 1)}
	w.swarmWake = func() {
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
	w.Details.swarm.wake = w.swarmWake
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		r.loop(w.ctx, w)
	}()
}

func (r *swarmReader) loop(ctx context.Context, w *Window) {
	t := time.NewTicker(time.Second)
	t.Stop()
	defer t.Stop()
	ticking := false
	for {
		tab := w.Details.swarm.visible.Load()
		id := JobID(w.poll.selected.Load())
		switch {
		case tab != swarmHidden && id != 0:
			var peers []PeerDetail
			var trackers []TrackerDetail
			var running bool
			if tab == swarmPeers {
				peers, running = r.s.Peers(id)
			} else {
				trackers, running = r.s.Trackers(id)
			}
			w.do(func() {
				if w.Details.Empty || w.Details.Detail.ID != id {
					return
				}
				if tab == swarmPeers {
					w.Details.ShowPeers(peers, running)
				} else {
					w.Details.ShowTrackers(trackers, running)
				}
			})
			if !ticking {
				t.Reset(time.Second)
				ticking = true
			}
		case ticking:
			t.Stop()
			ticking = false
		}
		var tick <-chan time.Time
		if ticking {
			tick = t.C
		}
		select {
		case <-ctx.Done():
			return
		case <-tick:
		case <-r.wake:
		}
	}
}
