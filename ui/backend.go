// Package ui is Braid's window, built with Fyne on top of the queue and the
// engine and never the other way round. It consumes the small Backend
// interface defined here, in its own terms; bridge.go adapts the queue and
// the engine to it. The window reads the backend on a ticker (4 Hz while
// something runs, not at all when idle) and applies what it read inside
// fyne.Do: the engine never sends the window an event per byte.
package ui

import (
	"context"
	"fyne.io/fyne/v2/lang"
	"time"

	"braid/engine/metalink"
)

// JobID names a job in the queue.
type JobID int64

// Job is one row of the queue: what the list shows.
type Job struct {
	ID     JobID
	Name   string // the first selected file, and how many more
	Source string // as the user gave it
	Dir    string // destination folder
	State  JobState
	Size   int64         // bytes of the selected files; -1 when not known yet
	Done   int64         // bytes done
	Speed  float64       // bytes per second now; 0 when not running
	ETA    time.Duration // time left at the current speed; -1 when not known
	// Skipping is the bytes already on disk that a server which cannot
	// resume sends again before the ones the job needs (they count in
	// Speed and ETA).
	Skipping int64
	// Rebuilding is how many pieces no mirror could send good are being
	// rebuilt from the PAR2 parity set of a file of the job now.
	Rebuilding int
	// Mismatch marks a job with a file whose bytes did not match the
	// metalink's hash: the mark the list shows in red.
	Mismatch bool
	Err      string // why it failed, paused itself or waits, in a sentence (see Explain); "" otherwise
	// ErrDetail is the technical text behind Err, shown under "Details".
	ErrDetail string
	// Added is when the job joined the queue; zero when the backend
	// does not say (the Added column is then empty and sorts by ID).
	Added time.Time

	// What the states other than downloading need; see state.go for how
	// each is shown. NextTry is when a Waiting job tries again (zero:
	// not known).
	NextTry time.Time
	// Outcome says in words how a Done job was checked: "verified
	// (sha-256)", "not verified". Unverified marks a Done job that no
	// hash could check, which the window shows in amber.
	Outcome    string
	Unverified bool
	// Signer is who signed the document, when its signature checked out;
	// SignerUnknown marks a good signature by a key the user has not
	// said they trust.
	Signer        string
	SignerUnknown bool
	// Peers, Seeds, Ratio and Upload describe a torrent: peers connected,
	// of them seeds, bytes sent over bytes received, and bytes per
	// second sent now.
	Peers, Seeds int
	Ratio        float64
	Upload       float64
	// Sync marks a ResourceSync job: a folder kept a copy of a source's
	// list, which Sync again brings up to date.
	Sync bool
	// Torrent marks a BitTorrent job (set in Detail): the pane shows its
	// peers and trackers (peers.go).
	Torrent bool
	// Category is the category of the job's files (categories.go), ""
	// for none; WhenDone its action when done and WhenDoneNote what went
	// wrong when that ran (whendone.go).
	Category     string
	WhenDone     WhenDone
	WhenDoneNote WhenDoneNote
	// Limit is the job's own download limit in bytes per second, on top
	// of the one for all downloads; 0: none (see JobLimiter).
	Limit int64
	// SeedNote says, in a sentence, why a done torrent that was seeding
	// when Braid last stopped does not seed on; "" otherwise.
	SeedNote string
	// CheckNote says, in a sentence, why this session's last Verify or
	// Repair of the job could not record what it found; "" otherwise.
	CheckNote string
	// Mend is what the user can do to get a stopped job going (login.go).
	Mend Mend
}

// Progress is Done as a fraction of Size in [0, 1]; 0 when Size is unknown.
func (j Job) Progress() float64 {
	if j.Size <= 0 {
		if j.State == Done || j.State == Synced {
			return 1
		}
		return 0
	}
	return min(1, max(0, float64(j.Done)/float64(j.Size)))
}

