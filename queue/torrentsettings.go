package queue

import (
	"strconv"
	"time"
)

// Torrent setting keys (Settings.Torrent).
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

// torrentSettingsOf reads the stored BitTorrent settings, defaults where
// none is stored or a value does not parse.
func torrentSettingsOf(raw map[string]string) TorrentSettings {
	s := TorrentSettings{SeedRatio: 1, Discovery: true}
	if v, err := strconv.ParseFloat(raw[keyTorrentSeedRatio], 64); err == nil {
		s.SeedRatio = v
	}
	if v, err := strconv.Atoi(raw[keyTorrentSeedMinutes]); err == nil {
		s.SeedTime = time.Duration(v) * time.Minute
	}
	if v, err := strconv.Atoi(raw[keyTorrentPort]); err == nil {
		s.Port = v
	}
	if v, err := strconv.ParseInt(raw[keyTorrentUpload], 10, 64); err == nil {
		s.UploadLimit = v
	}
	if v, err := strconv.ParseBool(raw[keyTorrentDiscovery]); err == nil {
		s.Discovery = v
	}
	return s
}

// stored is s as the settings table keeps it, by key.
func (s TorrentSettings) stored() map[string]string {
	return map[string]string{
		keyTorrentSeedRatio:   strconv.FormatFloat(s.SeedRatio, 'g', -1, 64),
		keyTorrentSeedMinutes: strconv.Itoa(int(s.SeedTime / time.Minute)),
		keyTorrentPort:        strconv.Itoa(s.Port),
		keyTorrentUpload:      strconv.FormatInt(s.UploadLimit, 10),
		keyTorrentDiscovery:   strconv.FormatBool(s.Discovery),
	}
}
