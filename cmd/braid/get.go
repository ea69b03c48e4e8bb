package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/resolve"
	"braid/engine/torrent"
	"braid/platform"
)

// getState keeps `braid get` downloads in the queue, so that running get
// again on the same source resumes it instead of starting over. The queue
// wiring sets openGetState; while it is nil, get keeps no state and --state
// is accepted and ignored.
type getState interface {
	// Prepare is called before each file starts; it may set req.Done and
	// req.Journal from an earlier run of the same source.
	Prepare(ctx context.Context, source string, req *engine.Request) error
	// Finish records how the file's download ended (err nil: verified).
	Finish(source string, req *engine.Request, err error) error
	Close() error
}

// openGetState opens the state folder given by --state (or its default,
// "" meaning the default) and returns with it the notices the user must
// hear (a damaged queue database moved aside). Set by the queue wiring.
var openGetState func(dir string) (st getState, notices []string, err error)

// getOptions are get's flags after parsing.
type getOptions struct {
	dir      string
	state    string
	prefs    metalink.Prefs
	client   engine.Client
	json     bool
	retryFor time.Duration
	sources  []string
	tty      bool
	interval time.Duration
	stdout   io.Writer
	stderr   io.Writer
	torrent  torrentOptions // BitTorrent flags (torrent.go)

	// requireSignature: a file counts as done only if a known key signed it.
	requireSignature bool
	jobs             int      // sources downloading at once (--jobs)
	display          *display // which download the terminal's progress line shows
}

func cmdGet(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, code := parseGet(args, stdout, stderr)
	if code >= 0 {
		return code
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "braid get: -d: %v\n", err)
		return 1
	}
	var st getState
	if openGetState != nil {
		s, notices, err := openGetState(o.state)
		for _, n := range notices {
			fmt.Fprintf(stderr, "braid get: state: %s\n", n)
		}
		if err != nil {
			fmt.Fprintf(stderr, "braid get: state: %v\n", err)
			return 1
		}
		defer s.Close()
		st = s
	}
	if !o.getAll(ctx, st) {
		return 1
	}
	return 0
}

// parseGet reads get's flags. It returns a status code >= 0 when get must
// stop (usage error or -h), and -1 to go on.
func parseGet(args []string, stdout, stderr io.Writer) (*getOptions, int) {
	fs := flag.NewFlagSet("get", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: braid get [flags] SOURCE...\n\nDownload every selected file of each SOURCE (a .meta4 or .metalink file, an\nhttp(s) or ftp URL, a .torrent file or URL, or a magnet link) and verify it. Exit status 0 only if every file verified.\n\n"+getNetworkHelp+"\nFlags:")
		fs.PrintDefaults()
	}
	defaults := platform.DefaultPrefs()
	dir := fs.String("d", ".", "folder to download into")
	state := fs.String("state", "", "queue folder, to resume an interrupted get (default: the user config folder; BRAID_STATE overrides)")
	lang := fs.String("lang", strings.Join(defaults.Languages, ","), "languages to select, comma separated (BCP 47)")
	osList := fs.String("os", strings.Join(defaults.OS, ","), "operating systems to select, comma separated")
	loc := fs.String("location", strings.Join(defaults.Locations, ","), "countries whose mirrors to try first, comma separated (ISO 3166)")
	maxConn := fs.Int("max-conn", engine.DefaultMaxConns, "most connections at once")
	perMirror := fs.Int("max-conn-per-mirror", engine.DefaultMaxConnsPerMirror, "most connections to one mirror")
	perHost := fs.Int("max-conn-per-host", engine.DefaultMaxConnsPerHost, "most connections to one host, across all files")
	jobs := fs.Int("jobs", defaultJobs, "sources downloading at once (files of a source also download side by side)")
	limit := fs.String("limit", "", "download rate limit in bytes per second, e.g. 500K, 10M (0: none)")
	jsonOut := fs.Bool("json", false, "print progress as JSON lines")
	tor := torrentFlags(fs)
	requireSig := fs.Bool("require-signature", false, "fail a file unless an OpenPGP key of the keyring (braid keys) signed it; it stays NAME.part")
	retryFor := fs.Duration("retry-for", defaultRetryFor, "how long to wait for the network while every mirror fails with temporary errors, e.g. 30m (0: forever)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0
		}
		return nil, 2
	}
	rate, err := parseRate(*limit)
	if err != nil {
		fmt.Fprintf(stderr, "braid get: --limit: %v\n", err)
		return nil, 2
	}
	if *maxConn < 1 || *perMirror < 1 || *perHost < 1 || *jobs < 1 {
		fmt.Fprintln(stderr, "braid get: --max-conn, --max-conn-per-mirror, --max-conn-per-host and --jobs must be at least 1")
		return nil, 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "braid get: no SOURCE given")
		fs.Usage()
		return nil, 2
	}
	stateDir := *state
	if stateDir == "" {
		stateDir = os.Getenv("BRAID_STATE")
	}
	o := &getOptions{
		dir:   *dir,
		state: stateDir,
		prefs: metalink.Prefs{
			Languages: commaList(*lang),
			OS:        commaList(*osList),
			Locations: commaList(*loc),
		},
		client: engine.Client{
			MaxConns:          *maxConn,
			MaxConnsPerMirror: *perMirror,
			MaxConnsPerHost:   *perHost,
			Limit:             rate,
		},
		jobs:     *jobs,
		display:  &display{},
		json:     *jsonOut,
		retryFor: *retryFor,
		sources:  fs.Args(),
		tty:      isTerminal(stdout),
		interval: 500 * time.Millisecond,
		stdout:   stdout,
		stderr:   stderr,
		torrent:  *tor,
	}
	o.requireSignature = *requireSig
	if o.tty && !o.json {
		o.interval = 200 * time.Millisecond
	}
	return o, -1
}