// Detail is everything the details pane shows about one job.
type Detail struct {
	Job
	Files []FileDetail // selected files, in document order; then a torrent's skipped files (Skipped)
	// Publisher, Identity, Version, Description and Origin describe the
	// document the job came from, when it says.
	Publisher   string
	Identity    string
	Version     string
	Description string
	Origin      string
	License     string
	// Notice is news about the job from its publisher: a new version
	// found at a dynamic metalink's origin.
	Notice string
	// UnknownKey is the fingerprint of a key not in the keyring that
	// signed a file of the job, offered for import; Advice says how.
	UnknownKey string
	Advice     string
}

// FileState is where one file of a job is.
type FileState int

// The states of a file.
const (
	FileWaiting    FileState = iota // not started
	FileRunning                     // pieces are arriving
	FileVerifying                   // whole-file hash or repair scan
	FileVerified                    // at its final name, hash matched
	FileMismatch                    // the whole-file hash did not match
	FileFailed                      // could not be completed
	FileUnverified                  // at its final name, complete, no hash to check it against
	FilePaused                      // its job is paused: what it has stays
	FileQueued                      // its job waits its turn
	FileMissing                     // done, then moved or deleted: not at its name in its folder
	FileChanged                     // done, then changed: no longer its size
)

// String is the state as the window names it.
func (s FileState) String() string {
	switch s {
	case FileWaiting:
		return lang.L("Waiting")
	case FileRunning:
		return lang.L("Downloading")
	case FileVerifying:
		return lang.L("Verifying")
	case FileVerified:
		return lang.L("Verified")
	case FileMismatch:
		return lang.L("Checksum mismatch")
	case FileFailed:
		return lang.L("Failed")
	case FileUnverified:
		return lang.L("Not verified")
	case FilePaused:
		return lang.L("Paused")
	case FileQueued:
		return lang.L("Queued")
	case FileMissing:
		return lang.L("Not in its folder")
	case FileChanged:
		return lang.L("Changed since the download")
	}
	return lang.L("Unknown")
}

// FileDetail is one file of a job: its progress, mirrors and pieces.
type FileDetail struct {
	Name  string
	Size  int64 // -1 when not known yet
	Done  int64
	Speed float64
	ETA   time.Duration // -1 when not known
	State FileState
	Err   string // in a sentence (see Explain)
	// ErrDetail is the technical text behind Err, shown under "Details".
	ErrDetail string
	// SavedAs is the name the file is saved under, in the job's folder,
	// when a different file was already at Name; "" when it is at Name.
	SavedAs string

	Hashes []metalink.Hash // whole-file hashes the document carries
	// PieceLength is the bytes per piece; PieceHash the piece hash type,
	// "" when the document has no piece hashes (pieces then only track
	// progress).
	PieceLength int64
	PieceHash   string
	// PieceCount is how many pieces the file has, whether or not Pieces
	// is filled in (it is only for the Segments tab).
	PieceCount int
	// Signature is the media type of the signature the document carries
	// for the file, "" when unsigned; SignatureOutcome what checking it
	// found ("signed by …"), "" until checked.
	Signature        string
	SignatureOutcome string
	// Verification says in words what the last check found: for a done
	// file the same words as the job's row ("verified (sha-256)", "not
	// verified (no hash published)"), else how far a check is.
	Verification string
	// HasParity marks a file the document lists a PAR2 parity set for
	// (NAME.par2, NAME.volXX+YY.par2); ParityBlocks is how many recovery
	// blocks its volumes hold, each able to rebuild one damaged slice.
	HasParity    bool
	ParityBlocks int

	Mirrors []MirrorDetail
	Pieces  PieceMap

	// Skipped marks a torrent's file the user chose not to fetch;
	// Choosable one that can be fetched or skipped now: while its
	// torrent downloads, or while it is queued, paused or done and not
	// seeding (FileChooser, peers.go).
	Skipped, Choosable bool
	// High marks a torrent's file fetched before the others.
	High bool
}

// MirrorState is what one mirror is doing for a file.
type MirrorState int

