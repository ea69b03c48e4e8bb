package rpc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/netconf"
	"braid/engine/source"
	"braid/engine/torrent"
	"braid/queue"
	"braid/runner"
)

// LiveDownloads gives the engine's download of a file a job is on now,
// for live progress; runner.Runner satisfies it.
type LiveDownloads interface {
	Live(id int64) (*engine.Download, bool)
}

// LiveTorrents is an optional power of a LiveDownloads: the torrent a job
// runs now, for its live progress; runner.Runner has it.
type LiveTorrents interface {
	LiveTorrent(id int64) (*torrent.Job, bool)
}

// LetGoers is an optional power of a LiveDownloads: the run of a job
// just paused or removed in the queue stops now, and LetGo returns once
// no more bytes arrive for it and its progress is recorded; runner.Runner
// has it.
type LetGoers interface {
	LetGo(ctx context.Context, id int64) error
}

// letGoWait bounds how long Pause and Remove wait for the runner to let
// go of a job; it takes a few milliseconds, or a piece's write on a slow
// disk.
const letGoWait = 5 * time.Second

// SourceReader says how the downloads' runs read a source now (the proxy
// setting in force): runner.Service and runner.Runner do.
type SourceReader interface {
	ReadOptions() runner.ResolveOptions
}

// JobLimits is an optional power of a LiveDownloads: a job's own speed
// limit, set in the queue and at once on the job's running downloads;
// runner.Runner has it.
type JobLimits interface {
	SetJobLimit(id, bytesPerSec int64) error
}

// QueueDownloads is Downloads over Braid's queue as it is today: jobs are
// added to and commanded through the queue, and the runner that runs the
// queue (whoever owns it) picks them up. Live progress comes from Live.
// The coordinator rewires this file when the runner moves.
type QueueDownloads struct {
	Queue *queue.Queue
	// Live gives live progress of the jobs running now; nil: progress as
	// the queue recorded it.
	Live LiveDownloads
	// Wake is called after a job is added or unpaused, so a runner that
	// ran out of work starts again; nil: none.
	Wake func()
	// HTTPClient reads URLs given to addUri; nil: as Reader says, else
	// the transport's default.
	HTTPClient *http.Client
	// Reader says how the runs read a source: a link given to addUri is
	// read the same way (through the same proxy). nil: HTTPClient's way.
	Reader SourceReader
	// Note tells the user a sentence about a download (once: the system
	// has no keyring, so its cookies and headers last for this session);
	// nil: not said.
	Note func(string)
	// RefuseUnread refuses, with its reason, a link that cannot be read
	// now, where AddURIs otherwise lists it (failed, or waiting for the
	// network) as aria2 does: the native host's browser keeps such a
	// download itself, and a row for it here would be a second copy.
	RefuseUnread bool

	mu   sync.Mutex
	dir  string     // SetDir's folder, over the queue's setting
	held RunOptions // HoldRunOptions's, over the queue's settings
}

var _ Downloads = (*QueueDownloads)(nil)

// SetDir sets the folder for downloads added without a dir (braid queue
// run -d DIR); "" leaves it to the queue's download-folder setting.
func (a *QueueDownloads) SetDir(dir string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.dir = dir
}

// kindError is a queue error with the kind the server looks for.
type kindError struct{ kind, err error }

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// mapErr gives a queue error the kind of this package's errors.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, queue.ErrNotFound):
		return &kindError{ErrNotFound, err}
	case errors.Is(err, queue.ErrState):
		return &kindError{ErrState, err}
	}
	return err
}

// destination is the absolute folder for a new download.
func (a *QueueDownloads) destination(dir string) (string, error) {
	if dir == "" {
		a.mu.Lock()
		dir = a.dir
		a.mu.Unlock()
	}
	if dir == "" {
		s, err := a.Queue.Settings()
		if err != nil {
			return "", err
		}
		dir = s.DownloadDir
	}
	if dir == "" {
		return "", errors.New("no folder to save in: give the download a dir, or set the download folder")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("folder %s: %w", dir, err)
	}
	return abs, nil
}