// getSource downloads the selected files of one source, side by side, and
// reports whether all of them verified.
func (o *getOptions) getSource(ctx context.Context, st getState, src string) bool {
	if torrent.IsSource(src) {
		return o.getTorrent(ctx, st, src)
	}
	res, err := resolveSource(ctx, src, o.client.HTTP)
	if err != nil {
		o.result(src, "", 0, 0, err)
		return false
	}
	doc := res.doc
	for _, w := range doc.Warnings {
		if !o.json {
			fmt.Fprintf(o.stderr, "%s: warning: %s\n", src, w)
		}
	}
	ok := true
	for _, r := range doc.Rejected {
		o.result(src, r.Name, 0, 0, fmt.Errorf("%s: refused: %s", r.Name, r.Reason))
		ok = false
	}
	var selected []metalink.File
	torrents := 0 // files fetched through their torrent (torrent.go)
	for _, f := range doc.Files {
		if sel, why := f.Selected(o.prefs); !sel {
			if !o.json {
				fmt.Fprintf(o.stdout, "%s: skipped (%s)\n", f.Name, why)
			}
			continue
		}
		if torrent.HasTorrent(f) {
			torrents++
			ok = o.getMetalinkTorrent(ctx, st, src, f) && ok
			continue
		}
		selected = append(selected, f)
	}
	if !o.getFiles(ctx, st, src, res, selected) {
		ok = false
	}
	if ctx.Err() != nil {
		return false
	}
	if len(selected) == 0 && torrents == 0 && len(doc.Files) > 0 {
		o.result(src, "", 0, 0, fmt.Errorf("%s: no file matches the language and OS filters (see --lang, --os)", src))
		return false
	}
	if len(doc.Files) == 0 && len(doc.Rejected) == 0 {
		o.result(src, "", 0, 0, fmt.Errorf("%s: the source lists no file", src))
		return false
	}
	return ok
}

// download runs one file to its end, showing progress, and returns its
// error.
func (o *getOptions) download(ctx context.Context, src string, req *engine.Request) error {
	dl := o.client.Do(ctx, req)
	o.display.add(dl)
	defer o.display.remove(dl)
	t := time.NewTicker(o.interval)
	defer t.Stop()
	var snap engine.Snapshot
	waiting := false // a plain log said the download waits
	if !o.json && !o.tty {
		fmt.Fprintf(o.stdout, "%s: downloading %s from %d mirrors\n", req.File.Name, sizeOrUnknown(req.File.Size), len(req.File.URLs))
	}
	for {
		select {
		case <-dl.Done():
			err := dl.Err()
			dl.SnapshotInto(&snap)
			if o.tty && !o.json {
				fmt.Fprint(o.stdout, "\r\033[K")
			}
			o.result(src, req.File.Name, snap.Bytes, snap.Elapsed, err)
			return err
		case <-t.C:
			dl.SnapshotInto(&snap)
			switch {
			case o.json:
				o.progressJSON(&snap)
			case o.tty && o.display.shows(dl):
				fmt.Fprint(o.stdout, "\r\033[K"+progressLine(&snap))
			default:
				waiting = o.noteWaiting(&snap, waiting)
			}
		}
	}
}

