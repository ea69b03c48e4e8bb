// Package torrent runs BitTorrent downloads for Braid: one
// anacrolix/torrent client for the app, over Braid's own storage (safe
// names, os.Root, NAME.part renamed when every piece of the file verifies,
// piece completion kept by the caller so a restart resumes exactly), with
// progress in the shape of engine.Snapshot.
package torrent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anacrolix/dht/v2"
	alog "github.com/anacrolix/log"
	"github.com/anacrolix/torrent"
	"github.com/anacrolix/torrent/metainfo"
	"github.com/anacrolix/torrent/storage"

	"braid/engine"
	"braid/engine/netconf"
)

// Config is the app's BitTorrent setup, given once to NewClient.
type Config struct {
	// ListenHost is the address to listen on: "" for every address,
	// "127.0.0.1" in tests.
	ListenHost string
	// ListenPort is the port to listen on for peers; 0 picks a free one.
	ListenPort int
	// DHT, PEX and Trackers turn on peer discovery beyond the peers a
	// source names; all three are off in tests.
	DHT, PEX, Trackers bool
	// DownloadLimit and UploadLimit are in bytes per second for all
	// torrents together; 0 means none. See Client.SetLimits.
	DownloadLimit, UploadLimit int64
	// Downloads, when set, is the download budget shared with the HTTP
	// engine (engine.Client.DownloadLimiter), so one limit holds for
	// HTTP, FTP and BitTorrent together; DownloadLimit is then not used
	// and SetLimits changes the shared rate.
	Downloads *engine.Limiter
	// Uploads, when set, is the upload budget shared with other clients
	// (braid get makes one per torrent), made by engine.NewUploadLimiter;
	// UploadLimit is then not used.
	Uploads *engine.Limiter
	// Logger receives the library's logs; nil: slog.Default().
	Logger *slog.Logger
	// HTTP fetches .torrent files and web seeds; nil: Network's client.
	HTTP *http.Client
	// Network routes the client's connections through the proxies it
	// sets: HTTP trackers (HTTPProxy), web seeds and .torrent files
	// (WebTransport, MetainfoSourcesClient, unless HTTP is set), and peer
	// connections over TCP when a proxy is set for them (all_proxy or a
	// manual proxy). uTP, the DHT and UDP trackers cannot go through a
	// proxy. nil: direct, as before.
	Network *netconf.Network

	// dhtNodes, when set, replaces the DHT's bootstrap nodes (tests: a
	// DHT that reaches nobody, as offline, without leaving loopback).
	dhtNodes dht.StartingNodesGetter
	// idleDrop, when set, replaces idleDrop (tests: a stall met in
	// seconds).
	idleDrop time.Duration
	// idleClosed, when set, is called for each connection the idle
	// watch closes (tests: a peer kept is one never closed as idle).
	idleClosed func()
}

// Client is the app's one BitTorrent client. It starts with the first
// job (Start) and is safe for concurrent use.
type Client struct {
	cfg  Config
	down *engine.Limiter // maybe shared with the HTTP engine
	up   *engine.Limiter

	mu     sync.Mutex
	cl     *torrent.Client
	jobs   map[*torrent.Torrent]*Job
	closed bool
}

// NewClient returns a client that has not started yet: nothing listens
// until the first Start.
func NewClient(cfg Config) *Client {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	c := &Client{
		cfg:  cfg,
		down: cfg.Downloads,
		up:   cfg.Uploads,
		jobs: map[*torrent.Torrent]*Job{},
	}
	if c.down == nil {
		c.down = engine.NewLimiter(cfg.DownloadLimit)
	}
	if c.up == nil {
		c.up = engine.NewUploadLimiter(cfg.UploadLimit)
	}
	return c
}

// keepAliveEvery is the longest a peer connection's writer sleeps; see
// client().
const keepAliveEvery = 5 * time.Second

// SetLimits changes the download and upload limits (bytes per second, 0:
// none) for all torrents, running or not. With Config.Downloads the
// download limit is the one shared with the HTTP engine.
func (c *Client) SetLimits(down, up int64) {
	c.down.SetRate(down)
	c.up.SetRate(up)
}

// Limits returns the download and upload limits in force (bytes per
// second, 0: none).
func (c *Client) Limits() (down, up int64) { return c.down.Rate(), c.up.Rate() }

