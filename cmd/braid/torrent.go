package main

import (
	"flag"
	"log/slog"
	"time"

	"braid/engine"
	"braid/queue"
	"braid/runner"
)

// torrentFlagValues are get's BitTorrent flags.
type torrentFlagValues struct {
	seedRatio float64
	seedTime  time.Duration
	port      int
	discovery bool
	dht       bool
	// uploads is --upload-limit, one budget for every torrent of the run.
	uploads *engine.Limiter
}

// options are the runner's BitTorrent choices from the flags, which take
// the place of the queue's settings for this run.
func (t *torrentFlagValues) options() runner.TorrentOptions {
	return runner.TorrentOptions{
		Settings: &queue.TorrentSettings{SeedRatio: t.seedRatio, SeedTime: t.seedTime, Port: t.port, Discovery: t.discovery},
		NoDHT:    !t.dht,
		Uploads:  t.uploads,
		Logger:   slog.New(slog.DiscardHandler),
	}
}

// torrentFlags adds get's BitTorrent flags to fs.
func torrentFlags(fs *flag.FlagSet) *torrentFlagValues {
	o := &torrentFlagValues{uploads: engine.NewUploadLimiter(0)}
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
