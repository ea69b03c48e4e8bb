package engine

import "time"

// State is where a download is in its life.
type State uint8

const (
	// StateStarting: opening the folder, checking a file already there and
	// asking the mirrors about the file.
	StateStarting State = iota
	// StateDownloading: pieces are being fetched.
	StateDownloading
	// StateWaiting: pieces are missing, no mirror is sending and every
	// mirror left is backing off after temporary errors (the network is
	// down, the servers are busy); Snapshot.NextTry says when the next
	// try is. It ends when a byte arrives, or after Request.RetryFor.
	// It is also the state of a verified file that another program
	// holds open (Windows), while the engine waits to give it its name
	// or to remove what is left of it: Snapshot.Held says so, and the
	// wait ends when that program closes the file or the context ends.
	// Like the states before it, it comes before StateDone.
	StateWaiting
	// StateVerifying: every piece is on disk; the whole-file hash is being
	// checked before the file gets its final name.
	StateVerifying
	// StateDone: the file is at its final name and verified.
	StateDone
	// StateFailed: the download ended with an error (see Download.Err).
	StateFailed
	// StateCanceled: the context was canceled; NAME.part and the journal
	// hold what was done, for a later resume.
	StateCanceled
)

var stateNames = [...]string{"starting", "downloading", "waiting", "verifying", "done", "failed", "canceled"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// MirrorState is what the engine is doing with one mirror.
type MirrorState uint8

const (
	// MirrorIdle: usable, no connection open right now.
	MirrorIdle MirrorState = iota
	// MirrorActive: at least one connection is fetching from it.
	MirrorActive
	// MirrorRetrying: it failed or refused for now; it is tried again later.
	MirrorRetrying
	// MirrorDropped: it is not used again for this file (see Reason).
	MirrorDropped
)

var mirrorStateNames = [...]string{"idle", "active", "retrying", "dropped"}

func (s MirrorState) String() string {
	if int(s) < len(mirrorStateNames) {
		return mirrorStateNames[s]
	}
	return "unknown"
}

// PieceState is the state of one piece, one byte each so that a snapshot of
// a file with 100,000 pieces stays small.
type PieceState uint8

const (
	// PieceMissing: not on disk yet and nobody is fetching it.
	PieceMissing PieceState = iota
	// PieceActive: a connection is fetching it.
	PieceActive
	// PieceDone: on disk and verified (without piece hashes: fully written).
	PieceDone
	// PieceBad: a mirror sent data that failed the piece's hash; it waits to
	// be fetched again from another mirror.
	PieceBad
)

// Snapshot is a consistent picture of a download at one moment. It is a
// copy: the caller owns it and may keep it.
type Snapshot struct {
	Name string // the file's relative name
	// SavedAs is the name the file is saved under, relative to the
	// folder: Name, or a numbered alternative ("f (1).bin") when a file
	// no hash proves to be this one was already at Name (Note says so).
	// "" until the download has chosen it.
	SavedAs string
	Note    string
	// Held, while not "", says in a sentence that another program holds
	// the file open and the download waits for it to close it
	// (StateWaiting); no byte is lost and the download goes on by itself.
	Held string
	// VerifiedBy names the hash that proved the file: a whole-file hash
	// type ("sha-256"), or a piece hash type and " pieces" ("sha-1
	// pieces") when only piece hashes could check it. "" while not done,
	// and for a file nothing published could check (see Outcome).
	VerifiedBy string
	// Created reports, once the download is done, whether it wrote the
	// file at SavedAs rather than finding it there already, proven by a
	// hash.
	Created     bool
	Size        int64 // bytes; -1 while unknown
	PieceLength int64
	// Bytes counts the file's bytes on disk that count toward completion:
	// finished pieces and the written part of pieces in progress.
	Bytes    int64
	Verified int  // pieces done
	Checked  bool // pieces are checked against piece hashes as they complete
	// Hashed is how many bytes from the start of the file have gone
	// through the whole-file hash; it runs behind the download and catches
	// up during StateVerifying.
	Hashed int64
	// Skipping is what a mirror that cannot resume (it ignores ranges)
	// must still send again before the first byte the file needs: bytes
	// it read and threw away. Speed counts them; ETA includes them.
	Skipping int64
	// Speed is the download rate in bytes per second: the bytes received
	// over the last second (speedSpan), so it follows a change of rate
	// within a second.
	Speed int64
	// ETA is the expected time left at the current speed, or -1 when it
	// cannot be told.
	ETA     time.Duration
	Elapsed time.Duration
	State   State
	Err     error // the final error of a failed or canceled download
	// NextTry is when the next mirror's back-off ends, in StateWaiting;
	// zero otherwise.
	NextTry time.Time
	// Attempt is 1, or 2 during the single full retry after a whole-file
	// hash mismatch of a file without piece hashes.
	Attempt int

	// Rebuilding is how many pieces no mirror could send good are being
	// rebuilt from the file's PAR2 parity set now (Request.Parity);
	// Rebuilt is how many were, in this download. A rebuilt piece's
	// Filler is FilledByParity.
	Rebuilding int
	Rebuilt    int

	Mirrors []MirrorSnapshot
	// Pieces holds each piece's state; Filler the index in Mirrors of the
	// mirror that filled (done) or is filling (active) the piece, -1, or
	// FilledByParity. Both have one entry per piece.
	Pieces []PieceState
	Filler []int16
}

// FilledByParity is the Snapshot.Filler of a piece that was rebuilt from
// the file's PAR2 parity set, not fetched from a mirror.
const FilledByParity int16 = -2

// MirrorSnapshot is one mirror's part in a Snapshot.
type MirrorSnapshot struct {
	URL      string // without credentials
	Host     string
	Location string // ISO 3166-1 alpha-2, or ""
	Priority int
	State    MirrorState
	// Reason says why the mirror is retrying or dropped.
	Reason string
	// StrikesWhy says, for a mirror still used that has sent pieces that
	// fail their hash (Strikes), why it is still used: every mirror sent
	// them so, it is the last mirror and kept, other mirrors sent them bad
	// too, or too few were its own to drop it. "" otherwise.
	StrikesWhy string
	Conns      int // connections open now
	// Bytes is what the mirror delivered: the body bytes received from it
	// over the wire, each counted once, good or bad, whether the file kept
	// them or not. When a segment is split (an idle mirror takes over its
	// end, or a slow connection is cut) the bytes both mirrors received
	// count for each, so the sum over mirrors may exceed the file: see
	// Useful. Bytes in flight that the engine never read (still in the
	// network when it closed the connection) are not counted.
	Bytes int64
	// Useful is the part of Bytes the file kept: the length of the pieces
	// this mirror filled that are done (in the current attempt, see
	// Snapshot.Attempt). Over all mirrors Useful sums to Snapshot.Bytes
	// less the pieces a resume found on disk and the pieces in progress.
	Useful  int64
	Speed   int64 // bytes per second now; 0 when idle
	Strikes int   // pieces it sent that failed their hash
}

// speedSpan is the time a download's Speed is measured over: the bytes of
// the last second, so that a change of rate (a limit set, a mirror lost)
// shows in full within it, as aria2 clients expect of downloadSpeed, and
// a display shows no rate that has already ended.
const speedSpan = time.Second

// rateWindow measures a rate over the last speedSpan from samples of a
// running total. Its zero value is empty; it is not safe for concurrent
// use.
type rateWindow struct {
	samples []rateSample
}

type rateSample struct {
	at    time.Time
	total int64
}

// add notes the total at a moment and returns the rate over the last
// speedSpan in units a second: since the first sample while it is
// younger than that.
func (w *rateWindow) add(at time.Time, total int64) float64 {
	w.samples = append(w.samples, rateSample{at, total})
	// The oldest sample kept is the newest one at least speedSpan old.
	drop := 0
	for drop+1 < len(w.samples) && !w.samples[drop+1].at.After(at.Add(-speedSpan)) {
		drop++
	}
	w.samples = append(w.samples[:0], w.samples[drop:]...)
	first, last := w.samples[0], w.samples[len(w.samples)-1]
	dt := last.at.Sub(first.at).Seconds()
	if dt <= 0 {
		return 0
	}
	return float64(last.total-first.total) / dt
}
