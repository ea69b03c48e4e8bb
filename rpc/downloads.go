// Package rpc is aria2-compatible JSON-RPC over Braid's queue: the
// endpoint /jsonrpc answers aria2's methods over HTTP POST (single calls
// and batches) and over a WebSocket on the same path, which also carries
// aria2's notifications, so aria2 clients (AriaNg, webui-aria2, aria2p,
// the aria2 npm package, browser extensions made for aria2) drive Braid
// unchanged.
//
// The server knows Braid's jobs only through Downloads, a small port
// defined here; queue.go adapts today's queue and runner to it.
package rpc

import (
	"context"
	"errors"
	"time"
)

// Downloads is what the server needs of Braid's queue. Every method is
// called from the server's request goroutines, several at once, and must
// be safe for concurrent use. IDs are the queue's job IDs; the server
// turns them into aria2 GIDs (see GID).
type Downloads interface {
	// AddURIs adds one download from URIs that are mirrors of one file
	// (aria2's addUri): the first is resolved (a plain URL, a metalink's
	// URL, a .torrent URL or a magnet link), the rest join its mirrors.
	AddURIs(ctx context.Context, uris []string, o AddOptions) (int64, error)
	// AddTorrent adds the .torrent in b; webSeeds are extra BEP 19 web
	// seeds (aria2's addTorrent uris).
	AddTorrent(ctx context.Context, b []byte, webSeeds []string, o AddOptions) (int64, error)
	// AddMetalink adds the Metalink document in b (Metalink 4 or 3) as
	// one job and returns its ID in a slice (aria2 returns one GID per
	// file; Braid keeps a document's files in one job).
	AddMetalink(ctx context.Context, b []byte, o AddOptions) ([]int64, error)
	// Pause stops a waiting or active download, keeping its progress; a
	// paused one stays paused. A finished one is ErrState.
	Pause(id int64) error
	// Unpause makes a paused download waiting again.
	Unpause(id int64) error
	// Remove takes a download out of the queue; files on disk stay.
	Remove(id int64) error
	// Move puts a download at index (0 first) of the whole queue order,
	// clamped to its ends.
	Move(id int64, index int) error
	// Status is one download as it is now; ErrNotFound when there is none.
	Status(id int64, want Want) (Job, error)
	// List is every download, in queue order.
	List(want Want) ([]Job, error)
	// JobOptions and SetJobOptions read and change one download's options.
	JobOptions(id int64) (JobOptions, error)
	SetJobOptions(id int64, o JobOptions) error
	// GlobalOptions and SetGlobalOptions read and change the queue's
	// settings that aria2 calls global options.
	GlobalOptions() (GlobalOptions, error)
	SetGlobalOptions(o GlobalOptions) error
}

// Errors a Downloads returns, wrapped; the server tests them with
// errors.Is. Any other error is passed to the client as aria2's error
// code 1 with its text.
var (
	// ErrNotFound: no download with that ID.
	ErrNotFound = errors.New("no such download")
	// ErrState: not possible in the download's state (unpause one that
	// is not paused, pause a finished one).
	ErrState = errors.New("not possible in the download's state")
	// ErrUnsupported: an option or a kind of source this Braid does not
	// take; the message says which.
	ErrUnsupported = errors.New("not supported by Braid")
)

// AddOptions are aria2's options of a new download that Braid honours.
type AddOptions struct {
	// Dir is the folder to save in; "" means the default folder.
	Dir string
	// Out is the file name to save a single-file download under.
	Out string
	// Pause adds the download paused (aria2's pause=true).
	Pause bool
	// Headers are extra HTTP request headers ("Name: value"); Referer
	// and UserAgent come from aria2's own options. They may carry
	// cookies: never log them.
	Headers   []string
	Referer   string
	UserAgent string
	// HTTPUser and HTTPPasswd, FTPUser and FTPPasswd are the logins for
	// the download's servers (aria2's http-user, ftp-user...); never log
	// the passwords.
	HTTPUser, HTTPPasswd string
	FTPUser, FTPPasswd   string
	// AllProxy is the download's own proxy for its HTTP(S) and FTP
	// servers (aria2's all-proxy), with AllProxyUser and AllProxyPasswd
	// its login, and NoProxy the hosts it reaches directly; "": the
	// proxy Braid is set to. Never log the password.
	AllProxy, AllProxyUser, AllProxyPasswd string
	NoProxy                                string
	// MaxDownloadLimit is the download's own speed limit in bytes per
	// second (aria2's max-download-limit); 0: none.
	MaxDownloadLimit int64
}

