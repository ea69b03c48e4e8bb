package queue

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/torrent"
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

// torrentLive is the Runner's BitTorrent side: the client it made, if
// any, and the torrent job running now.
type torrentLive struct {
	mu      sync.Mutex
	made    *torrent.Client // made by the runner; closed by CloseTorrent
	id      int64
	job     *torrent.Job
	seeding map[int64]*torrent.Job // finished jobs seeding on
}

// LiveTorrent returns the torrent job that job id runs now, so a display
// can read its Snapshot at its own rate; false when the runner is not
// running a torrent for that job. Safe for concurrent use.
func (r *Runner) LiveTorrent(id int64) (*torrent.Job, bool) {
	r.tor.mu.Lock()
	defer r.tor.mu.Unlock()
	if r.tor.job != nil && r.tor.id == id {
		return r.tor.job, true
	}
	if j, ok := r.tor.seeding[id]; ok {
		select {
		case <-j.Done():
			delete(r.tor.seeding, id)
		default:
		}
		return j, true // its final snapshot, once more
	}
	return nil, false
}

// StopSeeding stops job id's seeding, if it seeds (a done job removed,
// or the user's "stop"). Safe for concurrent use.
func (r *Runner) StopSeeding(id int64) {
	r.tor.mu.Lock()
	j := r.tor.seeding[id]
	delete(r.tor.seeding, id)
	r.tor.mu.Unlock()
	if j != nil {
		j.Stop()
	}
}

// CloseTorrent stops the torrents seeding and closes the BitTorrent
// client the runner made (none when Runner.Torrent was given). Call it
// when the runner is done for good.
func (r *Runner) CloseTorrent() error {
	r.tor.mu.Lock()
	c := r.tor.made
	r.tor.made = nil
	seeding := r.tor.seeding
	r.tor.seeding = nil
	r.tor.mu.Unlock()
	for _, j := range seeding {
		j.Stop()
	}
	if c == nil {
		return nil
	}
	return c.Close()
}

// torrentClient is the client torrent jobs run through.
func (r *Runner) torrentClient() (*torrent.Client, error) {
	if r.Torrent != nil {
		return r.Torrent, nil
	}
	// The HTTP engine's limit holds for torrents too: one budget.
	hc, err := r.client()
	if err != nil {
		return nil, err
	}
	r.tor.mu.Lock()
	defer r.tor.mu.Unlock()
	if r.tor.made != nil {
		return r.tor.made, nil
	}
	ts, err := r.Queue.TorrentSettings()
	if err != nil {
		return nil, err
	}
	r.tor.made = torrent.NewClient(torrent.Config{
		ListenPort: ts.Port,
		DHT:        ts.Discovery, PEX: ts.Discovery, Trackers: ts.Discovery,
		Downloads:   hc.DownloadLimiter(),
		UploadLimit: ts.UploadLimit,
		// Logger nil: slog's default, which is Braid's log.
	})
	return r.tor.made, nil
}

// torrentSource returns the torrent metaurl that job j's selected files
// come from, if they all come from one.
func torrentSource(j Job) (metalink.MetaURL, bool) {
	var src metalink.MetaURL
	found := false
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		df, ok := docFile(j, f.Name)
		if !ok || !torrent.HasTorrent(df) {
			return src, false
		}
		for _, mu := range df.MetaURLs {
			if mu.MediaType != "torrent" {
				continue
			}
			if found && mu.URL != src.URL {
				return src, false
			}
			src, found = mu, true
			break
		}
	}
	return src, found
}

func docFile(j Job, name string) (metalink.File, bool) {
	for _, f := range j.Doc.Files {
		if f.Name == name {
			return f, true
		}
	}
	return metalink.File{}, false
}