// netOf are the network settings addUri's headers, user agent, logins and
// proxy make: the headers and logins go only to the hosts of links (a
// Cookie line included), the proxy carries every request of the job, and
// the queue keeps their secrets out of state.db (queue.SetNet); nil when
// o gives none.
func netOf(links []string, o AddOptions) *netconf.Settings {
	s := netconf.Settings{Headers: o.Headers, UserAgent: o.UserAgent, Links: links,
		HTTPUser: o.HTTPUser, HTTPPasswd: o.HTTPPasswd, FTPUser: o.FTPUser, FTPPasswd: o.FTPPasswd,
		Proxy: o.AllProxy, ProxyUser: o.AllProxyUser, ProxyPasswd: o.AllProxyPasswd, NoProxy: o.NoProxy}
	if s.Empty() {
		return nil
	}
	return &s
}

// AddURIs implements Downloads: uris[0] is the source, the others its
// mirrors (a torrent's web seeds).
//
// Add first, reach later, as aria2 does and as the window's "Add links"
// does (ui/bridge AddUnread): a link that cannot be read now answers a
// GID all the same (runner.ListUnread), unless RefuseUnread. A link whose
// server cannot be reached is a waiting job that tries again; any other
// failure (404, a login refused) is a failed job whose reason the client
// reads in tellStatus (errorCode, errorMessage) after an onDownloadError.
// Either way the download is listed, so a web front end shows a row that
// lasts. A link to a metalink or a torrent has no such job (its file
// would be the document itself): it is refused.
func (a *QueueDownloads) AddURIs(ctx context.Context, uris []string, o AddOptions) (int64, error) {
	dest, err := a.destination(o.Dir)
	if err != nil {
		return 0, err
	}
	first := uris[0]
	if !remoteLink(first) {
		return 0, errNoURI // the server drops them first; no caller reads a local file
	}
	ro := runner.ResolveOptions{HTTPClient: a.HTTPClient}
	if a.Reader != nil && a.HTTPClient == nil {
		ro = a.Reader.ReadOptions()
	}
	ro.Unread = runner.ListUnread
	if a.RefuseUnread {
		ro.Unread = runner.RefuseUnread
	}
	if s := source.Of(first); s.IsTorrent() {
		if s.Scheme() != "magnet" && s.Scheme() != "http" && s.Scheme() != "https" {
			// torrent.Resolve would read anything else as a local file.
			return 0, fmt.Errorf("the .torrent %s: %w: give its http or https link, or send it with addTorrent", queue.Redact(first), ErrUnsupported)
		}
		if o.Out != "" {
			return 0, errTorrentOut
		}
		if o.AllProxy != "" {
			return 0, errTorrentProxy
		}
	}
	return a.add(ctx, first, dest, o, runner.AddOptions{Mirrors: uris[1:], Net: netOf(uris, o), Resolve: ro})
}

// errTorrentOut refuses aria2's out option for a torrent.
var errTorrentOut = fmt.Errorf("the out option for a torrent: %w (its files keep the torrent's names)", ErrUnsupported)

// add adds source with runner.Add, o's options over ao, and wakes the
// runner for a job queued.
func (a *QueueDownloads) add(ctx context.Context, source, dest string, o AddOptions, ao runner.AddOptions) (int64, error) {
	ao.Dir, ao.Sort = dest, o.Dir == "" // its category's folder, as in the window
	ao.Out, ao.Referer, ao.Limit, ao.Paused = o.Out, o.Referer, o.MaxDownloadLimit, o.Pause
	added, err := runner.Add(ctx, a.Queue, source, ao)
	if err != nil {
		return 0, err
	}
	for _, n := range added.Notes {
		if a.Note != nil {
			a.Note(n)
		}
	}
	if added.Queued && a.Wake != nil {
		a.Wake()
	}
	return added.ID, nil
}

