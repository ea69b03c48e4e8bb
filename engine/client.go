// Package engine braids one file together from many mirrors at once. A
// Client holds the limits shared by every download; Client.Do starts one
// download and returns a Download to watch it, the way net/http's Client.Do
// returns a Response:
//
//	dl := client.Do(ctx, &engine.Request{Dir: dir, File: file})
//	for !done { show(dl.Snapshot()) }
//	err := dl.Err()
//
// The file is fetched in segments (runs of contiguous missing pieces), one
// connection per mirror by default. Every piece is hashed as it streams in;
// a mirror that sends a bad piece gets a strike and the piece is fetched
// from another. The file is written as NAME.part inside Request.Dir, through
// an os.Root so nothing can lead the writes out of it, and renamed to NAME
// only after the whole-file hash matches.
package engine

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"

	"braid/engine/metalink"
	"braid/engine/piece"
)

// Defaults for the zero values of Client's fields.
const (
	DefaultMaxConns          = 16
	DefaultMaxConnsPerMirror = 1 // RFC 6249 §7: one range request per mirror
	DefaultStallTimeout      = 2 * time.Second
)

// Client downloads files. Its fields are read when its first download
// starts and must not change afterwards. A Client is safe for concurrent
// use: MaxConns and Limit hold for the sum of all its downloads.
type Client struct {
	// HTTP is the HTTP client for http and https mirrors; nil uses the
	// transport's default.
	HTTP *http.Client
	// MaxConns caps the connections open at once across all downloads;
	// 0 means DefaultMaxConns.
	MaxConns int
	// MaxConnsPerMirror caps the connections to one mirror of one file;
	// 0 means DefaultMaxConnsPerMirror. A mirror whose metalink entry
	// allows fewer gets fewer, and one that answers 503 gets fewer still.
	MaxConnsPerMirror int
	// Limit caps the download rate in bytes per second across all
	// connections; 0 means no limit.
	Limit int64
	// UserAgent is sent to HTTP mirrors; "" uses the transport's default.
	UserAgent string
	// StallTimeout is how long a connection that has begun to receive may
	// go without a byte before it is cut and its work handed on; 0 means
	// DefaultStallTimeout. A mirror gets five times as long for the first
	// byte of an answer. Near the end of a file a stalled or very slow
	// connection is cut sooner, as soon as a faster mirror is idle.
	StallTimeout time.Duration

	once sync.Once
	sem  chan struct{} // one token per open connection
	lim  *limiter
}

func (c *Client) init() {
	c.once.Do(func() {
		n := c.MaxConns
		if n <= 0 {
			n = DefaultMaxConns
		}
		c.sem = make(chan struct{}, n)
		c.lim = newLimiter(c.Limit)
	})
}

func (c *Client) perMirror() int {
	if c.MaxConnsPerMirror > 0 {
		return c.MaxConnsPerMirror
	}
	return DefaultMaxConnsPerMirror
}

func (c *Client) stallTimeout() time.Duration {
	if c.StallTimeout > 0 {
		return c.StallTimeout
	}
	return DefaultStallTimeout
}

// Request is one file to download.
type Request struct {
	// Dir is the folder the file goes in. Every write goes through
	// os.Root(Dir): a name or symlink that leads outside Dir fails.
	Dir string
	// File is the file to fetch: its name (which may hold '/'), size,
	// hashes and mirrors. Its MaxConnections, when set, caps the requests
	// in progress to all its mirrors together, size probes included
	// (1: one at a time, no segmented download).
	File metalink.File
	// OriginETag is the ETag the origin server sent (Metalink/HTTP);
	// mirrors marked Pref must send the same one, or they are dropped.
	OriginETag string
	// Referer is sent to HTTP mirrors (RFC 6249 §7 asks for the URL of the
	// original request); "" sends none.
	Referer string
	// Done, for a resume, marks pieces already verified and on disk in
	// NAME.part (piece.PlanFor(File) gives the layout). nil starts afresh.
	// Do takes a copy.
	Done *piece.Bitfield
	// Journal, when not nil, is told which pieces are durably done.
	Journal Journal
	// Locations are the user's countries (ISO 3166-1 alpha-2), most
	// preferred first: mirrors there are tried first among equal priority.
	Locations []string
	// Check, when not nil, is the last word on a finished file (its
	// OpenPGP signature): it reads the file's bytes after every hash
	// matched and before the rename; an error keeps NAME.part and ends the
	// download with it. A verified file found at its final name is checked
	// too, and an error there leaves it alone and fails the download.
	Check func(ctx context.Context, file io.Reader) error
}

// Download is a running or finished download. Its methods are safe for
// concurrent use from any goroutine.
type Download struct {
	d      *download
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// Do starts downloading req's file and returns at once. Canceling ctx, or
// calling Cancel, stops the download, keeping NAME.part and the journal for
// a resume (that is how a download is paused). Do does not keep req.
func (c *Client) Do(ctx context.Context, req *Request) *Download {
	c.init()
	ctx, cancel := context.WithCancel(ctx)
	dl := &Download{cancel: cancel, done: make(chan struct{})}
	dl.d = newDownload(c, req)
	go func() {
		defer close(dl.done)
		defer cancel()
		dl.err = dl.d.run(ctx)
	}()
	return dl
}

// Done is closed when the download has ended, well or not.
func (dl *Download) Done() <-chan struct{} { return dl.done }

// Err blocks until the download ends and returns nil if the file is at its
// final name and verified, or why not. A canceled download's error wraps
// context.Canceled.
func (dl *Download) Err() error {
	<-dl.done
	return dl.err
}

// Cancel stops the download, waits until it has ended and returns Err.
func (dl *Download) Cancel() error {
	dl.cancel()
	return dl.Err()
}

// Snapshot returns the download's state now. It is cheap enough to call a
// few times a second: it copies one byte and one int16 per piece.
func (dl *Download) Snapshot() Snapshot {
	var s Snapshot
	dl.d.snapshot(&s)
	return s
}

// SnapshotInto is Snapshot writing into s, reusing the memory of its
// slices, for a caller that polls on a timer and wants no garbage.
func (dl *Download) SnapshotInto(s *Snapshot) { dl.d.snapshot(s) }