// progressLine is the one-line progress of a terminal.
func progressLine(s *engine.Snapshot) string {
	pct, what := 0.0, s.State.String()
	switch {
	case s.State == engine.StateVerifying && s.Size > 0:
		pct = float64(s.Hashed) / float64(s.Size) * 100
	case s.Size > 0:
		pct = float64(s.Bytes) / float64(s.Size) * 100
	}
	active, usable := 0, 0
	for _, m := range s.Mirrors {
		if m.State == engine.MirrorActive {
			active++
		}
		if m.State != engine.MirrorDropped {
			usable++
		}
	}
	eta := "--:--"
	if s.ETA >= 0 {
		eta = durationText(s.ETA)
	}
	name := s.Name
	if len(name) > 40 {
		name = "…" + name[len(name)-39:]
	}
	if line, ok := specialProgress(s, name, active, usable); ok {
		return line
	}
	return fmt.Sprintf("%s  %s %5.1f%%  %s/s  ETA %s  mirrors %d/%d", name, what, pct, byteText(s.Speed), eta, active, usable)
}

// jsonMirror and jsonProgress are the --json progress line; field names
// are stable for scripts.
type jsonMirror struct {
	URL     string `json:"url"`
	State   string `json:"state"`
	Reason  string `json:"reason,omitempty"`
	Bytes   int64  `json:"bytes"`
	Speed   int64  `json:"speed"`
	Strikes int    `json:"strikes"`
}

type jsonProgress struct {
	Type     string  `json:"type"` // "progress"
	File     string  `json:"file"`
	State    string  `json:"state"`
	Size     int64   `json:"size"`
	Bytes    int64   `json:"bytes"`
	Pieces   int     `json:"pieces"`
	Verified int     `json:"verified"`
	Speed    int64   `json:"speed"`
	ETA      float64 `json:"eta_seconds"` // -1: unknown
	// NextTry is the seconds until the next try in state "waiting".
	NextTry float64      `json:"next_try_seconds,omitempty"`
	Mirrors []jsonMirror `json:"mirrors"`
}

type jsonResult struct {
	Type    string  `json:"type"` // "result"
	Source  string  `json:"source"`
	File    string  `json:"file"`
	OK      bool    `json:"ok"`
	Error   string  `json:"error,omitempty"`
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
}

func (o *getOptions) progressJSON(s *engine.Snapshot) { writeJSON(o.stdout, progressOf(s)) }

// progressOf is a snapshot's --json progress line.
func progressOf(s *engine.Snapshot) jsonProgress {
	p := jsonProgress{
		Type: "progress", File: s.Name, State: s.State.String(), Size: s.Size, Bytes: s.Bytes,
		Pieces: len(s.Pieces), Verified: s.Verified, Speed: s.Speed, ETA: -1,
	}
	if s.ETA >= 0 {
		p.ETA = s.ETA.Seconds()
	}
	p.NextTry = nextTryIn(s).Seconds()
	for _, m := range s.Mirrors {
		p.Mirrors = append(p.Mirrors, jsonMirror{URL: m.URL, State: m.State.String(), Reason: m.Reason, Bytes: m.Bytes, Speed: m.Speed, Strikes: m.Strikes})
	}
	return p
}

// result reports how one file (or a source that yielded none) ended.
func (o *getOptions) result(source, file string, n int64, took time.Duration, err error) {
	if o.json {
		r := jsonResult{Type: "result", Source: source, File: file, OK: err == nil, Bytes: n, Seconds: took.Seconds()}
		if err != nil {
			r.Error = err.Error()
		}
		writeJSON(o.stdout, r)
		return
	}
	if err != nil {
		fmt.Fprintf(o.stderr, "braid get: %v\n", err)
		return
	}
	speed := ""
	if took > 0 {
		speed = fmt.Sprintf(", %s/s", byteText(int64(float64(n)/took.Seconds())))
	}
	fmt.Fprintf(o.stdout, "%s: done, verified (%s in %s%s)\n", file, byteText(n), durationText(took), speed)
}

func writeJSON(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	w.Write(append(b, '\n'))
}

func commaList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func durationText(d time.Duration) string {
	d = d.Round(time.Second / 10)
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%d:%02d", m, s)
}

// resolved is a source made ready for the engine.
type resolved struct {
	doc     *metalink.Document
	etag    string // the origin's ETag, for pref mirrors (Metalink/HTTP)
	referer string // the URL the user gave, sent to mirrors
}

// resolveSource reads a local .meta4 or .metalink file, or asks a URL
// (a metalink's, or a plain file's with its Metalink/HTTP headers).
func resolveSource(ctx context.Context, src string, client *http.Client) (*resolved, error) {
	res, err := resolve.Resolve(ctx, src, resolve.Options{HTTPClient: client})
	if err != nil {
		return nil, err
	}
	r := &resolved{doc: res.Document}
	if res.Origin != nil {
		r.etag = res.Origin.ETag
		r.referer = res.Origin.URL
	}
	return r, nil
}

// isTerminal reports whether w is a terminal, for redrawing progress in
// place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
