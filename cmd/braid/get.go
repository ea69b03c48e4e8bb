package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"braid/engine"
	"braid/engine/metalink"
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
	// Finish records how the file's download ended: err nil is done,
	// and snap says what was checked and where the file went.
	Finish(source string, req *engine.Request, snap *engine.Snapshot, err error) error
	Close() error
}

// openGetState starts opening the state folder given by --state (or its
// default, "" meaning the default) and returns the state at once; its calls
// wait for the open where they need it. opened is called once the open is
// through, with the notices the user must hear (a damaged queue database
// moved aside) or why it failed, before any call that waited goes on. Set
// by the queue wiring.
var openGetState func(dir string, opened func(notices []string, err error)) (getState, error)

// errNoState ends a get whose state folder could not be opened.
var errNoState = errors.New("the state folder could not be opened")

// getOptions are get's flags after parsing.
type getOptions struct {
	dir   string
	state string
	prefs metalink.Prefs // Locations only; see given and defaults
	// given are the --lang and --os the user gave (real filters), defaults
	// the system's, which only narrow choices (see metalink.Select).
	given, defaults metalink.Prefs
	client          engine.Client
	json            bool
	// requireHash makes a file no published hash could check a failure.
	requireHash bool
	retryFor    time.Duration
	sources     []string
	tty         bool
	interval    time.Duration
	stdout      io.Writer
	stderr      io.Writer
	torrent     *torrentOptions // BitTorrent flags (torrent.go)

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
	o.lockOutput()
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var st getState
	if openGetState != nil {
		// The sources are read while the state opens; a state that
		// cannot be opened stops the get, and what it fetched meanwhile
		// stays in its .part files.
		s, err := openGetState(o.state, func(notices []string, err error) {
			for _, n := range notices {
				fmt.Fprintf(o.stderr, "braid get: state: %s\n", n)
			}
			if err != nil {
				fmt.Fprintf(o.stderr, "braid get: state: %v\n", err)
				stop(errNoState)
			}
		})
		if err != nil {
			fmt.Fprintf(stderr, "braid get: state: %v\n", err)
			return 1
		}
		defer s.Close()
		st = s
	}
	defer o.torrent.close()
	if !o.getAll(ctx, st) {
		return 1
	}
	return 0
}

const getUsage = `Usage: braid get [flags] SOURCE...

Download every selected file of each SOURCE (a .meta4 or .metalink file, an
http(s) or ftp URL, a .torrent file or URL, or a magnet: link) and verify it
against the hashes the source publishes.
Each file ends verified (saying by which hash), not verified (no hash
published: its bytes are what the mirrors sent), or failed. A file already at
the name is taken only if a hash proves it is the same; otherwise the download
is saved under a free name, "f (1).bin", and get says so.

Exit status: 0 every selected file is done (verified, or not verified when no
hash is published; with --require-hash only verified counts, with
--require-signature only files a known key signed), 1 a file failed or was
interrupted (run the same command again to resume), 2 usage error.
`

// parseGet reads get's flags. It returns a status code >= 0 when get must
// stop (usage error or -h), and -1 to go on.
func parseGet(args []string, stdout, stderr io.Writer) (*getOptions, int) {
	fs := flag.NewFlagSet("get", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, getUsage+"\n"+getNetworkHelp+"\nFlags:\n")
		fs.PrintDefaults()
	}
	defaults := platform.DefaultPrefs()
	dir := fs.String("d", ".", "folder to download into")
	state := fs.String("state", "", "queue folder, to resume an interrupted get (default: the user config folder; BRAID_STATE overrides)")
	lang := fs.String("lang", strings.Join(defaults.Languages, ","), "languages to select, comma separated (BCP 47); given, a filter; by default the locale's, which picks the best match among alternatives")
	osList := fs.String("os", strings.Join(defaults.OS, ","), "operating systems to select, comma separated; given, a filter; by default the running system, which narrows alternatives unless none fits")
	loc := fs.String("location", strings.Join(defaults.Locations, ","), "countries whose mirrors to try first, comma separated (ISO 3166)")
	maxConn := fs.Int("max-conn", engine.DefaultMaxConns, "most connections at once")
	perMirror := fs.Int("max-conn-per-mirror", engine.DefaultMaxConnsPerMirror, "most connections to one mirror")
	perHost := fs.Int("max-conn-per-host", engine.DefaultMaxConnsPerHost, "most connections to one host, across all files")
	jobs := fs.Int("jobs", defaultJobs, "sources downloading at once (files of a source also download side by side)")
	limit := fs.String("limit", "", "download rate limit in bytes per second, e.g. 500K, 10M (0: none)")
	jsonOut := fs.Bool("json", false, "print progress as JSON lines")
	tor := torrentFlags(fs)
	requireHash := fs.Bool("require-hash", false, "fail (exit 1) for a file that no published hash can verify")
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
		dir:      *dir,
		state:    stateDir,
		prefs:    metalink.Prefs{Locations: commaList(*loc)},
		given:    givenPrefs(fs, *lang, *osList),
		defaults: defaults,
		client: engine.Client{
			MaxConns:          *maxConn,
			MaxConnsPerMirror: *perMirror,
			MaxConnsPerHost:   *perHost,
			Limit:             rate,
		},
		jobs:        *jobs,
		display:     &display{},
		json:        *jsonOut,
		requireHash: *requireHash,
		retryFor:    *retryFor,
		sources:     onceEach(fs.Args(), stderr, *jsonOut),
		tty:         isTerminal(stdout),
		interval:    500 * time.Millisecond,
		stdout:      stdout,
		stderr:      stderr,
		torrent:     tor,
	}
	o.requireSignature = *requireSig
	if o.tty && !o.json {
		o.interval = 200 * time.Millisecond
	}
	return o, -1
}

