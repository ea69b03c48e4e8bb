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
	"sync/atomic"
	"time"

	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/engine/piece"
)

// Defaults for the zero values of Client's fields.
const (
	DefaultMaxConns          = 16
	DefaultMaxConnsPerMirror = 1 // RFC 6249 §7: one range request per mirror
	// DefaultMaxConnsPerHost caps the connections to one server across all
	// files, as browsers do: enough to keep a mirror busy between the
	// small files of a batch, few enough to be polite.
	DefaultMaxConnsPerHost = 6
	DefaultStallTimeout    = 2 * time.Second
	DefaultMaxBackoff      = time.Minute
)

// Client downloads files. Its fields are read when its first download
// starts; afterwards the limits change only through SetLimit, SetMaxConns,
// SetMaxConnsPerMirror and SetMaxConnsPerHost, which apply to running
// downloads within a dispatcher tick. A Client is safe for concurrent use:
// MaxConns, MaxConnsPerHost and Limit hold for the sum of all its
// downloads.
type Client struct {
	// HTTP is the HTTP client for http and https mirrors; nil uses
	// Network's, one client whose kept-alive connections every file and
	// download share.
	HTTP *http.Client
	// Network routes every connection the Client opens, HTTP and FTP,
	// through the proxies it sets; nil is netconf.Default(), the
	// environment as curl reads it. One per process: give the same one to
	// the BitTorrent client and to whatever resolves sources.
	Network *netconf.Network
	// MaxConns caps the connections open at once across all downloads;
	// 0 means DefaultMaxConns.
	MaxConns int
	// MaxConnsPerMirror caps the connections to one mirror of one file;
	// 0 means DefaultMaxConnsPerMirror. A mirror whose metalink entry
	// allows fewer gets fewer, and one that answers 503 gets fewer still.
	MaxConnsPerMirror int
	// MaxConnsPerHost caps the connections to one host (host and port)
	// across all files and downloads; 0 means DefaultMaxConnsPerHost.
	MaxConnsPerHost int
	// Limit caps the download rate in bytes per second across all
	// connections; 0 means no limit.
	Limit int64
	// Limiter, when set, is the download budget the Client takes from in
	// place of one of its own: give the same one to several Clients and to
	// the BitTorrent client (torrent.Config.Downloads) and one limit holds
	// for all of them. Limit is then not used; SetLimit changes the shared
	// rate.
	Limiter *Limiter
	// UserAgent is sent to HTTP mirrors; "" uses the transport's default.
	UserAgent string
	// StallTimeout is how long a connection that has begun to receive may
	// go without a byte before it is cut and its work handed on; 0 means
	// DefaultStallTimeout. A mirror gets five times as long for the first
	// byte of an answer. Near the end of a file a stalled or very slow
	// connection is cut sooner, as soon as a faster mirror is idle.
	StallTimeout time.Duration
	// MaxBackoff caps the wait between tries of a mirror that failed with
	// a temporary error (see Request.RetryFor); 0 means DefaultMaxBackoff.
	MaxBackoff time.Duration

	once         sync.Once
	budget       *budget
	lim          *Limiter
	perMirrorCap atomic.Int64
}

func (c *Client) init() {
	c.once.Do(func() {
		n := c.MaxConns
		if n <= 0 {
			n = DefaultMaxConns
		}
		h := c.MaxConnsPerHost
		if h <= 0 {
			h = DefaultMaxConnsPerHost
		}
		c.budget = newBudget(n, h)
		c.lim = c.Limiter
		if c.lim == nil {
			c.lim = NewLimiter(c.Limit)
		}
		m := c.MaxConnsPerMirror
		if m <= 0 {
			m = DefaultMaxConnsPerMirror
		}
		c.perMirrorCap.Store(int64(m))
	})
}

func (c *Client) perMirror() int {
	c.init()
	return int(c.perMirrorCap.Load())
}

func (c *Client) stallTimeout() time.Duration {
	if c.StallTimeout > 0 {
		return c.StallTimeout
	}
	return DefaultStallTimeout
}

// HTTPClient is the client the Client's downloads use: HTTP, else
// Network's. Resolving a source and fetching a signature should use it
// (wrapped by a job's Session.Client) so they take the same proxy.
func (c *Client) HTTPClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return c.network().HTTPClient()
}

func (c *Client) network() *netconf.Network {
	if c.Network != nil {
		return c.Network
	}
	return netconf.Default()
}

// Limits are a Client's limits in force, defaults filled in.
type Limits struct {
	MaxConns, MaxConnsPerMirror, MaxConnsPerHost int
	Limit                                        int64 // bytes per second; 0: none
}

// Limits returns the limits in force now.
func (c *Client) Limits() Limits {
	c.init()
	total, host := c.budget.caps()
	return Limits{MaxConns: total, MaxConnsPerMirror: c.perMirror(), MaxConnsPerHost: host, Limit: c.lim.Rate()}
}

// FilesAtOnce is how many files of a batch a caller should keep
// downloading at once to keep the connection budget busy: twice the
// connections, so that when one file ends, another is ready to take its
// connection while the first is renamed and recorded.
func (c *Client) FilesAtOnce() int { return 2 * c.Limits().MaxConns }