// runTorrent runs a job whose files come from a torrent: its selection,
// the queue's piece completion, seeding by the settings, pause and remove
// as for any job.
func (r *Runner) runTorrent(ctx context.Context, j Job, src metalink.MetaURL) error {
	q := r.Queue
	var selected []string
	var one metalink.File
	for _, f := range j.Files {
		if f.Selected {
			selected = append(selected, f.Name)
			one, _ = docFile(j, f.Name)
		}
	}
	// The torrent as it was resolved when the job was added, or by an
	// earlier run: the .torrent file may be gone since, and a magnet's
	// metadata need not come from peers again.
	spec, stored, err := q.TorrentSpec(j.ID)
	if err != nil {
		return err
	}
	if !stored {
		if len(selected) == 1 && (len(one.URLs) > 0 || len(one.Hashes) > 0) && src.Name == "" {
			// A metalink file with its own mirrors and hashes.
			spec, err = torrent.FromMetalink(ctx, one, nil)
		} else {
			spec, err = torrent.Resolve(ctx, src.URL, nil)
		}
		if err != nil {
			return fmt.Errorf("job %d: %w", j.ID, err)
		}
		if err := q.SetTorrentSpec(j.ID, spec); err != nil {
			return err
		}
	}
	// A magnet's metadata, once a peer sent it, is checked (it must be
	// the link's torrent) and stored for the next run.
	haveInfo := spec.InfoBytes != nil
	keepInfo := func(tj *torrent.Job) error {
		if haveInfo {
			return nil
		}
		s, err := tj.Spec()
		if err != nil {
			return fmt.Errorf("job %d: %w", j.ID, err)
		}
		if s == nil {
			return nil
		}
		haveInfo = true
		return q.SetTorrentSpec(j.ID, s)
	}
	comp, err := q.TorrentPieces(j.Dest)
	if err != nil {
		return err
	}
	client, err := r.torrentClient()
	if err != nil {
		return err
	}
	ts, err := q.TorrentSettings()
	if err != nil {
		return err
	}
	// The job runs under ctx, not this call: once complete it may seed on
	// after RunJob returns, until its ratio, ctx's end or StopSeeding.
	tj, err := client.Start(ctx, &torrent.Request{
		Dir: j.Dest, Spec: spec, Completion: comp,
		SeedRatio: ts.SeedRatio, SeedTime: ts.SeedTime,
		Select: func(_ context.Context, files []torrent.File) []bool {
			// The job's files are the torrent's, by name, unless it was
			// queued from a magnet link before its file list was known:
			// then every file.
			sel := make([]bool, len(files))
			matched := false
			for i, f := range files {
				for _, n := range selected {
					if n == f.Name {
						sel[i], matched = true, true
					}
				}
			}
			if !matched {
				for i := range sel {
					sel[i] = true
				}
			}
			return sel
		},
	})
	if err != nil {
		return err
	}
	r.tor.mu.Lock()
	r.tor.id, r.tor.job = j.ID, tj
	r.tor.mu.Unlock()
	defer func() {
		r.tor.mu.Lock()
		r.tor.id, r.tor.job = 0, nil
		r.tor.mu.Unlock()
	}()

	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
loop:
	for {
		select {
		case <-tj.Complete():
			break loop
		case <-tick.C:
			if r.Progress != nil {
				r.Progress(j, tj.Snapshot().Snapshot)
			}
			if err := keepInfo(tj); err != nil {
				tj.Stop()
				return err
			}
			s, err := q.state(j.ID)
			if errors.Is(err, ErrNotFound) || (err == nil && s != Running) {
				tj.Stop()
				return errUserPaused
			}
		}
	}
	snap := tj.Snapshot()
	if r.Progress != nil {
		r.Progress(j, snap.Snapshot)
	}
	if err := keepInfo(tj); err != nil {
		tj.Stop()
		return err
	}
	select {
	case <-tj.Done():
		if err := tj.Err(); err != nil {
			return classify(j.Dest, err)
		}
	default:
		r.tor.mu.Lock()
		if r.tor.seeding == nil {
			r.tor.seeding = map[int64]*torrent.Job{}
		}
		r.tor.seeding[j.ID] = tj
		r.tor.mu.Unlock()
	}
	for _, name := range selected {
		landed := engine.Snapshot{State: engine.StateDone, VerifiedBy: snap.VerifiedBy, SavedAs: name, Created: snap.Created}
		if err := q.Landed(j.ID, name, &landed); err != nil {
			return err
		}
	}
	return nil
}