// onceEach is the sources without repeats, in the order first given: a
// source given twice would download its files twice, side by side, the
// second copy under free names. Without --json a repeat is told.
func onceEach(sources []string, stderr io.Writer, json bool) []string {
	seen := make(map[string]bool, len(sources))
	out := sources[:0:0]
	for _, s := range sources {
		if seen[s] {
			if !json {
				fmt.Fprintf(stderr, "braid get: %s is given more than once; getting it once\n", s)
			}
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// getSource downloads the selected files of one source, side by side, and
// reports whether all of them verified.
func (o *getOptions) getSource(ctx context.Context, st getState, src string) bool {
	if torrent.IsSource(src) {
		return o.getTorrent(ctx, st, src)
	}
	doc, origin, err := o.resolveWaiting(ctx, src)
	if err != nil {
		o.fail(src, "", err)
		return false
	}
	for _, w := range doc.Warnings {
		if !o.json {
			fmt.Fprintf(o.stderr, "%s: warning: %s\n", src, w)
		}
	}
	ok := true
	for _, r := range doc.Rejected {
		o.fail(src, r.Name, fmt.Errorf("%s: refused: %s", r.Name, r.Reason))
		ok = false
	}
	var selected []metalink.File
	torrents := 0 // files fetched through their torrent (torrent.go)
	choices, notes := metalink.Select(doc.Files, o.given, o.defaults)
	for _, n := range notes {
		if !o.json {
			fmt.Fprintf(o.stderr, "%s: note: %s\n", src, n)
		}
	}
	for i, f := range doc.Files {
		if !choices[i].Selected {
			if !o.json {
				fmt.Fprintf(o.stdout, "%s: skipped (%s)\n", f.Name, choices[i].Why)
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
	if !o.getFiles(ctx, st, src, doc, origin, selected) {
		ok = false
	}
	if ctx.Err() != nil {
		return false
	}
	if len(selected) == 0 && torrents == 0 && len(doc.Files) > 0 {
		o.fail(src, "", fmt.Errorf("%s: no file matches the language and OS filters (see --lang, --os)", src))
		return false
	}
	if len(doc.Files) == 0 && len(doc.Rejected) == 0 {
		o.fail(src, "", fmt.Errorf("%s: the source lists no file", src))
		return false
	}
	return ok
}

// download runs one file to its end, showing progress, and returns its
// last snapshot and its error (see finished).
func (o *getOptions) download(ctx context.Context, src string, req *engine.Request) (*engine.Snapshot, error) {
	dl := o.client.Do(ctx, req)
	o.display.add(dl)
	defer o.display.remove(dl)
	t := time.NewTicker(o.interval)
	defer t.Stop()
	var snap engine.Snapshot
	waiting := false // a plain log said the download waits
	if !o.json && !o.tty {
		fmt.Fprintf(o.stdout, "%s: downloading %s from %s\n", req.File.Name, sizeOrUnknown(req.File.Size), fmt.Sprintf("%d %s", len(req.File.URLs), plural(len(req.File.URLs), "mirror", "mirrors")))
	}
	for {
		select {
		case <-dl.Done():
			err := dl.Err()
			dl.SnapshotInto(&snap)
			if o.tty && !o.json {
				fmt.Fprint(o.stdout, "\r\033[K")
			}
			return &snap, o.finished(src, &snap, err)
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
