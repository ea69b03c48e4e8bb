package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/netconf"
	"braid/engine/resourcesync"
	"braid/engine/signature"
	"braid/platform"
	"braid/queue"
	"braid/runner"
)

const syncHelp = `Usage: braid sync [flags] SOURCE -d DIR

Keep DIR a verified copy of a ResourceSync source. SOURCE is the source's
base URL (its /.well-known/resourcesync is read), a Source Description, a
Capability List or a Resource List. A resource's local path is its URL path
on the source's host: https://example.org/data/a.csv goes to DIR/data/a.csv.
Resources on other hosts and paths that would leave DIR are skipped.

The first run downloads every resource; later runs apply the Change Lists
published since (or compare the Resource List with DIR when they do not
cover the time since). Files already right are never fetched again. Files
the source deleted are listed, and removed only with --delete.

The sync is a job of the queue in the state folder: braid queue list shows
it, the window and braid queue run run it too, and a sync stopped half way
(Ctrl-C) is paused there; its next run keeps the files it verified. --check
adds no job.

Exit status: 0 when DIR is a verified copy (with --check: when nothing is
missing or changed), 1 otherwise, 2 usage error.

Flags:
`

func cmdSync(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, syncHelp)
		fs.PrintDefaults()
	}
	dir := fs.String("d", ".", "folder to keep in sync")
	state := fs.String("state", "", "queue folder, where what was synced is recorded (default: the user config folder; BRAID_STATE overrides)")
	loc := fs.String("location", strings.Join(platform.DefaultPrefs().Locations, ","), "countries whose mirrors to try first, comma separated (ISO 3166)")
	maxConn := fs.Int("max-conn", engine.DefaultMaxConns, "most connections at once")
	perMirror := fs.Int("max-conn-per-mirror", engine.DefaultMaxConnsPerMirror, "most connections to one mirror")
	jobs := fs.Int("jobs", runner.DefaultSyncJobs, "files downloaded at once")
	limit := fs.String("limit", "", "download rate limit in bytes per second, e.g. 500K, 10M (0: none)")
	jsonOut := fs.Bool("json", false, "print one JSON line per file and a summary")
	check := fs.Bool("check", false, "report what is missing, changed or extra; download nothing")
	del := fs.Bool("delete", false, "remove files the source deleted (default: list them)")
	netf := addNetFlags(fs)
	args2, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	rate, err := parseRate(*limit)
	if err != nil {
		fmt.Fprintf(stderr, "braid sync: --limit: %v\n", err)
		return 2
	}
	if *maxConn < 1 || *perMirror < 1 || *jobs < 1 {
		fmt.Fprintln(stderr, "braid sync: --max-conn, --max-conn-per-mirror and --jobs must be at least 1")
		return 2
	}
	if len(args2) != 1 {
		fmt.Fprintln(stderr, "braid sync: give one SOURCE")
		fs.Usage()
		return 2
	}
	source := args2[0]
	if _, err := resourcesync.Base(source); err != nil {
		fmt.Fprintf(stderr, "braid sync: %v\n", err)
		return 2
	}
	network, session, err := netf.open([]string{source})
	if err != nil {
		fmt.Fprintf(stderr, "braid sync: %v\n", err)
		return 2
	}
	d, err := queue.Dir(*state)
	if err != nil {
		fmt.Fprintf(stderr, "braid sync: state: %v\n", err)
		return 1
	}
	q, err := queue.Open(d)
	if err != nil {
		fmt.Fprintf(stderr, "braid sync: state: %v\n", err)
		return 1
	}
	defer q.Close()
	for _, n := range q.Notices() {
		fmt.Fprintf(stderr, "braid sync: state: %s\n", n)
	}
	client := &engine.Client{MaxConns: *maxConn, MaxConnsPerMirror: *perMirror, Limit: rate, Network: network}
	out := &syncOutput{json: *jsonOut, tty: isTerminal(stdout) && !*jsonOut, stdout: stdout, stderr: stderr, active: map[*runner.FileRun]int64{}}
	stop := func() {}
	if out.tty {
		stop = out.showProgress()
	}
	res, err := syncJob(ctx, q, source, *dir, *check, session, stderr, &runner.Runner{
		Queue: q, Client: client, Locations: commaList(*loc), Observer: out,
		SyncOptions: runner.SyncOptions{Jobs: *jobs, Delete: *del},
	})
	stop()
	out.clearLine()
	if res != nil {
		out.summary(source, res)
	}
	switch {
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		fmt.Fprintln(stderr, "braid sync: interrupted; run the same braid sync again to finish it (the files verified are kept)")
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "braid sync: %v\n", queue.Redact(err.Error()))
		return 1
	}
	if !res.OK() {
		return 1
	}
	return 0
}

