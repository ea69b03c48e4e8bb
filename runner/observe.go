package runner

import (
	"fmt"
	"time"

	"braid/engine"
	"braid/engine/signature"
	"braid/engine/torrent"
	"braid/queue"
)

// Observer is how a face hears what Get or a Runner does: get's text and
// JSON lines and queue run's log lines are implementations of it
// (cmd/braid), the window's bridge is another (ui/bridge), and a
// remote-control server can be one. Its methods are called from the
// goroutines of the downloads running side by side, so an implementation
// must be safe for concurrent use; they must return quickly.
type Observer interface {
	// Interval is how often Progress is called for each file running.
	Interval() time.Duration
	// Start is told when a file's download starts.
	Start(f *FileRun)
	// Progress is told how a running file stands, once an Interval. A
	// torrent's also has its swarm's numbers (Torrent set).
	Progress(f *FileRun, p Progress)
	// Note is told what is not a file's result (see NoteKind).
	Note(n Note)
	// Signature is told what checking a file's signature found, after the
	// file's Result.
	Signature(f *FileRun, o signature.Outcome)
	// Result is told how one file ended, or a source that yielded no file
	// (File "" or Snapshot nil: it ended before its download began).
	Result(r Result)
	// Check is told how a check of a finished job goes (Service.Check):
	// how far it is, what it found of each file, and its end.
	Check(c CheckEvent)
}

// FileRun is one file's download as an Observer sees it; its pointer is
// the same in every call about that download.
type FileRun struct {
	Job int64 // the queue job it is a file of; 0 while get has not recorded it
	// Queued is that job as a Runner's run of it stands (its document,
	// files and mirrors), for a face that shows the job, as the window
	// does; nil for get's files. It must not be changed.
	Queued  *queue.Job
	Source  string
	Name    string
	Size    int64 // -1 unknown
	Mirrors int   // mirrors it starts with; for a torrent its web seeds
	Torrent bool  // fetched through BitTorrent
}

// Progress is a reading of a running file: the engine's snapshot, and for
// a torrent the swarm's (Torrent is nil for HTTP and FTP).
type Progress struct {
	Snapshot *engine.Snapshot
	Torrent  *torrent.Snapshot
}

// NoteKind says what a Note is about.
type NoteKind int

const (
	// NoteWarning: the source's document has something wrong that does
	// not stop it (Message).
	NoteWarning NoteKind = iota
	// NoteSelection: how the filters chose among alternatives (Message).
	NoteSelection
	// NoteSkipped: File is not selected by the filters; Message says why.
	NoteSkipped
	// NoteWaiting: the source cannot be read for now (Err) and is tried
	// again in Wait.
	NoteWaiting
	// NoteNews: a dynamic metalink's origin has news for File (more
	// mirrors, a new version): Message.
	NoteNews
	// NoteState: the state folder said something (a damaged queue moved
	// aside: Message) or failed (Err); File names the file it was about,
	// if any.
	NoteState
	// NoteSync: what a sync found of File without downloading it: Sync
	// says which (kept, gone, deleted, missing, changed, extra).
	NoteSync
	// NoteTracker: a tracker of File's torrent failed while the torrent
	// had no peer, told once for each new reason: Message names it
	// (without its query, where private trackers keep a passkey) and
	// says why.
	NoteTracker
)

// Note is something Get or Sync tells that is not a file's result.
type Note struct {
	Kind    NoteKind
	Source  string
	File    string
	Message string
	Err     error
	Wait    time.Duration
	Sync    SyncKind // a sync's outcome, for NoteSync, NoteSkipped and NoteWarning of a sync
	Size    int64    // a file a sync kept: its size (-1 unknown)
}

// Result is how one file ended. Err is nil when it is done (Snapshot
// says what was checked: Snapshot.Outcome); ErrNotVerified under
// RequireHash for a file no hash could check; context.Canceled when it
// was interrupted (its job is paused, to resume with the same get).
type Result struct {
	Run      *FileRun // the download's, as Start was told; nil when it never started
	Source   string
	File     string
	Snapshot *engine.Snapshot // the download's last; nil when it never started
	Torrent  *torrent.Snapshot
	Err      error
}

// hashRequired is err, or ErrNotVerified for a download that ended well
// with no published hash to check it (snap's outcome) when required, as
// get's --require-hash asks.
func hashRequired(snap *engine.Snapshot, err error, required bool) error {
	if required && err == nil && snap != nil && snap.Outcome() == engine.OutcomeNotVerified {
		return fmt.Errorf("%s: %w", snap.Name, ErrNotVerified)
	}
	return err
}

// tellEnd tells o how a file's download ended: its Result, then what
// checking its signature found, when it was checked.
func tellEnd(o Observer, r Result, sig signature.Outcome) {
	o.Result(r)
	if sig.Status != signature.Unchecked {
		o.Signature(r.Run, sig)
	}
}

// Quiet is an Observer that hears nothing, for a caller that gave none;
// a face that hears only some events embeds it.
type Quiet struct{}

func (Quiet) Interval() time.Duration               { return time.Second }
func (Quiet) Start(*FileRun)                        {}
func (Quiet) Progress(*FileRun, Progress)           {}
func (Quiet) Note(Note)                             {}
func (Quiet) Signature(*FileRun, signature.Outcome) {}
func (Quiet) Result(Result)                         {}
func (Quiet) Check(CheckEvent)                      {}
