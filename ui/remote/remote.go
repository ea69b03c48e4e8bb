package remote

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"braid/engine/explain"
	"braid/engine/metalink"
	sourcekind "braid/engine/source"
	"braid/engine/torrent"
	"braid/runner"
	"braid/ui"
)

// Backend drives the downloads of an aria2 JSON-RPC daemon: an aria2c
// with --enable-rpc, or `braid queue run --rpc-listen`. It is a
// ui.Backend and a ui.Notifier; safe for concurrent use.
type Backend struct {
	endpoint string // http(s)://host:port/jsonrpc
	shown    string // endpoint with any password hidden, for sentences
	secret   string
	client   *http.Client

	mu      sync.Mutex
	uploads map[*metalink.Document]upload // opened local files, for Add
	known   []ui.Job                      // the last list read, for while the daemon cannot be

	changes chan struct{}
	stop    context.CancelFunc
	done    chan struct{}
}

// upload is a local .torrent or .meta4 file read by Open, sent to the
// daemon by Add.
type upload struct {
	method string // aria2.addTorrent or aria2.addMetalink
	data   []byte
}

// maxUploads bounds the documents opened and not (yet) added: a picker
// the user closed leaves one behind.
const maxUploads = 16

// New returns a Backend for the daemon at endpoint (its JSON-RPC URL,
// http or https; a bare host:port gets http:// and /jsonrpc), sending
// secret as token:SECRET ("" sends none). It listens for the daemon's
// notifications until Close.
func New(endpoint, secret string) (*Backend, error) {
	endpoint, err := normalize(endpoint)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Backend{
		endpoint: endpoint,
		shown:    redacted(endpoint),
		secret:   secret,
		client:   &http.Client{},
		uploads:  map[*metalink.Document]upload{},
		changes:  make(chan struct{}, 1),
		stop:     cancel,
		done:     make(chan struct{}),
	}
	go b.listen(ctx)
	return b, nil
}

// Normalize makes an address as the user typed it the JSON-RPC URL New
// would drive (a bare host:port gets http:// and /jsonrpc), or says in a
// sentence why it cannot be one.
func Normalize(endpoint string) (string, error) { return normalize(endpoint) }

// normalize makes endpoint a JSON-RPC URL, or says in a sentence why it
// cannot be one.
func normalize(endpoint string) (string, error) {
	e := strings.TrimSpace(endpoint)
	if !strings.Contains(e, "://") {
		e = "http://" + e
	}
	u, err := url.Parse(e)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", sayf("%q is not the address of downloads to drive: give one like http://host:6800/jsonrpc.", redacted(endpoint))
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/jsonrpc"
	}
	return u.String(), nil
}

// Endpoint is the daemon's JSON-RPC URL, with any password hidden.
func (b *Backend) Endpoint() string { return b.shown }

// Close stops listening for notifications.
func (b *Backend) Close() error {
	b.stop()
	<-b.done
	return nil
}

// Changes delivers a value when the daemon says a download started,
// paused, stopped, completed or failed, and when its connection is lost or
// found again (a restarted daemon may hold another queue).
func (b *Backend) Changes() <-chan struct{} { return b.changes }

func (b *Backend) changed() {
	select {
	case b.changes <- struct{}{}:
	default:
	}
}

// statusKeys are the tellStatus keys the window uses; braid* ones only a
// Braid daemon sends.
var statusKeys = []string{"gid", "status", "totalLength", "completedLength", "downloadSpeed",
	"uploadSpeed", "uploadLength", "connections", "numSeeders", "seeder", "errorCode", "errorMessage",
	"dir", "files", "bittorrent", "infoHash", "followedBy", "braidName", "braidSource",
	"braidErrorDetail", "braidChecked"}

