package torrent

import (
	"context"
	"time"

	"github.com/anacrolix/torrent"
)

// Announcing to the DHT is Braid's, not the library's. anacrolix
// v1.59.1's announcer (Torrent.dhtAnnouncer, torrent.go:2321) calls
// Announce again the moment one fails, and one fails at once whenever the
// DHT's routing table is empty and the bootstrap hosts do not resolve
// (dht/v2 server.go:1256, "no initial nodes"): offline, or on a machine
// with loopback only, each torrent spun a core on announcing, resolving
// the bootstrap names and logging a warning per attempt (a finished
// torrent seeding to nobody cost 40 % to 190 % of a core). The library's
// own announcer is off (PeriodicallyAnnounceTorrentsToDht) and each job
// runs announceDHT instead: the same 5-minute announces, and after a
// failure a back-off from dhtRetryMin to dhtRetryMax.

const (
	// dhtAnnounceEvery is how long one announce runs before the next one,
	// as in the library (timeboxedAnnounceToDht).
	dhtAnnounceEvery = 5 * time.Minute
	// dhtRetryMin and dhtRetryMax bound the wait after a failed announce.
	dhtRetryMin = 5 * time.Second
	dhtRetryMax = 5 * time.Minute
)

// announceDHT announces t to every DHT server of cl until ctx ends.
func announceDHT(ctx context.Context, cl *torrent.Client, t *torrent.Torrent) {
	done := make(chan struct{})
	servers := cl.DhtServers()
	for _, s := range servers {
		go func() {
			defer func() { done <- struct{}{} }()
			announceTo(ctx, t, s)
		}()
	}
	for range servers {
		<-done
	}
}

func announceTo(ctx context.Context, t *torrent.Torrent, s torrent.DhtServer) {
	retry := dhtRetryMin
	for {
		wait := dhtAnnounceEvery
		_, stop, err := t.AnnounceToDht(s)
		if err != nil {
			wait, retry = retry, min(2*retry, dhtRetryMax)
		} else {
			retry = dhtRetryMin
		}
		tm := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-tm.C:
		}
		tm.Stop()
		if stop != nil {
			stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}