// The states of a mirror.
const (
	MirrorIdle    MirrorState = iota // usable, not sending now
	MirrorActive                     // sending a segment
	MirrorWaiting                    // asked to retry later (429, 503, 421)
	MirrorDropped                    // dropped for this file: mismatch, strikes, errors
)

// String is the state as the window names it.
func (s MirrorState) String() string {
	switch s {
	case MirrorIdle:
		return lang.L("Idle")
	case MirrorActive:
		return lang.L("Active")
	case MirrorWaiting:
		return lang.L("Waiting")
	case MirrorDropped:
		return lang.L("Dropped")
	}
	return lang.L("Unknown")
}

// MirrorDetail is one mirror of a file and what it did.
type MirrorDetail struct {
	URL      string
	Host     string // host[:port], the mirror's name in the legend
	Location string // ISO 3166-1 alpha-2, or ""
	Priority int
	State    MirrorState
	Speed    float64 // bytes per second now
	Bytes    int64   // bytes of good pieces it sent; -1: not known (not run this session)
	Strikes  int     // pieces from it that failed their hash
	Err      string  // why it was dropped or is waiting
}

// Settings are the user's choices, kept in the queue database.
type Settings struct {
	Dir       string   // where downloads go
	Languages []string // BCP 47 tags, most preferred first
	OS        []string // operating systems, as metalinks name them
	Countries []string // ISO 3166-1 alpha-2 codes of preferred mirror locations
	// MaxConns is the total number of connections; MaxConnsPerMirror the
	// most to one mirror. 0 means the engine's default.
	MaxConns          int
	MaxConnsPerMirror int
	// SpeedLimit is the most bytes per second for all downloads; 0: none.
	SpeedLimit int64
	// AltSpeedLimit is the slower limit the Slow button switches to;
	// 0: none.
	AltSpeedLimit int64
	// MaxJobs is how many downloads run at once; 0: the default (3).
	MaxJobs int
	// StartOnLaunch runs queued jobs when Braid starts; otherwise they wait
	// for Resume.
	StartOnLaunch bool
	// RequireSignature fails a file unless a key of the keyring signed
	// it; a bad signature fails it either way.
	RequireSignature bool
	Torrent          TorrentSettings // BitTorrent (torrentsettings.go)
}

// Prefs returns the picker's filters from the settings.
func (s Settings) Prefs() metalink.Prefs {
	return metalink.Prefs{Languages: s.Languages, OS: s.OS, Locations: s.Countries}
}

// AddRequest is what the picker hands to the backend.
type AddRequest struct {
	Source string             // as the user gave it
	Doc    *metalink.Document // the opened document
	Files  []string           // names of the ticked files
	Dir    string             // destination folder
	Prefs  metalink.Prefs     // filters the user settled on, for mirror order
	Paused bool               // add without starting
	// Sync asks for a sync job: Doc was read from a ResourceSync source
	// (Syncer.SyncDocument), and the folder is kept a copy of all of it.
	Sync bool
	// Members, when set, asks for one member job per path: Doc is a ZIP
	// archive's document (one file) and these are paths inside it, as
	// ArchiveReader listed them; Files is then empty.
	Members []string
}