// SetLimit changes the rate limit (bytes per second over all connections;
// 0 removes it) for the downloads running and to come.
func (c *Client) SetLimit(bytesPerSec int64) {
	c.init()
	c.lim.SetRate(bytesPerSec)
}

// DownloadLimiter is the budget the Client's connections take from: the
// Limiter it was given, or its own.
func (c *Client) DownloadLimiter() *Limiter {
	c.init()
	return c.lim
}

// SetMaxConns changes the total connection cap (n <= 0: the default). When
// it drops below the connections open, the newest are cut within a tick and
// their pieces handed on.
func (c *Client) SetMaxConns(n int) {
	c.init()
	if n <= 0 {
		n = DefaultMaxConns
	}
	c.budget.set(n, 0)
}

// SetMaxConnsPerHost changes the cap on connections to one host across all
// downloads (n <= 0: the default), cutting the newest beyond it.
func (c *Client) SetMaxConnsPerHost(n int) {
	c.init()
	if n <= 0 {
		n = DefaultMaxConnsPerHost
	}
	c.budget.set(0, n)
}

// SetMaxConnsPerMirror changes the cap on connections to one mirror of one
// file (n <= 0: the default). A raise lets running downloads open more
// within a tick; connections beyond a lowered cap finish their segment.
func (c *Client) SetMaxConnsPerMirror(n int) {
	c.init()
	if n <= 0 {
		n = DefaultMaxConnsPerMirror
	}
	c.perMirrorCap.Store(int64(n))
	c.budget.set(0, 0) // wake dispatchers waiting for a connection
}

// smallFile is the size up to which a file of a batch (Request.Batch) comes
// whole from one mirror in one request: splitting it would cost more in
// requests than it wins in speed.
const smallFile = 4 << 20

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
	// Net is the job's logins, cookies and headers (netconf.Settings.Open):
	// HTTP requests go through Net.Client, FTP logs in with Net.FTPLogin
	// where a link has no credentials. nil: only the links' own
	// credentials. Its Referer, when set, replaces Referer.
	Net *netconf.Session
	// Done, for a resume, marks pieces already verified and on disk in
	// NAME.part (piece.PlanFor(File) gives the layout). nil starts afresh.
	// Do takes a copy.
	Done *piece.Bitfield
	// SaveAs is the name an earlier run of this download chose (see
	// Snapshot.SavedAs), to resume there; "" uses File.Name.
	SaveAs string
	// Landed says that the file at SaveAs (or File.Name) is this
	// download's own, finished by an earlier run, as the caller recorded.
	// Without a hash to check it by, it is then taken as done (and still
	// not verified) instead of fetched again beside itself; with one, it
	// must match, like any file found at the name.
	Landed bool
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
	// Batch says the file is one of many downloading at once. A small
	// batch file comes whole from one mirror, in one request; the
	// per-host cap spreads the batch over the mirrors. A large one is
	// braided as usual.
	Batch bool
	// RetryFor bounds how long the download may wait in StateWaiting,
	// every mirror backing off after temporary errors, before it fails
	// with ErrGaveUp; 0 waits as long as it takes (what a queue wants).
	RetryFor time.Duration
	// Limiter, when set, is this download's own rate limit, on top of the
	// Client's: its connections take from both. Give the same one to the
	// downloads of one job for a limit on the job; change it with SetRate
	// while they run. nil: only the Client's limit.
	Limiter *Limiter
	// InOrder hands the file's pieces out from the front, in small
	// segments, so that its start is whole and usable while the rest
	// arrives (see inorder.go); the mirrors still fill the next pieces side
	// by side. It costs a little throughput.
	InOrder bool
	// Parity, when set, rebuilds from the file's PAR2 parity set the
	// pieces no mirror can send good (every mirror sent bad data for
	// them, or none is left), once every other piece is done: it writes
	// them into Mend.Part in place. For a file without piece hashes it is
	// also asked when the whole-file hash does not match, with Damaged
	// empty and Checked false: it finds the damage by the set's own
	// checksums, before any mirror is suspected. The engine then checks each rebuilt
	// piece against its hash and the file against its whole-file hash,
	// read in full (Snapshot.Rebuilt counts the pieces). Asked at most
	// once a download; an error ends it (wrapping ErrParity), keeping
	// NAME.part and the pieces done for a later try.
	Parity func(ctx context.Context, m *Mend) error
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
	if f := req.File; req.Batch && f.Size >= 0 && f.Size <= smallFile && f.MaxConnections == 0 {
		r := *req
		r.File.MaxConnections = 1
		req = &r
	}
	dl.d = newDownload(c, req)
	dl.d.perMirror = c.perMirror()
	if req.File.MaxConnections == 1 && req.Batch && req.OriginETag == "" {
		// A small file of a batch asks each mirror no question first: its
		// one request's answer says the size (the transport checks it)
		// and the hashes check the bytes, and a probe would double the
		// requests of a batch whose time goes in requests.
		for _, m := range dl.d.mirrors {
			m.probed = true
		}
	}
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