// SetUploadLimit changes the upload limit alone (bytes per second, 0:
// none), leaving the download limit to whoever owns it.
func (c *Client) SetUploadLimit(up int64) { c.up.SetRate(up) }

// noStorage refuses a torrent added without Braid's storage.
type noStorage struct{}

func (noStorage) OpenTorrent(context.Context, *metainfo.Info, metainfo.Hash) (storage.TorrentImpl, error) {
	return storage.TorrentImpl{}, errors.New("a torrent was added without Braid's storage")
}

// MaxPeerRequestData is the upload buffer allowed per peer connection.
// anacrolix/torrent v1.59.1 deadlocks a seeding connection once a peer has
// more requests queued than this covers: its one reader goroutine serves
// requests in map order, while the buffer is granted in arrival order to
// requests it has not read yet, so nothing is ever sent again (a leecher
// stalls after 1 MiB with the default). 1024 requests (the most a
// connection accepts) of 16 KiB chunks never wait.
const MaxPeerRequestData = 1024 * 16 << 10

// globalLog is the handler of the library's global logger (alog.Default,
// used by code that has no client at hand): the first client's
// Config.Logger, slog's default before one starts.
var globalLog atomic.Pointer[slog.Logger]

// toGlobalLog is alog.Default's one handler, set while the package
// initialises: every anacrolix client reads alog.Default when it starts
// (log.NewLogger), and setting it later raced with another client
// starting at that moment (a test's seeder; the race detector failed
// TestMagnetThroughTheWindowSeeds). The handler reads globalLog
// atomically instead.
type toGlobalLog struct{}

func (toGlobalLog) Handle(r alog.Record) {
	l := globalLog.Load()
	if l == nil {
		l = slog.Default()
	}
	alog.SlogHandlerAsHandler{SlogHandler: l.Handler()}.Handle(r)
}

func init() { alog.Default.SetHandlers(toGlobalLog{}) }

// How long client waits for a fixed port to be free, trying every
// portRetry.
const (
	portFreedIn = 3 * time.Second
	portRetry   = 50 * time.Millisecond
)

// client starts the anacrolix client on first use.
func (c *Client) client() (*torrent.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("the BitTorrent client is closed")
	}
	if c.cl != nil {
		return c.cl, nil
	}
	globalLog.CompareAndSwap(nil, c.cfg.Logger)
	tc := torrent.NewDefaultClientConfig()
	if host := c.cfg.ListenHost; host != "" {
		tc.ListenHost = func(string) string { return host }
		if ip := net.ParseIP(host); ip != nil && ip.To4() != nil {
			tc.DisableIPv6 = true
		}
	}
	tc.ListenPort = c.cfg.ListenPort
	tc.NoDHT = !c.cfg.DHT
	// Each job announces to the DHT itself, waiting after a failure
	// instead of spinning (see announceDHT).
	tc.PeriodicallyAnnounceTorrentsToDht = false
	if nodes := c.cfg.dhtNodes; nodes != nil {
		tc.DhtStartingNodes = func(string) dht.StartingNodesGetter { return nodes }
	}
	tc.DisablePEX = !c.cfg.PEX
	tc.DisableTrackers = !c.cfg.Trackers
	tc.NoDefaultPortForwarding = true
	tc.Seed = true // a finished torrent seeds while its job says so
	// Every torrent is added with Braid's storage for its job. Without a
	// default the library would open file storage and a bolt database in
	// the working directory the moment the client starts.
	tc.DefaultStorage = noStorage{}
	tc.Slogger = c.cfg.Logger
	tc.MaxAllocPeerRequestDataPerConn = MaxPeerRequestData
	// A connection's writer plans its requests when woken, and wakes on
	// its keep-alive timer too (peer-conn-msg-writer.go:100). A wake-up it
	// misses leaves the peer unasked until that timer fires: with the
	// library's minute, a magnet of TestGetTwoTorrentsOnePort sat idle
	// 60 s in 3 runs of 120 under load. A few seconds bounds such a
	// stall; the cost is a 4-byte keep-alive per quiet connection.
	tc.KeepAliveTimeout = keepAliveEvery
	// engine.Limiter keeps the bursts explicit and never below what the
	// library reads at once: a burst of 0, or one lowered under a read in
	// flight, panics inside the library (see notes/bittorrent.md).
	tc.DownloadRateLimiter = c.down.RateLimiter()
	tc.UploadRateLimiter = c.up.RateLimiter()
	n := c.cfg.Network
	if n != nil {
		tc.HTTPProxy = n.Proxy
		tc.MetainfoSourcesClient = n.HTTPClient()
		tc.WebTransport = n.RoundTripper()
	}
	if c.cfg.HTTP != nil {
		tc.MetainfoSourcesClient = c.cfg.HTTP
		if c.cfg.HTTP.Transport != nil {
			tc.WebTransport = c.cfg.HTTP.Transport
		}
	}
	// Peers through the proxy: the library's own dialers (its listening
	// sockets) connect directly, so they give way to the Network's.
	peersProxied := n != nil && n.ProxyFor("", "192.0.2.1") != nil
	if peersProxied {
		tc.DialForPeerConns = false
	}
	tc.Callbacks.ReceivedUsefulData = append(tc.Callbacks.ReceivedUsefulData, c.receivedUseful)
	tc.Callbacks.ReadExtendedHandshake = fitRequestQueue
	cl, err := torrent.NewClient(tc)
	// The library closes a client's sockets in goroutines of their own, so
	// the port of a client this program has just closed (the settings
	// changed, a run ended and the next began) may be held a moment
	// longer: a fixed port is tried again for a while before it is given
	// up as another program's.
	for wait := portFreedIn; err != nil && tc.ListenPort != 0 && portBusy(err) && wait > 0; wait -= portRetry {
		time.Sleep(portRetry)
		cl, err = torrent.NewClient(tc)
	}
	if err != nil && udpUnsupported(err) {
		// Wine 8 refuses an option Go sets on every UDP socket on
		// Windows (see udp_windows.go): peers over TCP still work.
		c.cfg.Logger.Warn("this system refuses UDP sockets; BitTorrent goes on over TCP only, without uTP and the DHT", "err", err)
		tc.DisableUTP, tc.NoDHT = true, true
		cl, err = torrent.NewClient(tc)
	}
	if err != nil && portBusy(err) {
		return nil, fmt.Errorf("start BitTorrent: port %d is in use by another program; choose another BitTorrent port in the settings (%w)", tc.ListenPort, err)
	}
	if err != nil {
		return nil, fmt.Errorf("start BitTorrent: %w", err)
	}
	if peersProxied {
		cl.AddDialer(torrent.NetworkDialer{Network: "tcp", Dialer: n})
	}
	c.cl = cl
	return cl, nil
}