// State is a download's status in aria2's words.
type State string

// aria2's statuses. Removed is the server's own: a download removed
// through the RPC is remembered as removed until its result is purged.
const (
	Active   State = "active"
	Waiting  State = "waiting"
	Paused   State = "paused"
	Error    State = "error"
	Complete State = "complete"
	Removed  State = "removed"
)

// Stopped reports whether s is one of aria2's stopped statuses.
func (s State) Stopped() bool { return s == Error || s == Complete || s == Removed }

// Want says which costly parts of a Job a caller needs.
type Want struct {
	// URIs: each file's mirrors (File.URIs).
	URIs bool
	// Bitfield: the pieces done (Job.Bitfield).
	Bitfield bool
}

// Job is one download as the server shows it.
type Job struct {
	ID      int64
	AddedAt time.Time // with ID, makes the GID (see GID)
	State   State
	Dir     string // absolute
	Name    string // how Braid names the job
	Source  string // without credentials
	// Error is why the download failed, or why Braid paused it.
	Error string
	// Length and Completed are bytes of the selected files; Length is 0
	// while a size is unknown (aria2 says 0 too).
	Length, Completed int64
	Speed             int64 // bytes per second now
	Uploaded          int64 // BitTorrent: bytes uploaded
	UploadSpeed       int64
	Connections       int
	PieceLength       int64
	Pieces            int
	// Bitfield has one bit per piece of the selected files, in file
	// order, the highest bit of the first byte for piece 0; set when
	// Want.Bitfield.
	Bitfield []byte
	Files    []File
	// InfoHash is the torrent's, in hex, for a BitTorrent download;
	// Seeders are the connected peers that have it all, and Seeding is
	// set while it uploads after it completed.
	InfoHash string
	Seeders  int
	Seeding  bool
	// Trackers are the torrent's announce list, tier by tier (aria2's
	// bittorrent.announceList), credentials in their URLs removed.
	Trackers [][]string
	// Referer is the page the download was added from (aria2's
	// referer option), "" when none was given.
	Referer string
	// Checked says what was checked of a finished download ("verified
	// (sha-256)", "not verified (no hash published)"); Braid's own fact.
	Checked string
}

// File is one file of a download.
type File struct {
	Path      string // absolute
	Length    int64
	Completed int64
	Selected  bool
	// VerifiedBy names the hash that proved the file, once done.
	VerifiedBy string
	URIs       []URI // set when Want.URIs
}

// URI is one mirror of a file.
type URI struct {
	URI string
	// Used: a connection is on it now.
	Used  bool
	Speed int64
}

// JobOptions are one download's options.
type JobOptions struct {
	// MaxDownloadLimit is bytes per second; 0: no limit of its own.
	MaxDownloadLimit int64
	// AllProxy, AllProxyUser and NoProxy are the download's own proxy
	// (AddOptions.AllProxy), its user and the hosts it reaches directly;
	// they cannot change once added. The password is never read back.
	AllProxy, AllProxyUser, NoProxy string
}

// GlobalOptions are the queue-wide settings aria2 clients change, with
// their real values (defaults filled in).
type GlobalOptions struct {
	Dir                string // where downloads without a dir go
	MaxConcurrent      int    // downloads at once
	MaxOverallDownload int64  // bytes per second over all; 0: none
	MaxOverallUpload   int64  // BitTorrent, bytes per second; 0: none
	// MaxConnectionsPerSrv is how many connections one download opens to
	// one server (aria2's max-connection-per-server); at least 1.
	MaxConnectionsPerSrv int
	// SeedRatio and SeedTime end the seeding of a finished torrent: it
	// seeds until it has sent SeedRatio times its size (0: it does not
	// seed), or for SeedTime (0: no time limit). They hold for torrents
	// that finish from when they are changed.
	SeedRatio float64
	SeedTime  time.Duration
	// Discovery: torrents find peers through trackers, DHT and PEX.
	Discovery bool
}