// status is one download as tellStatus gives it; numbers are strings.
type status struct {
	GID              string `json:"gid"`
	Status           string `json:"status"`
	TotalLength      string `json:"totalLength"`
	CompletedLength  string `json:"completedLength"`
	DownloadSpeed    string `json:"downloadSpeed"`
	UploadSpeed      string `json:"uploadSpeed"`
	UploadLength     string `json:"uploadLength"`
	Connections      string `json:"connections"`
	NumSeeders       string `json:"numSeeders"`
	Seeder           string `json:"seeder"`
	ErrorCode        string `json:"errorCode"`
	ErrorMessage     string `json:"errorMessage"`
	Dir              string `json:"dir"`
	Files            []file `json:"files"`
	InfoHash         string `json:"infoHash"`
	BraidName        string `json:"braidName"`
	BraidSource      string `json:"braidSource"`
	BraidErrorDetail string `json:"braidErrorDetail"`
	BraidChecked     string `json:"braidChecked"`
	Bittorrent       *struct {
		Info struct {
			Name string `json:"name"`
		} `json:"info"`
	} `json:"bittorrent"`
}

type file struct {
	Index           string `json:"index"`
	Path            string `json:"path"`
	Length          string `json:"length"`
	CompletedLength string `json:"completedLength"`
	Selected        string `json:"selected"`
	URIs            []struct {
		URI    string `json:"uri"`
		Status string `json:"status"`
	} `json:"uris"`
}