// receivedUseful notes which source filled a piece. The library calls it
// with its lock held: only copy fields here, never call Torrent methods.
func (c *Client) receivedUseful(e torrent.ReceivedUsefulDataEvent) {
	if e.Peer == nil || e.Message == nil {
		return
	}
	t := e.Peer.Torrent()
	c.mu.Lock()
	j := c.jobs[t]
	c.mu.Unlock()
	if j == nil {
		return
	}
	src := sourcePeers
	if e.Peer.Network == "http" && e.Peer.RemoteAddr != nil {
		src = e.Peer.RemoteAddr.String()
	}
	j.filled(int(e.Message.Index), src)
}

// Port is the port the client listens on, or 0 before it started.
func (c *Client) Port() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cl == nil {
		return 0
	}
	return c.cl.LocalPort()
}

// WriteStatus writes the BitTorrent client's own account of its
// torrents and peer connections (anacrolix's status page) to w: for a
// report on a download that stalls.
func (c *Client) WriteStatus(w io.Writer) {
	c.mu.Lock()
	cl := c.cl
	c.mu.Unlock()
	if cl == nil {
		fmt.Fprintln(w, "no BitTorrent client running")
		return
	}
	cl.WriteStatus(w)
}

// Close stops every job (they end as canceled, or done if they were
// seeding), waits for them, and stops the client.
func (c *Client) Close() error {
	c.mu.Lock()
	cl := c.cl
	c.closed = true
	c.cl = nil
	var jobs []*Job
	for _, j := range c.jobs {
		jobs = append(jobs, j)
	}
	c.mu.Unlock()
	for _, j := range jobs {
		j.Stop()
	}
	if cl == nil {
		return nil
	}
	return errors.Join(cl.Close()...)
}

func (c *Client) register(t *torrent.Torrent, j *Job) {
	c.mu.Lock()
	c.jobs[t] = j
	c.mu.Unlock()
}

func (c *Client) unregister(t *torrent.Torrent) {
	c.mu.Lock()
	delete(c.jobs, t)
	c.mu.Unlock()
}