// Pause implements Downloads. When Live has LetGoers it returns once the
// job's run has stopped, so paused means no more bytes, as in aria2 (after
// letGoWait it returns all the same: the job shows as active until then).
func (a *QueueDownloads) Pause(id int64) error {
	if err := a.Queue.Pause(id, ""); err != nil {
		return mapErr(err)
	}
	a.letGo(id) // a run that takes longer is shown running
	return nil
}

// Unpause implements Downloads.
func (a *QueueDownloads) Unpause(id int64) error {
	if err := a.Queue.Resume(id); err != nil {
		return mapErr(err)
	}
	if a.Wake != nil {
		a.Wake()
	}
	return nil
}

// Remove implements Downloads: the job leaves the queue, its files stay.
// When Live has LetGoers it returns once the job's run has stopped, as
// Pause does, so a client that removes a download and adds the same file
// again never meets a run still writing it (after letGoWait it returns
// all the same; the run stops at its next look at the queue).
func (a *QueueDownloads) Remove(id int64) error {
	if err := a.Queue.Remove(id); err != nil {
		return mapErr(err)
	}
	a.letGo(id)
	return nil
}

// letGo waits, letGoWait at most, for the runner to let go of job id,
// just paused or removed in the queue, when Live can tell.
func (a *QueueDownloads) letGo(id int64) {
	l, ok := a.Live.(LetGoers)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), letGoWait)
	defer cancel()
	_ = l.LetGo(ctx, id) // a run that takes longer is shown as it is
}

// Move implements Downloads.
func (a *QueueDownloads) Move(id int64, index int) error {
	return mapErr(a.Queue.Move(id, queue.At(index)))
}

// Status implements Downloads.
func (a *QueueDownloads) Status(id int64, want Want) (Job, error) {
	j, err := a.Queue.Get(id)
	if err != nil {
		return Job{}, mapErr(err)
	}
	return a.job(j, want)
}