// Backend is everything the window asks of the queue and the engine. Its
// methods are called from the window's goroutines (the UI goroutine for
// commands, the ticker's goroutine for reads) and must be safe for
// concurrent use. Reads must be cheap: Active and Detail run four times a
// second while something downloads.
type Backend interface {
	// Jobs lists the whole queue in queue order. With an error it may
	// still list the jobs it knew, in state Unknown, which the window
	// shows beside the error.
	Jobs() ([]Job, error)
	// Active returns live progress of the jobs whose progress is changing
	// (running or verifying, and queued jobs the runner is about to start),
	// read from memory without a database round trip. The window reads it
	// on its ticker and stops ticking while it is empty, so it must not
	// list queued jobs that wait for the user's Resume.
	Active() []Job
	// Detail returns the details of one job; for a running job, live.
	// FileDetail.Pieces is filled only when pieces is true: it costs a copy
	// of every piece's state, and only the Segments tab needs it.
	Detail(id JobID, pieces bool) (Detail, error)

	// Open reads a source (a .meta4, .metalink or .torrent path, a URL,
	// a magnet link) into a document for the picker. A magnet link's
	// metadata comes from peers first, which may take long: Open returns
	// when ctx ends (the window's Cancel).
	Open(ctx context.Context, source string) (*metalink.Document, error)
	// Add puts the picked files in the queue, running unless req.Paused.
	Add(ctx context.Context, req AddRequest) (JobID, error)

	Pause(id JobID) error
	Resume(id JobID) error
	// Remove takes a job out of the queue, stopping it; files on disk stay.
	Remove(id JobID) error
	// Move puts a job at index (0 first) in the queue order.
	Move(id JobID, index int) error

	// Verify checks a finished job's files against their hashes; Repair
	// fetches only the pieces that fail. Both return once started; the
	// job's state shows their progress and Detail their result.
	Verify(id JobID) error
	Repair(id JobID) error

	Settings() (Settings, error)
	SetSettings(Settings) error

	// Schedule returns when downloads may run and which speed limit is in
	// force; SetSchedule stores it. The backend enforces it.
	Schedule() (Schedule, error)
	SetSchedule(Schedule) error
}

// Notifier is a Backend that can tell when the set of live jobs may have
// changed (the runner took up a job, finished one, a check began or
// ended). The window sleeps while nothing is live; a Notifier wakes it,
// where a plain Backend is read again only after the user's commands.
type Notifier interface {
	// Changes delivers a value after such a change. Values may be
	// coalesced; the channel is never closed.
	Changes() <-chan struct{}
}

// Key is one public key of the user's keyring, as the settings list it.
type Key struct {
	Name, Email string
	Fingerprint string // upper-case hex
	Revoked     bool
}

// Keyring is a Backend that keeps the OpenPGP keys the user trusts to
// sign downloads: the settings dialog shows a Keys section for it.
type Keyring interface {
	// Keys lists the keyring's keys in the order they were imported.
	Keys() ([]Key, error)
	// ImportKey adds the keys of source, a file path or an http(s) URL.
	ImportKey(ctx context.Context, source string) ([]Key, error)
	// RemoveKey takes the key with the fingerprint out of the keyring.
	RemoveKey(fingerprint string) error
}

// RemoteControl is a Backend that can answer aria2 clients (AriaNg, the
// browser extensions made for aria2) with aria2's JSON-RPC: the settings
// dialog shows a Remote control section for it.
type RemoteControl interface {
	// Remote is the remote control as it stands.
	Remote() Remote
	// SetRemote turns the remote control on (at r.Address) or off, and
	// returns it as it stands then; a new secret is made when r.Secret is
	// "". The error says why it could not be turned on.
	SetRemote(r Remote) (Remote, error)
}

// Remote is the remote control's state.
type Remote struct {
	On      bool
	Address string // host:port to listen on, loopback by default
	// Secret is what clients send as token:SECRET. It is not stored in
	// the queue's database: a new one is made for each start of Braid.
	Secret string
	// Endpoint is where clients reach it while it is on
	// (http://127.0.0.1:6800/jsonrpc); "" while off.
	Endpoint string
}

// Seeder is a Backend whose finished torrents seed on: Pause stops a
// seeding job's seeding for a while (Resume seeds it again), StopSeeding
// for good, leaving it done.
type Seeder interface {
	StopSeeding(id JobID) error
}

// Syncer is a Backend that runs ResourceSync jobs (Job.Sync): Add with a
// document Open read from a ResourceSync source starts one.
type Syncer interface {
	// SyncDocument reports whether doc, read by Open, came from a
	// ResourceSync source.
	SyncDocument(doc *metalink.Document) bool
	// SyncAgain brings a sync job's folder up to date with its source.
	SyncAgain(id JobID) error
}