// syncJob syncs source into dir as a job of the queue (runner.Add, then
// RunJobs, as get does), which the window then lists; with check it only
// compares, adding no job. net is the logins, cookies and headers the
// network flags gave, which the job keeps (a note about where its
// secrets are kept goes to stderr). It returns the sync's result.
func syncJob(ctx context.Context, q *queue.Queue, source, dir string, check bool, net *netconf.Session, stderr io.Writer, r *runner.Runner) (*runner.SyncResult, error) {
	if check {
		o := r.SyncOptions
		o.Client, o.Locations, o.Observer, o.Check, o.Net = r.Client, r.Locations, r.Observer, true, net
		return runner.Sync(ctx, q, source, dir, o)
	}
	settings := net.Settings()
	added, err := runner.Add(ctx, q, source, runner.AddOptions{Dir: dir, Sync: true, Paused: true, Net: &settings})
	if err != nil {
		return nil, err
	}
	for _, n := range added.Notes {
		fmt.Fprintf(stderr, "braid sync: %s\n", n)
	}
	ids := make(chan int64, 1)
	ids <- added.ID
	close(ids)
	ranErr := r.RunJobs(ctx, ids)
	sj, ok := r.LiveSync(added.ID)
	if !ok {
		return nil, ranErr // it did not start: another run has it
	}
	return sj.Wait()
}

// syncOutput is sync's runner.Observer: it prints a sync's outcomes for
// a person or, with --json, for a script. On a terminal it keeps one
// progress line under them.
type syncOutput struct {
	json, tty      bool
	stdout, stderr io.Writer

	mu     sync.Mutex                // guards the lines written and the fields below
	active map[*runner.FileRun]int64 // the downloads running, with their speeds
	done   int
	line   bool // a progress line is on the screen
}

// Interval: the progress line is redrawn five times a second.
func (o *syncOutput) Interval() time.Duration { return syncRedraw }

// syncRedraw is how often the progress line is redrawn.
const syncRedraw = 200 * time.Millisecond

// Start: the download joins the progress line.
func (o *syncOutput) Start(f *runner.FileRun) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.active[f] = 0
}

func (o *syncOutput) Progress(f *runner.FileRun, p runner.Progress) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.active[f]; ok {
		o.active[f] = p.Snapshot.Speed
	}
}

func (o *syncOutput) Note(n runner.Note) { o.event(runner.SyncEventOfNote(n)) }

func (o *syncOutput) Result(r runner.Result) {
	o.mu.Lock()
	delete(o.active, r.Run)
	o.mu.Unlock()
	if e, ok := runner.SyncEventOfResult(r); ok {
		o.event(e)
	}
}

// A sync checks no signatures.
func (o *syncOutput) Signature(*runner.FileRun, signature.Outcome) {}

// Check: no check runs in this face.
func (o *syncOutput) Check(runner.CheckEvent) {}

// showProgress redraws the progress line five times a second until the
// returned stop is called; stop waits for the redrawing goroutine.
func (o *syncOutput) showProgress() (stop func()) {
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(syncRedraw)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				o.redraw()
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}

func (o *syncOutput) redraw() {
	o.mu.Lock()
	defer o.mu.Unlock()
	var speed int64
	for _, s := range o.active {
		speed += s
	}
	fmt.Fprintf(o.stdout, "\r\033[K%d files done, %d downloading, %s/s", o.done, len(o.active), byteText(speed))
	o.line = true
}

