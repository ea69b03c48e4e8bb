package queue

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Torrent setting keys (raw settings, see Setting).
const (
	keyTorrentSeedRatio   = "torrent_seed_ratio"   // float; default 1.0; 0: do not seed
	keyTorrentSeedMinutes = "torrent_seed_minutes" // int; 0: no time limit
	keyTorrentPort        = "torrent_port"         // int; 0: any free port
	keyTorrentUpload      = "torrent_upload_limit" // bytes per second; 0: none
	keyTorrentDiscovery   = "torrent_discovery"    // bool; default true: trackers, DHT, PEX
)

// TorrentSettings are the user's BitTorrent choices.
type TorrentSettings struct {
	// SeedRatio: a finished torrent seeds while Braid runs until it has
	// uploaded this many times its size; 0 means do not seed. Default 1.
	SeedRatio float64
	// SeedTime also ends seeding; 0 means no time limit.
	SeedTime time.Duration
	// Port is the port to listen on for peers; 0 picks a free one.
	Port int
	// UploadLimit is bytes per second over all torrents; 0 means none.
	UploadLimit int64
	// Discovery finds peers through trackers, DHT and PEX (default true);
	// off, only the peers and web seeds a source names are used.
	Discovery bool
}

// TorrentSettings returns the BitTorrent settings with defaults filled in.
func (q *Queue) TorrentSettings() (TorrentSettings, error) {
	s := TorrentSettings{SeedRatio: 1, Discovery: true}
	read := func(key string, set func(string) error) error {
		v, ok, err := q.Setting(key)
		if err != nil || !ok {
			return err
		}
		if err := set(v); err != nil {
			return fmt.Errorf("setting %s=%q: %w", key, v, err)
		}
		return nil
	}
	err := errors.Join(
		read(keyTorrentSeedRatio, func(v string) (err error) { s.SeedRatio, err = strconv.ParseFloat(v, 64); return }),
		read(keyTorrentSeedMinutes, func(v string) error {
			n, err := strconv.Atoi(v)
			s.SeedTime = time.Duration(n) * time.Minute
			return err
		}),
		read(keyTorrentPort, func(v string) (err error) { s.Port, err = strconv.Atoi(v); return }),
		read(keyTorrentUpload, func(v string) (err error) { s.UploadLimit, err = strconv.ParseInt(v, 10, 64); return }),
		read(keyTorrentDiscovery, func(v string) (err error) { s.Discovery, err = strconv.ParseBool(v); return }),
	)
	return s, err
}

// SetTorrentSettings stores the BitTorrent settings.
func (q *Queue) SetTorrentSettings(s TorrentSettings) error {
	return errors.Join(
		q.SetSetting(keyTorrentSeedRatio, strconv.FormatFloat(s.SeedRatio, 'g', -1, 64)),
		q.SetSetting(keyTorrentSeedMinutes, strconv.Itoa(int(s.SeedTime/time.Minute))),
		q.SetSetting(keyTorrentPort, strconv.Itoa(s.Port)),
		q.SetSetting(keyTorrentUpload, strconv.FormatInt(s.UploadLimit, 10)),
		q.SetSetting(keyTorrentDiscovery, strconv.FormatBool(s.Discovery)),
	)
}
