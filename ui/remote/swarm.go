package remote

import (
	"context"
	"math/bits"
	"net"
	"net/url"
	"strconv"

	"braid/engine/torrent"
	"braid/ui"
)

// Peers is the details pane's Peers tab on a remote torrent: aria2's
// getPeers. aria2 does not say a peer's program, how it was found or
// whether it is interested; a Braid daemon adds the first two (braid*
// keys). false when the torrent does not run or seed now, or the daemon
// cannot be asked.
func (b *Backend) Peers(id ui.JobID) ([]ui.PeerDetail, bool) {
	ctx := context.Background()
	var s struct {
		Status    string `json:"status"`
		NumPieces string `json:"numPieces"`
	}
	if err := b.call(ctx, &s, "aria2.tellStatus", GID(id), []string{"status", "numPieces"}); err != nil || s.Status != "active" {
		return nil, false
	}
	var peers []struct {
		IP            string `json:"ip"`
		Port          string `json:"port"`
		Bitfield      string `json:"bitfield"`
		DownloadSpeed string `json:"downloadSpeed"`
		UploadSpeed   string `json:"uploadSpeed"`
		Seeder        string `json:"seeder"`
		BraidClient   string `json:"braidClient"`
		BraidSource   string `json:"braidSource"`
	}
	if err := b.call(ctx, &peers, "aria2.getPeers", GID(id)); err != nil {
		return nil, false
	}
	pieces := num(s.NumPieces)
	out := make([]ui.PeerDetail, 0, len(peers))
	for _, p := range peers {
		d := ui.PeerDetail{
			Addr:   net.JoinHostPort(p.IP, p.Port),
			Client: p.BraidClient,
			Source: peerSource(p.BraidSource),
			Down:   float64(num(p.DownloadSpeed)),
			Up:     float64(num(p.UploadSpeed)),
			Seeder: p.Seeder == "true",
		}
		// Flags stays false: aria2's getPeers gives the chokes but not
		// who is interested, and the pane's words for a connection
		// ("downloading", "idle") need both; said without interest,
		// a peer sending to us would read "idle".
		if d.Seeder {
			d.Progress = 1
		} else if pieces > 0 {
			d.Progress = min(1, float64(bitsSet(p.Bitfield))/float64(pieces))
		}
		out = append(out, d)
	}
	return out, true
}

// peerSource is the window's word for a Braid daemon's braidSource.
func peerSource(s string) ui.PeerSource {
	switch s {
	case torrent.SourceTracker:
		return ui.PeerFromTracker
	case torrent.SourceIncoming:
		return ui.PeerFromIncoming
	case torrent.SourceDHT:
		return ui.PeerFromDHT
	case torrent.SourcePEX:
		return ui.PeerFromPEX
	case torrent.SourceDirect:
		return ui.PeerFromLink
	}
	return ui.PeerFromUnknown
}

// bitsSet counts the pieces a hex bitfield says a peer has.
func bitsSet(hexField string) int {
	n := 0
	for _, c := range hexField {
		v, err := strconv.ParseUint(string(c), 16, 8)
		if err == nil {
			n += bits.OnesCount8(uint8(v))
		}
	}
	return n
}

// Trackers is the Trackers tab on a remote torrent: the announce list
// tellStatus gives, by tier. aria2's JSON-RPC does not say how an
// announce went, so each is "Status not known", with no peer count and
// no time to the next announce. A daemon that gives no announce list (a
// Braid daemon) has one row that says so in its place.
func (b *Backend) Trackers(id ui.JobID) ([]ui.TrackerDetail, bool) {
	var s struct {
		Status     string `json:"status"`
		Bittorrent *struct {
			AnnounceList *[][]string `json:"announceList"`
		} `json:"bittorrent"`
	}
	if err := b.call(context.Background(), &s, "aria2.tellStatus", GID(id), []string{"status", "bittorrent"}); err != nil ||
		s.Status != "active" {
		return nil, false
	}
	if s.Bittorrent == nil || s.Bittorrent.AnnounceList == nil {
		return []ui.TrackerDetail{{URL: NoTrackerList, State: ui.TrackerUnknown, Peers: -1, Next: -1}}, true
	}
	var out []ui.TrackerDetail
	for tier, list := range *s.Bittorrent.AnnounceList {
		for _, u := range list {
			if pu, err := url.Parse(u); err == nil {
				u = pu.Redacted()
			}
			out = append(out, ui.TrackerDetail{URL: u, Tier: tier, State: ui.TrackerUnknown, Peers: -1, Next: -1})
		}
	}
	return out, true
}

// NoTrackerList is the Trackers tab's one row for a daemon that does not
// list a torrent's trackers.
const NoTrackerList = "The remote downloads do not say which trackers this torrent has."
