package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/torrent"
)

// torrentOptions are get's BitTorrent flags.
type torrentOptions struct {
	seedRatio float64
	seedTime  time.Duration
	port      int
	discovery bool
	dht       bool
	// uploads is --upload-limit, one budget for every torrent of the run.
	uploads *engine.Limiter

	mu     sync.Mutex
	client *torrent.Client // the run's one BitTorrent client, made by the first torrent
}

// clientFor returns the run's BitTorrent client, made on first use, so
// that every torrent of a get shares one listening port (--bt-port), one
// set of peer connections and the budgets.
func (t *torrentOptions) clientFor(o *getOptions) *torrent.Client {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client == nil {
		t.client = torrent.NewClient(torrent.Config{
			ListenPort: t.port,
			DHT:        t.discovery && t.dht,
			PEX:        t.discovery,
			Trackers:   t.discovery,
			// --limit holds for HTTP, FTP and BitTorrent together.
			Downloads: o.client.DownloadLimiter(),
			Uploads:   t.uploads,
			Logger:    slog.New(slog.DiscardHandler),
			HTTP:      o.client.HTTP,
		})
	}
	return t.client
}

// close stops the run's BitTorrent client, if a torrent made one.
func (t *torrentOptions) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client != nil {
		t.client.Close()
	}
}

// torrentFlags adds get's BitTorrent flags to fs.
func torrentFlags(fs *flag.FlagSet) *torrentOptions {
	o := &torrentOptions{uploads: engine.NewUploadLimiter(0)}
	fs.Float64Var(&o.seedRatio, "seed-ratio", 0, "after a torrent completes, seed until this upload ratio (0: do not seed)")
	fs.DurationVar(&o.seedTime, "seed-time", 0, "after a torrent completes, seed at most this long (0: no time limit; with --seed-ratio 0, do not seed)")
	fs.IntVar(&o.port, "bt-port", 0, "port to listen on for BitTorrent peers (0: any free port)")
	fs.BoolVar(&o.discovery, "bt-discovery", true, "find BitTorrent peers through trackers, DHT and PEX (false: only the peers and web seeds the source names)")
	fs.BoolVar(&o.dht, "bt-dht", true, "with --bt-discovery, use the DHT too (false: trackers and PEX only)")
	fs.Func("upload-limit", "BitTorrent upload rate limit in bytes per second over all torrents, e.g. 500K (0: none)", func(v string) error {
		up, err := parseRate(v)
		if err != nil {
			return err
		}
		o.uploads.SetRate(up)
		return nil
	})
	return o
}

// torrentPieces is what a get state offers BitTorrent: piece completion
// kept between runs (the queue's, see torrent_state.go).
type torrentPieces interface {
	TorrentPieces(dir string) (torrent.Completion, error)
}

// getTorrent downloads a .torrent file or URL, or a magnet link.
func (o *getOptions) getTorrent(ctx context.Context, st getState, src string) bool {
	spec, err := torrent.Resolve(ctx, src, o.client.HTTP)
	if err != nil {
		o.fail(src, "", fmt.Errorf("%s: %w", src, err))
		return false
	}
	return o.runTorrent(ctx, st, src, spec)
}

// getMetalinkTorrent downloads a metalink file through the torrent its
// metaurl names, with the file's HTTP mirrors as web seeds.
func (o *getOptions) getMetalinkTorrent(ctx context.Context, st getState, src string, f metalink.File) bool {
	spec, err := torrent.FromMetalink(ctx, f, o.client.HTTP)
	if err != nil {
		o.fail(src, f.Name, err)
		return false
	}
	return o.runTorrent(ctx, st, src, spec)
}

func (o *getOptions) runTorrent(ctx context.Context, st getState, src string, spec *torrent.Spec) bool {
	var err error
	req := &torrent.Request{Dir: o.dir, Spec: spec, SeedRatio: o.torrent.seedRatio, SeedTime: o.torrent.seedTime}
	if tp, ok := st.(torrentPieces); ok {
		if req.Completion, err = tp.TorrentPieces(o.dir); err != nil {
			o.fail(src, spec.Name, fmt.Errorf("state: %w", err))
			return false
		}
	}
	c := o.torrent.clientFor(o)
	job, err := c.Start(ctx, req)
	if err != nil {
		o.fail(src, spec.Name, err)
		return false
	}
	err = o.watchTorrent(src, job)
	if errors.Is(err, context.Canceled) {
		return false
	}
	return err == nil
}

// watchTorrent prints a torrent's progress as download prints an HTTP
// file's, with the swarm's numbers added, and returns its error.
func (o *getOptions) watchTorrent(src string, job *torrent.Job) error {
	t := time.NewTicker(o.interval)
	defer t.Stop()
	announced := false
	for {
		select {
		case <-job.Done():
			err := job.Err()
			s := job.Snapshot()
			if o.tty && !o.json {
				fmt.Fprint(o.stdout, "\r\033[K")
			}
			if !o.tty && !o.json && !announced && s.Size >= 0 {
				o.announceTorrent(&s)
			}
			return o.finished(src, &s.Snapshot, err)
		case <-t.C:
			s := job.Snapshot()
			switch {
			case o.json:
				o.torrentJSON(&s)
			case o.tty:
				fmt.Fprint(o.stdout, "\r\033[K"+torrentLine(&s))
			case !announced && s.Phase != torrent.PhaseMetadata:
				announced = true
				o.announceTorrent(&s)
			}
		}
	}
}

// announceTorrent is the line a log gets when the file list is known.
func (o *getOptions) announceTorrent(s *torrent.Snapshot) {
	seeds := len(s.Mirrors) - 1
	fmt.Fprintf(o.stdout, "%s: downloading %s from the swarm and %d %s\n", s.Name, sizeOrUnknown(s.Size), seeds, plural(seeds, "web seed", "web seeds"))
}

// torrentLine is progressLine with the phase's own words ("fetching
// metadata", "seeding") and the swarm's numbers.
func torrentLine(s *torrent.Snapshot) string {
	pct := 0.0
	if s.Size > 0 {
		pct = float64(s.Bytes) / float64(s.Size) * 100
	}
	eta := "--:--"
	if s.ETA >= 0 {
		eta = durationText(s.ETA)
	}
	name := s.Name
	if len(name) > 40 {
		name = "…" + name[len(name)-39:]
	}
	return fmt.Sprintf("%s  %s %5.1f%%  %s/s  ETA %s  peers %d, seeds %d  up %s  ratio %.2f",
		name, s.Phase, pct, byteText(s.Speed), eta, s.Peers, s.Seeds, byteText(s.Uploaded), s.Ratio)
}

// jsonTorrent is get's --json progress line for a torrent: the fields of
// an HTTP download's (state in the same vocabulary, plus "fetching
// metadata" and "seeding"), then the swarm's.
type jsonTorrent struct {
	jsonProgress
	Peers    int     `json:"peers"`
	Seeds    int     `json:"seeds"`
	Uploaded int64   `json:"uploaded"`
	Ratio    float64 `json:"ratio"`
}

func (o *getOptions) torrentJSON(s *torrent.Snapshot) {
	p := jsonTorrent{
		jsonProgress: progressOf(&s.Snapshot),
		Peers:        s.Peers, Seeds: s.Seeds, Uploaded: s.Uploaded, Ratio: s.Ratio,
	}
	p.State = s.Phase.String()
	writeJSON(o.stdout, p)
}