func num(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// ID is the window's name for a GID: its 64 bits.
func ID(gid string) ui.JobID {
	n, _ := strconv.ParseUint(gid, 16, 64)
	return ui.JobID(n)
}

// GID is aria2's name for id.
func GID(id ui.JobID) string { return fmt.Sprintf("%016x", uint64(id)) }

// job is s as the window's row.
func (s status) job() ui.Job {
	j := ui.Job{
		ID:     ID(s.GID),
		Name:   s.name(),
		Source: s.source(),
		Dir:    s.Dir,
		Size:   num(s.TotalLength),
		Done:   num(s.CompletedLength),
		Speed:  float64(num(s.DownloadSpeed)),
		Upload: float64(num(s.UploadSpeed)),
		ETA:    -1,
		Peers:  int(num(s.Connections)),
		Seeds:  int(num(s.NumSeeders)),
		// aria2 says nothing of how a download was checked; a Braid
		// daemon does.
		Outcome:    s.BraidChecked,
		Unverified: strings.HasPrefix(s.BraidChecked, "not verified"),
		ErrDetail:  s.BraidErrorDetail,
		Torrent:    s.Bittorrent != nil || s.InfoHash != "",
	}
	if !j.Torrent {
		// aria2's connections of a link are to its servers, not peers:
		// the window says peers of a torrent only.
		j.Peers, j.Seeds = 0, 0
	}
	if j.Done > 0 {
		j.Ratio = float64(num(s.UploadLength)) / float64(j.Done)
	}
	switch s.Status {
	case "active":
		j.State = ui.Running
		if s.Seeder == "true" {
			j.State = ui.Seeding
		}
	case "waiting":
		j.State = ui.Queued
		if s.ErrorMessage != "" { // Braid's download that waits for the network
			j.State, j.Err = ui.Waiting, s.ErrorMessage
		}
	case "paused":
		j.State = ui.Paused
		j.Err = s.ErrorMessage // Braid says why it paused one itself
	case "complete":
		j.State = ui.Done
	default: // error
		j.State = ui.Failed
		j.Err = s.ErrorMessage
		if j.Err == "" {
			j.Err = fmt.Sprintf("The download failed (aria2's error code %s).", s.ErrorCode)
		}
		j.Err = explain.AsSentence(j.Err)
	}
	if j.Size == 0 && j.State != ui.Done {
		j.Size = -1 // not known before the first answer
	}
	if j.State == ui.Running && j.Speed > 0 && j.Size > 0 {
		j.ETA = time.Duration(float64(j.Size-j.Done) / j.Speed * float64(time.Second))
	}
	return j
}

// name is the download's name: Braid's, a torrent's, else its first
// selected file's (or its link's last part), and how many more.
func (s status) name() string {
	if s.BraidName != "" {
		return s.BraidName
	}
	if s.Bittorrent != nil && s.Bittorrent.Info.Name != "" {
		return s.Bittorrent.Info.Name
	}
	var names []string
	for _, f := range s.Files {
		if f.Selected == "false" {
			continue
		}
		n := base(f.Path)
		if f.Path == "" && len(f.URIs) > 0 {
			n = path.Base(f.URIs[0].URI)
			if u, err := url.Parse(f.URIs[0].URI); err == nil {
				n = path.Base(u.Path)
			}
		}
		names = append(names, n)
	}
	switch len(names) {
	case 0:
		return s.GID
	case 1:
		return names[0]
	}
	return fmt.Sprintf("%s and %d more", names[0], len(names)-1)
}

// source is the link the download came from, as far as the daemon says.
func (s status) source() string {
	if s.BraidSource != "" {
		return s.BraidSource
	}
	for _, f := range s.Files {
		if len(f.URIs) > 0 {
			return f.URIs[0].URI
		}
	}
	return ""
}

// tell lists the daemon's downloads: active, then waiting in queue order,
// then stopped. Removed ones are left out.
//
// The daemon moves a download on by itself, from waiting to active to
// stopped, while the lists are read one call after another. They are
// read in that order, so a download that moves on between two reads is
// in the later list too, never in neither (a row that vanished for one
// reading lost the window's selection); read twice, its later reading
// counts. A move back, a pause, is the window's own command, done before
// it reads again.
func (b *Backend) tell(ctx context.Context, active, rest bool) ([]status, error) {
	reads := []struct {
		method string
		on     bool
		params []any
	}{
		{"aria2.tellWaiting", rest, []any{0, 1 << 20, statusKeys}},
		{"aria2.tellActive", active, []any{statusKeys}},
		{"aria2.tellStopped", rest, []any{0, 1 << 20, statusKeys}},
	}
	lists := make([][]status, len(reads))
	last := map[string]int{} // the list each download was read in last
	for i, r := range reads {
		if !r.on {
			continue
		}
		if err := b.call(ctx, &lists[i], r.method, r.params...); err != nil {
			return nil, err
		}
		for _, s := range lists[i] {
			last[s.GID] = i
		}
	}
	var all []status
	for _, i := range []int{1, 0, 2} { // active, waiting, stopped
		for _, s := range lists[i] {
			if last[s.GID] == i && s.Status != "removed" {
				all = append(all, s)
			}
		}
	}
	return all, nil
}

// Jobs lists the daemon's downloads. An unreachable daemon or a refused
// secret is an error, never an empty list.
// While it cannot be read, the downloads it last listed come with the
// error, in state Unknown: the window then shows no stale speed or time
// left beside the sentence that says why.
func (b *Backend) Jobs() ([]ui.Job, error) {
	all, err := b.tell(context.Background(), true, true)
	if err != nil {
		return b.unknown(), err
	}
	out := make([]ui.Job, 0, len(all))
	for _, s := range all {
		out = append(out, s.job())
	}
	b.mu.Lock()
	b.known = out
	b.mu.Unlock()
	return out, nil
}

// unknown is the last list read with nothing left in it that only a
// daemon that answers could say: no state, speed, time left or peers.
// Sizes and bytes done stay as last read. nil when none was read.
func (b *Backend) unknown() []ui.Job {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.known == nil {
		return nil
	}
	out := make([]ui.Job, len(b.known))
	for i, j := range b.known {
		out[i] = unknownJob(j)
	}
	return out
}

func unknownJob(j ui.Job) ui.Job {
	j.State = ui.Unknown
	j.Speed, j.Upload, j.ETA = 0, 0, -1
	j.Peers, j.Seeds = 0, 0
	j.Err, j.ErrDetail = "", ""
	// Nor its peers and trackers: the pane drops their tabs until the
	// daemon answers again, rather than say the torrent does not run.
	j.Torrent = false
	return j
}

// Active lists the downloads the daemon runs now; none when it cannot be
// reached (Jobs says why).
func (b *Backend) Active() []ui.Job {
	all, err := b.tell(context.Background(), true, false)
	if err != nil {
		return nil
	}
	out := make([]ui.Job, 0, len(all))
	for _, s := range all {
		out = append(out, s.job())
	}
	return out
}

// Detail is one download with its files, their links and, for a
// torrent, its peers where the daemon gives them.
func (b *Backend) Detail(id ui.JobID, _ bool) (ui.Detail, error) {
	ctx := context.Background()
	var s status
	if err := b.call(ctx, &s, "aria2.tellStatus", GID(id), statusKeys); err != nil {
		var gone *Unreachable
		if errors.As(err, &gone) || errors.Is(err, ErrSecret) {
			// Nothing is known of it now: the pane says so rather
			// than keep its last speed.
			b.mu.Lock()
			defer b.mu.Unlock()
			for _, j := range b.known {
				if j.ID == id {
					return ui.Detail{Job: unknownJob(j)}, nil
				}
			}
		}
		return ui.Detail{}, err
	}
	d := ui.Detail{Job: s.job()}
	d.Torrent = s.Bittorrent != nil || s.InfoHash != ""
	var servers []struct {
		Index   string `json:"index"`
		Servers []struct {
			URI           string `json:"uri"`
			CurrentURI    string `json:"currentUri"`
			DownloadSpeed string `json:"downloadSpeed"`
		} `json:"servers"`
	}
	if d.State == ui.Running && !d.Torrent {
		// Only an active download has servers; a daemon that does not
		// answer getServers (not every one does) leaves the speeds out.
		_ = b.call(ctx, &servers, "aria2.getServers", GID(id))
	}
	for _, f := range s.Files {
		fd := ui.FileDetail{
			Name:  f.Path,
			Size:  num(f.Length),
			Done:  num(f.CompletedLength),
			ETA:   -1,
			State: fileState(d.State, num(f.Length), num(f.CompletedLength)),
		}
		if rel, ok := under(s.Dir, f.Path); ok {
			fd.Name = rel
		}
		if f.Selected == "false" {
			fd.Skipped = true
		}
		for _, u := range f.URIs {
			m := ui.MirrorDetail{URL: u.URI, Bytes: -1, State: ui.MirrorIdle}
			if pu, err := url.Parse(u.URI); err == nil {
				m.Host = pu.Host
			}
			for _, sv := range servers {
				if sv.Index != f.Index {
					continue
				}
				for _, one := range sv.Servers {
					if one.URI == u.URI {
						m.State = ui.MirrorActive
						m.Speed = float64(num(one.DownloadSpeed))
					}
				}
			}
			if slices.ContainsFunc(fd.Mirrors, func(o ui.MirrorDetail) bool { return o.URL == m.URL }) {
				continue // aria2 lists a link once per try
			}
			fd.Mirrors = append(fd.Mirrors, m)
		}
		d.Files = append(d.Files, fd)
	}
	return d, nil
}

// base is the last element of a path on the daemon's machine, which may
// separate with / or \ whatever this one does.
func base(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// under is p relative to dir, both paths on the daemon's machine, with
// slashes; false when p is not in dir.
func under(dir, p string) (string, bool) {
	if dir == "" {
		return "", false
	}
	dir = strings.TrimRight(dir, `/\`)
	rest, ok := strings.CutPrefix(p, dir)
	if !ok || rest == "" || (rest[0] != '/' && rest[0] != '\\') {
		return "", false
	}
	return strings.ReplaceAll(rest[1:], `\`, "/"), true
}

// fileState is a file's state from its download's and its bytes.
func fileState(job ui.JobState, size, done int64) ui.FileState {
	switch job {
	case ui.Running:
		return ui.FileRunning
	case ui.Paused:
		return ui.FilePaused
	case ui.Queued, ui.Waiting:
		return ui.FileQueued
	case ui.Failed:
		return ui.FileFailed
	case ui.Done, ui.Seeding:
		if size > 0 && done < size {
			return ui.FileWaiting // a file left out of a torrent
		}
		return ui.FileUnverified
	}
	return ui.FileWaiting
}

// Open reads a source for the picker. A link becomes a one-file document
// without fetching anything: the daemon downloads it. A local .torrent,
// .meta4 or .metalink file is read here, and uploaded to the daemon by
// Add. A magnet link is handed to the daemon as a link.
func (b *Backend) Open(ctx context.Context, source string) (*metalink.Document, error) {
	s := sourcekind.Of(source)
	if s.Kind() == sourcekind.Magnet {
		spec, err := torrent.ParseMagnet(source)
		if err != nil {
			return nil, sayf("%s is not a magnet link Braid can read: %w", source, err)
		}
		return torrent.Document(spec, source)
	}
	if u, err := url.Parse(source); err == nil && u.Host != "" {
		f, ok := runner.UnreachedFile(source)
		if !ok {
			name := path.Base(u.Path)
			if metalink.SafeName(name) != nil {
				name = u.Hostname()
			}
			f = metalink.File{Name: name, Size: -1, URLs: []metalink.URL{{URL: source, Priority: 1}}}
		}
		return &metalink.Document{Version: 4, Files: []metalink.File{f}}, nil
	}
	data, err := os.ReadFile(source)
	if err != nil {
		return nil, sayf("Cannot read %s: %w", source, err)
	}
	var doc *metalink.Document
	var up upload
	switch s.Kind() {
	case sourcekind.Torrent:
		spec, err := torrent.ParseMetainfo(data)
		if err != nil {
			return nil, sayf("%s is not a torrent Braid can read: %w", source, err)
		}
		if doc, err = torrent.Document(spec, source); err != nil {
			return nil, err
		}
		up = upload{method: "aria2.addTorrent", data: data}
	default:
		if doc, err = metalink.Parse(strings.NewReader(string(data))); err != nil {
			return nil, sayf("%s is not a metalink Braid can read: %w", source, err)
		}
		up = upload{method: "aria2.addMetalink", data: data}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.uploads) >= maxUploads {
		clear(b.uploads)
	}
	b.uploads[doc] = up
	return doc, nil
}

// Add hands the picked files to the daemon: a link with addUri, an opened
// file uploaded with addTorrent or addMetalink, choosing its files with
// select-file.
func (b *Backend) Add(ctx context.Context, req ui.AddRequest) (ui.JobID, error) {
	if req.Doc == nil || len(req.Doc.Files) == 0 {
		return 0, sayf("There is nothing to add.")
	}
	opts := map[string]string{}
	if req.Dir != "" {
		opts["dir"] = req.Dir
	}
	if req.Paused {
		opts["pause"] = "true"
	}
	b.mu.Lock()
	up, ok := b.uploads[req.Doc]
	delete(b.uploads, req.Doc)
	b.mu.Unlock()
	var gid string
	if !ok {
		f := req.Doc.Files[0]
		var links []string
		for _, u := range f.URLs {
			links = append(links, u.URL)
		}
		for _, m := range f.MetaURLs {
			links = append(links, m.URL)
		}
		if len(links) == 0 {
			return 0, sayf("The document has no link the remote downloads can fetch.")
		}
		if err := b.call(ctx, &gid, "aria2.addUri", links, opts); err != nil {
			return 0, err
		}
		return ID(gid), nil
	}
	if sel := selected(req.Doc, req.Files); sel != "" {
		opts["select-file"] = sel
	}
	enc := base64.StdEncoding.EncodeToString(up.data)
	if up.method == "aria2.addTorrent" {
		if err := b.call(ctx, &gid, up.method, enc, []string{}, opts); err != nil {
			return 0, err
		}
		return ID(gid), nil
	}
	var gids []string // one per file of a metalink
	if err := b.call(ctx, &gids, up.method, enc, opts); err != nil {
		return 0, err
	}
	if len(gids) == 0 {
		return 0, sayf("The remote downloads took the metalink but started nothing.")
	}
	return ID(gids[0]), nil
}

// selected is aria2's select-file for the ticked names: their indexes
// from 1, "" when all are ticked.
func selected(doc *metalink.Document, names []string) string {
	if len(names) == 0 || len(names) == len(doc.Files) {
		return ""
	}
	var idx []string
	for i, f := range doc.Files {
		if slices.Contains(names, f.Name) {
			idx = append(idx, strconv.Itoa(i+1))
		}
	}
	return strings.Join(idx, ",")
}

// Pause pauses a download.
func (b *Backend) Pause(id ui.JobID) error {
	return b.call(context.Background(), nil, "aria2.pause", GID(id))
}

// Resume starts a paused download again. aria2 cannot restart a failed
// one in place: that is said in a sentence.
func (b *Backend) Resume(id ui.JobID) error {
	ctx := context.Background()
	var s status
	if err := b.call(ctx, &s, "aria2.tellStatus", GID(id), []string{"status"}); err != nil {
		return err
	}
	if s.Status == "paused" {
		return b.call(ctx, nil, "aria2.unpause", GID(id))
	}
	return sayf("The remote download is %s: only a paused one can be resumed from here.", s.Status)
}

// Remove takes a download out of the daemon's list, stopping it; its
// files stay.
func (b *Backend) Remove(id ui.JobID) error {
	ctx := context.Background()
	var s status
	if err := b.call(ctx, &s, "aria2.tellStatus", GID(id), []string{"status"}); err != nil {
		return err
	}
	switch s.Status {
	case "active", "waiting", "paused":
		if err := b.call(ctx, nil, "aria2.remove", GID(id)); err != nil {
			return err
		}
		// Stopped now, it stays in tellStopped until its result goes.
		deadline := time.Now().Add(5 * time.Second)
		for {
			err := b.call(ctx, nil, "aria2.removeDownloadResult", GID(id))
			var de *DaemonError
			if err == nil || !errors.As(err, &de) || time.Now().After(deadline) {
				return err
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return b.call(ctx, nil, "aria2.removeDownloadResult", GID(id))
}

// Move puts a waiting download at index in the list Jobs gives, where
// the active ones come first: aria2 orders only the waiting ones.
func (b *Backend) Move(id ui.JobID, index int) error {
	ctx := context.Background()
	var active []struct{}
	if err := b.call(ctx, &active, "aria2.tellActive", []string{"gid"}); err != nil {
		return err
	}
	var pos int
	return b.call(ctx, &pos, "aria2.changePosition", GID(id), max(0, index-len(active)), "POS_SET")
}

// errNotHere is what the window says of a command only the local engine
// can carry out.
func errNotHere(what string) error {
	return sayf("The download runs on a remote aria2, which cannot %s from here.", what)
}

// Verify is not possible on a remote daemon: aria2's JSON-RPC has no
// check of finished files.
func (b *Backend) Verify(ui.JobID) error { return errNotHere("verify files") }

// Repair is not possible on a remote daemon either.
func (b *Backend) Repair(ui.JobID) error { return errNotHere("repair files") }

// Schedule is not kept by a remote daemon.
func (b *Backend) Schedule() (ui.Schedule, error) {
	return ui.Schedule{}, sayf("The downloads run on a remote aria2, which keeps no schedule from here.")
}

// SetSchedule is not kept by a remote daemon.
func (b *Backend) SetSchedule(ui.Schedule) error {
	return sayf("The downloads run on a remote aria2, which keeps no schedule from here.")
}

// Settings are the daemon's folder, speed limit and downloads at once.
func (b *Backend) Settings() (ui.Settings, error) {
	var g map[string]string
	if err := b.call(context.Background(), &g, "aria2.getGlobalOption"); err != nil {
		return ui.Settings{}, err
	}
	return ui.Settings{
		Dir:           g["dir"],
		SpeedLimit:    num(g["max-overall-download-limit"]),
		MaxJobs:       int(num(g["max-concurrent-downloads"])),
		StartOnLaunch: true,
	}, nil
}

// SetSettings changes the daemon's speed limit and downloads at once, for
// as long as it runs; the other settings are the window's own and stay
// on this computer.
func (b *Backend) SetSettings(s ui.Settings) error {
	cur, err := b.Settings()
	if err != nil {
		return err
	}
	opts := map[string]string{}
	if s.SpeedLimit != cur.SpeedLimit {
		opts["max-overall-download-limit"] = strconv.FormatInt(max(0, s.SpeedLimit), 10)
	}
	if s.MaxJobs != cur.MaxJobs && s.MaxJobs > 0 {
		opts["max-concurrent-downloads"] = strconv.Itoa(s.MaxJobs)
	}
	if len(opts) == 0 {
		return nil
	}
	return b.call(context.Background(), nil, "aria2.changeGlobalOption", opts)
}
