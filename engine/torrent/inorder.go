package torrent

import (
	"path"
	"strings"
	"time"

	"github.com/anacrolix/torrent"
	"github.com/anacrolix/torrent/types"
)

// In order (Request.InOrder). The library asks for the pieces of the
// highest priority first; among equals it takes partly fetched pieces and
// the rarest, and it keeps many requests in flight, answered in any
// order. So a torrent in order wants only a window of pieces from each
// selected file's first missing one (as the library's own reader with
// readahead does): its files' priority stays None, the window's pieces
// are raised to Readahead as they enter it, and the window moves on as
// pieces arrive. The start of every file is then whole first, and the
// done pieces never run further ahead than the window. A media file's
// first and last pieces come first of all: players read a container's
// index, which many formats keep at the end (an MP4's moov, a Matroska's
// cues), before the first frame.

// The window is how far ahead of a file's first missing piece pieces are
// wanted: what arrives in orderAhead at the torrent's speed, and at least
// orderWindow bytes and orderWindowPieces, so that the peers always have
// enough to send: the window moves every tick (200 ms). A piece is raised
// once, as it enters the window: changing a requested piece's priority
// makes the library ask for it anew, behind the others.
const (
	orderAhead        = 4 * time.Second
	orderWindow       = 4 << 20
	orderWindowPieces = 8
)

// mediaExts are the files whose first and last pieces come first.
var mediaExts = map[string]bool{
	".mp4": true, ".m4v": true, ".mov": true, ".mkv": true, ".webm": true,
	".avi": true, ".wmv": true, ".flv": true, ".mpg": true, ".mpeg": true,
	".ts": true, ".m2ts": true, ".ogv": true, ".3gp": true,
	".mp3": true, ".m4a": true, ".m4b": true, ".flac": true, ".ogg": true,
	".opus": true, ".wav": true, ".aac": true, ".wma": true,
}

// isMedia reports whether name is a file a player reads.
func isMedia(name string) bool {
	return mediaExts[strings.ToLower(path.Ext(name))]
}

// orderer keeps a torrent's windows in order. Only the job's run
// goroutine uses it.
type orderer struct {
	t    *torrent.Torrent
	ts   *torrentStorage
	prio []types.PiecePriority // what each piece was given; None: nothing
}

// newOrderer is the orderer of t, whose storage ts lays out: it takes
// every file's own priority away, so that only the windows are fetched.
func newOrderer(t *torrent.Torrent, ts *torrentStorage) *orderer {
	for _, f := range t.Files() {
		f.SetPriority(types.PiecePriorityNone)
	}
	return &orderer{t: t, ts: ts, prio: make([]types.PiecePriority, ts.info.NumPieces())}
}

// window is the window in pieces at speed bytes per second.
func (o *orderer) window(speed float64) int {
	bytes := max(int64(speed*orderAhead.Seconds()), orderWindow)
	return max(int(bytes/max(o.ts.info.PieceLength, 1)), orderWindowPieces)
}

// slide raises the pieces in the window (at speed, in bytes per second) of
// each selected file to
// Readahead, and a media file's first and last pieces to Next; the pieces
// of a file no longer selected go back to nothing, so none is fetched for
// order's sake (a piece a selected file shares keeps that file's
// priority). It calls the library (which takes its lock) only for a piece
// whose priority changes: a few a tick.
func (o *orderer) slide(selected []bool, speed float64) {
	done := o.ts.verified()
	w := o.window(speed)
	want := make(map[int]types.PiecePriority)
	raise := func(k int, pr types.PiecePriority) {
		if k < len(o.prio) && !done[k] && pr > want[k] {
			want[k] = pr
		}
	}
	for i, sp := range o.ts.spans {
		if sp.pad || sp.first >= sp.end || i >= len(selected) || !selected[i] {
			continue
		}
		if isMedia(sp.name) {
			raise(sp.first, types.PiecePriorityNext)
			raise(sp.end-1, types.PiecePriorityNext)
		}
		p := sp.first
		for p < sp.end && done[p] {
			p++
		}
		for k := p; k < min(p+w, sp.end); k++ {
			raise(k, types.PiecePriorityReadahead)
		}
	}
	for k, had := range o.prio {
		pr, ok := want[k]
		if done[k] || pr == had || (!ok && had != types.PiecePriorityNone && o.stillWanted(k, selected)) {
			// Done, unchanged, or behind the window of a file still
			// wanted: a piece is raised once (see orderWindow).
			continue
		}
		o.t.Piece(k).SetPriority(pr)
		o.prio[k] = pr
	}
}

// stillWanted reports whether piece k belongs to a selected file.
func (o *orderer) stillWanted(k int, selected []bool) bool {
	for i, sp := range o.ts.spans {
		if k >= sp.first && k < sp.end && i < len(selected) && selected[i] {
			return true
		}
	}
	return false
}

// verified is a copy of which pieces are verified.
func (ts *torrentStorage) verified() []bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]bool(nil), ts.done...)
}

// selection is the files the job fetches now, one bool per span; the
// slice is never changed in place (choose replaces it).
func (j *Job) selection() []bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.selected
}