// List implements Downloads.
func (a *QueueDownloads) List(want Want) ([]Job, error) {
	jobs, err := a.Queue.List()
	if err != nil {
		return nil, err
	}
	var mirrors map[int64]map[string][]queue.Mirror
	if want.URIs { // List leaves out the mirrors
		if mirrors, err = a.Queue.Mirrors(); err != nil {
			return nil, err
		}
	}
	out := make([]Job, 0, len(jobs))
	for _, j := range jobs {
		if j.Sync {
			continue // a folder kept in sync has no place in aria2's lists
		}
		for i := range j.Files {
			j.Files[i].Mirrors = mirrors[j.ID][j.Files[i].Name]
		}
		v, err := a.job(j, want)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

var states = map[queue.State]State{
	queue.Queued: Waiting, queue.Running: Active, queue.Paused: Paused,
	queue.Done: Complete, queue.Failed: Error,
}

// job is a queue job as the server shows it, with the live progress of
// the file the runner is on.
func (a *QueueDownloads) job(j queue.Job, want Want) (Job, error) {
	v := Job{
		ID: j.ID, AddedAt: j.AddedAt, State: states[j.State], Dir: j.Dest, Name: j.Name(),
		Source: j.Source, Error: j.Error, Checked: j.Checked(), Referer: j.Origin.Referer,
	}
	if v.State == "" {
		v.State = Waiting
	}
	var snap *engine.Snapshot
	var tor *torrent.Snapshot
	if a.Live != nil && (j.State == queue.Running || j.State == queue.Paused) {
		if dl, ok := a.Live.Live(j.ID); ok {
			s := dl.Snapshot()
			snap = &s
			// Paused in the queue, and its bytes still arriving until the
			// runner lets go: active until then, so that paused means no
			// more bytes.
			v.State = Active
		}
	}
	if lt, ok := a.Live.(LiveTorrents); ok && snap == nil {
		if tj, ok := lt.LiveTorrent(j.ID); ok {
			s := tj.Snapshot()
			tor, snap = &s, &s.Snapshot
		}
	}
	for _, f := range j.Files {
		size := max(f.Size, 0)
		vf := File{Path: filepath.Join(j.Dest, filepath.FromSlash(f.Path())), Length: size, Completed: f.DoneBytes,
			Selected: f.Selected, VerifiedBy: f.VerifiedBy}
		live := snap != nil && snap.Name == f.Name && tor == nil
		if tor != nil {
			for _, tf := range tor.Files {
				if tf.Name == f.Name {
					vf.Completed, vf.Length = tf.Bytes, max(tf.Size, 0)
				}
			}
		}
		if live {
			vf.Completed = snap.Bytes
			if snap.Size > 0 {
				vf.Length = snap.Size
			}
		}
		if f.Verified && vf.Length > 0 {
			vf.Completed = vf.Length
		}
		if want.URIs {
			for _, m := range f.Mirrors {
				vf.URIs = append(vf.URIs, URI{URI: queue.Redact(m.URL)})
			}
			if live {
				markUsed(vf.URIs, snap.Mirrors)
			}
		}
		if f.Selected {
			v.Length += vf.Length
			v.Completed += vf.Completed
			v.Pieces += f.Pieces
			if v.PieceLength == 0 {
				v.PieceLength = f.Layout.Length
			}
		}
		v.Files = append(v.Files, vf)
	}
	if j.State == queue.Running && tor == nil && (!j.NextTry.IsZero() || snap != nil && snap.State == engine.StateWaiting) {
		// It waits for the network, and tries again by itself. (A
		// torrent that waits for peers is active, as in aria2.)
		v.State = Waiting
		if v.Error == "" && snap != nil {
			v.Error = waitReason(snap)
		}
	}
	if snap != nil {
		v.Speed = snap.Speed
		for _, m := range snap.Mirrors {
			v.Connections += m.Conns
		}
	}
	if tor != nil {
		v.Connections, v.Seeders, v.Uploaded, v.UploadSpeed = tor.Peers, tor.Seeds, tor.Uploaded, tor.UpSpeed
		v.Seeding = tor.Phase == torrent.PhaseSeeding
		if v.Seeding && v.State == Complete {
			v.State = Active // aria2: a seeding torrent is active
		}
	}
	if want.Bitfield {
		bits, err := a.bitfield(j, snap, tor)
		if err != nil {
			return Job{}, err
		}
		v.Bitfield = bits
	}
	if !j.Torrent {
		return v, nil
	}
	spec, ok, err := a.Queue.TorrentSpec(j.ID)
	if err != nil {
		return Job{}, err
	}
	if ok {
		v.InfoHash = spec.InfoHash.HexString()
		for _, tier := range spec.Trackers {
			shown := make([]string, len(tier))
			for i, u := range tier {
				shown[i] = queue.Redact(u)
			}
			v.Trackers = append(v.Trackers, shown)
		}
	}
	return v, nil
}

// waitReason is why a download waits: a program holds its file, or its
// mirrors' reasons to retry (the first one's; "" when none said).
func waitReason(s *engine.Snapshot) string {
	if s.Held != "" {
		return s.Held
	}
	for _, m := range s.Mirrors {
		if m.Reason != "" {
			return queue.Redact(m.Reason)
		}
	}
	return ""
}

// markUsed marks the URIs the engine has connections on.
func markUsed(uris []URI, mirrors []engine.MirrorSnapshot) {
	for _, m := range mirrors {
		if m.Conns == 0 {
			continue
		}
		for i := range uris {
			if uris[i].URI == m.URL {
				uris[i].Used, uris[i].Speed = true, m.Speed
			}
		}
	}
}

// bitfield joins the selected files' pieces, in file order: the live
// snapshot's for the file the runner is on, the recorded ones otherwise.
func (a *QueueDownloads) bitfield(j queue.Job, snap *engine.Snapshot, tor *torrent.Snapshot) ([]byte, error) {
	var done []bool
	if tor != nil && len(tor.Pieces) > 0 {
		// A torrent's pieces run across its files.
		for _, p := range tor.Pieces {
			done = append(done, p == engine.PieceDone)
		}
		return packBits(done), nil
	}
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		if snap != nil && snap.Name == f.Name && len(snap.Pieces) > 0 {
			for _, p := range snap.Pieces {
				done = append(done, p == engine.PieceDone)
			}
			continue
		}
		b, _, err := a.Queue.Pieces(j.ID, f.Name)
		if errors.Is(err, queue.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for i := range b.Len() {
			done = append(done, f.Verified || b.Has(i))
		}
	}
	return packBits(done), nil
}

// packBits is aria2's bitfield: piece 0 is the highest bit of byte 0.
func packBits(done []bool) []byte {
	out := make([]byte, (len(done)+7)/8)
	for i, d := range done {
		if d {
			out[i/8] |= 0x80 >> (i % 8)
		}
	}
	return out
}

// JobOptions implements Downloads: the job's own speed limit and proxy,
// as the queue keeps them.
func (a *QueueDownloads) JobOptions(id int64) (JobOptions, error) {
	j, err := a.Queue.Get(id)
	if err != nil {
		return JobOptions{}, mapErr(err)
	}
	n, _, _, err := a.Queue.Net(id)
	if err != nil {
		return JobOptions{}, err
	}
	return JobOptions{MaxDownloadLimit: j.Limit, AllProxy: n.Proxy, AllProxyUser: n.ProxyUser, NoProxy: n.NoProxy}, nil
}

// SetJobOptions implements Downloads: the job's own speed limit, kept in
// the queue; a runner in this process that has SetJobLimit (Live) applies
// it to the running download at once, any other within about a second.
// Nothing restarts.
func (a *QueueDownloads) SetJobOptions(id int64, o JobOptions) error {
	if l, ok := a.Live.(JobLimits); ok {
		return mapErr(l.SetJobLimit(id, o.MaxDownloadLimit))
	}
	return mapErr(a.Queue.SetJob(id, queue.Limit(o.MaxDownloadLimit)))
}

// GlobalOptions implements Downloads: the queue's settings with their
// defaults, the options this run holds over them (HoldRunOptions), and
// this run's folder.
func (a *QueueDownloads) GlobalOptions() (GlobalOptions, error) {
	saved, err := a.Queue.Settings()
	if err != nil {
		return GlobalOptions{}, err
	}
	s := a.runOptions().inForce(saved)
	st, err := a.Queue.Settings()
	t := st.Torrent
	if err != nil {
		return GlobalOptions{}, err
	}
	dir, err := a.destination("")
	if err != nil {
		dir = ""
	}
	jobs := s.Jobs
	if jobs <= 0 {
		jobs = queue.DefaultJobs
	}
	return GlobalOptions{
		Dir: dir, MaxConcurrent: jobs, MaxOverallDownload: s.SpeedLimit,
		MaxOverallUpload: t.UploadLimit, MaxConnectionsPerSrv: perServer(s),
		SeedRatio: t.SeedRatio, SeedTime: t.SeedTime, Discovery: t.Discovery,
	}, nil
}

// perServer is how many connections one download opens to one server:
// as many as it may open to one mirror, within what all downloads may
// open to one host.
func perServer(s queue.Settings) int {
	mirror := cmp.Or(s.MaxConnsPerMirror, engine.DefaultMaxConnsPerMirror)
	host := cmp.Or(s.MaxConnsPerHost, engine.DefaultMaxConnsPerHost)
	return min(mirror, host)
}

// SettingsFollowers is an optional power of a LiveDownloads: it applies
// the queue's settings to the downloads running now at once, rather than
// at its next look; runner.Runner has it.
type SettingsFollowers interface {
	SettingsChanged()
}

// TorrentClients is an optional power of a LiveDownloads: the BitTorrent
// client its torrents run in, made on first use; runner.Runner has it.
type TorrentClients interface {
	TorrentClient() (*torrent.Client, error)
}

// SetGlobalOptions implements Downloads: the queue's settings, which a
// running runner follows at once when Live has SettingsFollowers (so a
// new limit holds from the next byte, for the downloads running and the
// ones to come), else within about a second; the upload limit at once
// when Live has TorrentClients. Only the options that change are written.
// A new dir lasts for this process, as in aria2: it replaces the folder
// SetDir gave, and the download folder the window and the command line
// keep in the settings stays the user's. max-connection-per-server sets
// the connections to one mirror of a file, and raises the connections to
// one host over all downloads to as many when they were fewer, so that
// the number holds. An option this run holds over the settings
// (HoldRunOptions) is changed in the settings, and its hold ends; but
// max-concurrent-downloads held by --jobs is refused, as the runner would
// take --jobs again at its next start.
func (a *QueueDownloads) SetGlobalOptions(o GlobalOptions) error {
	old, err := a.GlobalOptions()
	if err != nil {
		return err
	}
	held := a.runOptions()
	if o.MaxConcurrent != old.MaxConcurrent && held.MaxConcurrent > 0 {
		return failf("The option max-concurrent-downloads is held at %d by braid queue run --jobs for this run. Nothing was changed.", held.MaxConcurrent)
	}
	if o.Dir != old.Dir && o.Dir != "" {
		abs, err := filepath.Abs(o.Dir)
		if err != nil {
			return fmt.Errorf("folder %s: %w", o.Dir, err)
		}
		if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
			return fmt.Errorf("%s is not a folder", abs)
		}
		a.SetDir(abs)
	}
	saved, err := a.Queue.Settings()
	if err != nil {
		return err
	}
	jobs := o.MaxConcurrent != old.MaxConcurrent
	limit := o.MaxOverallDownload != old.MaxOverallDownload
	perSrv := o.MaxConnectionsPerSrv != old.MaxConnectionsPerSrv
	host := perSrv && cmp.Or(held.inForce(saved).MaxConnsPerHost, engine.DefaultMaxConnsPerHost) < o.MaxConnectionsPerSrv
	// The held options that are written: their holds end.
	var ending RunOptions
	if limit {
		ending.MaxOverallDownload = held.MaxOverallDownload
	}
	if host {
		ending.MaxConnsPerHost = held.MaxConnsPerHost
	}
	if ending != (RunOptions{}) {
		// The runner follows what changes in the settings. What it has in
		// force is the held value, not the saved one: recorded first, the
		// change is seen from it, even to a value the settings had.
		if err := a.Queue.UpdateSettings(func(s *queue.Settings) { *s = ending.inForce(*s) }); err != nil {
			return err
		}
		a.followSettings()
	}
	err = a.Queue.UpdateSettings(func(s *queue.Settings) {
		if jobs {
			s.Jobs = o.MaxConcurrent
		}
		if limit {
			s.SpeedLimit = o.MaxOverallDownload
		}
		if perSrv {
			s.MaxConnsPerMirror = o.MaxConnectionsPerSrv
		}
		if host {
			s.MaxConnsPerHost = o.MaxConnectionsPerSrv
		}
	})
	if err != nil {
		return err
	}
	a.endHolds(ending)
	a.followSettings()
	if o.MaxOverallUpload == old.MaxOverallUpload && o.SeedRatio == old.SeedRatio && o.SeedTime == old.SeedTime {
		return nil
	}
	st, err := a.Queue.Settings()
	t := st.Torrent
	if err != nil {
		return err
	}
	t.UploadLimit, t.SeedRatio, t.SeedTime = o.MaxOverallUpload, o.SeedRatio, o.SeedTime
	if err := a.Queue.UpdateSettings(func(st *queue.Settings) { st.Torrent = t }); err != nil {
		return err
	}
	if tc, ok := a.Live.(TorrentClients); ok && o.MaxOverallUpload != old.MaxOverallUpload {
		if c, err := tc.TorrentClient(); err == nil {
			c.SetUploadLimit(o.MaxOverallUpload) // as the window does
		}
	}
	return nil
}