// clearLine takes the progress line off the screen.
func (o *syncOutput) clearLine() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.clear()
}

func (o *syncOutput) clear() {
	if o.line {
		fmt.Fprint(o.stdout, "\r\033[K")
		o.line = false
	}
}

// jsonSync is one --json line of sync; field names are stable for scripts.
type jsonSync struct {
	Type     string `json:"type"` // "file"
	Kind     string `json:"kind"` // fetched, kept, failed, skipped, gone, deleted, missing, changed, extra, warning
	File     string `json:"file"`
	Bytes    int64  `json:"bytes,omitempty"`
	Verified string `json:"verified,omitempty"` // the hash a fetched file was verified by; absent: not verified
	Error    string `json:"error,omitempty"`
}

type jsonSyncSummary struct {
	Type   string         `json:"type"` // "summary"
	Source string         `json:"source"`
	Mode   []string       `json:"mode"`
	OK     bool           `json:"ok"`
	Counts map[string]int `json:"counts"`
	Bytes  int64          `json:"bytes"`
}

func (o *syncOutput) event(e runner.SyncEvent) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.clear()
	if e.Kind == runner.SyncFetched || e.Kind == runner.SyncKept {
		o.done++
	}
	if o.json {
		j := jsonSync{Type: "file", Kind: string(e.Kind), File: e.Name, Bytes: e.Bytes, Verified: e.Verified}
		if e.Err != nil {
			j.Error = e.Err.Error()
		}
		writeJSON(o.stdout, j)
		return
	}
	switch e.Kind {
	case runner.SyncFetched:
		if e.Verified == "" {
			fmt.Fprintf(o.stdout, "%s: fetched, not verified: the source publishes no hash (%s)\n", e.Name, byteText(e.Bytes))
			break
		}
		fmt.Fprintf(o.stdout, "%s: fetched, verified by %s (%s)\n", e.Name, e.Verified, byteText(e.Bytes))
	case runner.SyncKept:
		// Quiet: a sync of a large folder names only what it did.
	case runner.SyncFailed:
		// The engine's errors begin with the file's name already.
		fmt.Fprintf(o.stderr, "%s: failed: %s\n", e.Name, strings.TrimPrefix(e.Err.Error(), e.Name+": "))
	case runner.SyncSkipped:
		fmt.Fprintf(o.stderr, "%s: skipped: %v\n", e.Name, e.Err)
	case runner.SyncWarning:
		fmt.Fprintf(o.stderr, "%s: warning: %v\n", e.Name, e.Err)
	case runner.SyncGone:
		fmt.Fprintf(o.stdout, "%s: deleted at the source, kept here (--delete removes it)\n", e.Name)
	case runner.SyncDeleted:
		fmt.Fprintf(o.stdout, "%s: deleted at the source, removed\n", e.Name)
	default: // missing, changed, extra
		fmt.Fprintf(o.stdout, "%s: %s\n", e.Name, e.Kind)
	}
}

func (o *syncOutput) summary(source string, r *runner.SyncResult) {
	if o.json {
		counts := map[string]int{}
		for k, n := range r.Counts {
			counts[string(k)] = n
		}
		writeJSON(o.stdout, jsonSyncSummary{Type: "summary", Source: queue.Redact(source), Mode: r.Mode, OK: r.OK(), Counts: counts, Bytes: r.Bytes})
		return
	}
	c := r.Counts
	fmt.Fprintf(o.stdout, "%s (%s): %d fetched (%s), %d already right, %d failed, %d skipped, %d gone, %d deleted",
		queue.Redact(source), strings.Join(r.Mode, ", "), c[runner.SyncFetched], byteText(r.Bytes), c[runner.SyncKept],
		c[runner.SyncFailed], c[runner.SyncSkipped], c[runner.SyncGone], c[runner.SyncDeleted])
	if c[runner.SyncMissing]+c[runner.SyncChanged]+c[runner.SyncExtra] > 0 {
		fmt.Fprintf(o.stdout, "; %d missing, %d changed, %d extra", c[runner.SyncMissing], c[runner.SyncChanged], c[runner.SyncExtra])
	}
	fmt.Fprintln(o.stdout)
}
