package main

import (
	"cmp"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"braid/engine/explain"
	"braid/engine/netconf"
	"braid/engine/torrent"
	"braid/platform"
	"braid/queue"
	"braid/rpc"
	"braid/runner"
)

const queueUsage = `Usage:
  braid queue [--state DIR] list [--json]
  braid queue [--state DIR] pause ID
  braid queue [--state DIR] resume ID
  braid queue [--state DIR] remove [--files] ID
  braid queue [--state DIR] move ID up|down|top|bottom
  braid queue [--state DIR] relink ID URL
  braid queue [--state DIR] limit ID RATE|none
  braid queue [--state DIR] in-order ID on|off
  braid queue [--state DIR] verify ID
  braid queue [--state DIR] repair ID
  braid queue [--state DIR] run [--max-conn N] [--max-conn-per-host N] [--jobs N] [--limit RATE]
                              [--retry-for D] [-d DIR] [--all-proxy URL] [--no-proxy LIST]
                              [--rpc-listen ADDR
                              --rpc-secret SECRET|--rpc-secret-file FILE
                              [--rpc-allow-origin ORIGIN]... [--rpc-allow-remote]
                              [--rpc-secure --rpc-certificate FILE --rpc-private-key FILE]]

--state DIR is the folder of the queue database (default: $BRAID_STATE, else
the user config folder's braid/). pause also pauses the seeding of a finished
torrent, and resume seeds it again, as the window's Pause and Resume do. move changes the order in which jobs
run; the window shows the same order. relink gives a job a fresh link (a signed
link that expired: the job's state is "link expired"); the bytes on disk are
kept when the new link serves the same file (same size, no hash that disagrees,
sampled ranges of what is on disk equal), otherwise it is refused and the job
is left as it was. limit gives a job a speed limit of its own, such as 500K
or 2M bytes per second, on top of the global one (0 or none removes it); it is
kept with the job and reaches a running download within about a second,
without restarting it. in-order on makes a job download in order: its
files from the front, a video or an image to be used while it arrives (all
mirrors still fill the next pieces; a torrent fetches a window from each
file's start, and a media file's first and last pieces first); it is kept
with the job and reaches a running job at its next file, or when it is
paused and resumed. verify checks a finished job's files where they are
against their hashes (a torrent's against its pieces), as the window's Verify
does, and fails naming the files that do not match; repair fetches only their
bad pieces again, as the window's Repair does (a torrent's bad pieces, and a
file that is gone, are fetched by the job's next run). run downloads queued jobs in order until
none is left; Ctrl-C stops it and pauses the jobs it was running, keeping their
progress (braid queue resume ID, or the window, goes on with them). Torrents
then seed, as in the window, until their ratio or time (the settings
torrent_seed_ratio and torrent_seed_minutes); Ctrl-C stops them, and they seed
on at the next start. run keeps to the schedule set in the window: outside
its time windows, or while all downloads are paused, it holds the queued
jobs and says until when, a window's end stops the jobs it runs until the
next one, and its slower speed holds while it is on. --all-proxy sends every
connection of run's downloads through a proxy, --no-proxy lists hosts reached
directly (default for both: the proxy set in the window, else the
environment's proxies as curl reads them); a job's logins, cookies and
headers stay its own.

With --rpc-listen, run also answers aria2's JSON-RPC (HTTP and WebSocket on
/jsonrpc), so aria2 clients (AriaNg, aria2p, the aria2 npm package) can drive
the queue, and keeps serving when the queue is empty until aria2.shutdown or
Ctrl-C. The secret comes from --rpc-secret (other users see it in the process
list), else the first line of --rpc-secret-file FILE, else $BRAID_RPC_SECRET;
the last two keep it out of the process list. --rpc-secure answers HTTPS and
WSS only, with the PEM certificate and private key given (aria2's flags); a
plain listener on an address other machines reach carries the secret in clear,
and run says so. -d is where downloads added without a dir go.
`

// cmdQueue shows and manages the persistent queue the window shares.
func cmdQueue(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	top := flag.NewFlagSet("braid queue", flag.ContinueOnError)
	top.SetOutput(stderr)
	top.Usage = func() { fmt.Fprint(stderr, queueUsage) }
	state := top.String("state", "", "queue database folder")
	if err := top.Parse(args); err != nil {
		return queueUsageErr(err)
	}
	if top.NArg() == 0 {
		fmt.Fprint(stderr, queueUsage)
		return 2
	}
	sub, rest := top.Arg(0), top.Args()[1:]
	fs := flag.NewFlagSet("braid queue "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, queueUsage) }
	fs.StringVar(state, "state", *state, "queue database folder")
	asJSON := fs.Bool("json", false, "list: print JSON")
	withFiles := fs.Bool("files", false, "remove: delete the downloaded files too")
	maxConn := fs.Int("max-conn", 0, "run: total connections (default: the settings)")
	limit := fs.String("limit", "", "run: download rate limit such as 500k or 2M bytes/s (default: the settings)")
	jobs := fs.Int("jobs", 0, "run: downloads at once (default: the settings)")
	perHost := fs.Int("max-conn-per-host", 0, "run: most connections to one host (default: the settings)")
	retryFor := fs.Duration("retry-for", 0, "run: how long a download waits for the network while every mirror fails with temporary errors (0: for ever)")
	dlDir := fs.String("d", "", "run: where downloads added over RPC without a dir go (default: the download folder setting)")
	rpcListen := fs.String("rpc-listen", "", "run: answer aria2 JSON-RPC on this address, e.g. 127.0.0.1:6800")
	rpcSecret := fs.String("rpc-secret", "", "run: the RPC secret clients send as token:SECRET (default: $BRAID_RPC_SECRET); given here it shows in the process list to other users: prefer --rpc-secret-file or the variable")
	rpcSecretFile := fs.String("rpc-secret-file", "", "run: read the RPC secret from the first line of FILE")
	var rpcOrigins headerList
	fs.Func("rpc-allow-origin", "run: a web origin whose pages may call the RPC, e.g. http://localhost:6880 (repeatable; * for any)", func(v string) error {
		rpcOrigins = append(rpcOrigins, v)
		return nil
	})
	rpcRemote := fs.Bool("rpc-allow-remote", false, "run: answer RPC clients on other machines too (the address must then not be loopback-only)")
	rpcSecure := fs.Bool("rpc-secure", false, "run: answer the RPC over TLS only (HTTPS, WSS)")
	rpcCert := fs.String("rpc-certificate", "", "run: the RPC's TLS certificate, a PEM FILE (with its chain)")
	rpcKey := fs.String("rpc-private-key", "", "run: the RPC's TLS private key, a PEM FILE")
	var proxy netFlags
	proxy.addProxyFlags(fs, "run: ")
	if err := fs.Parse(rest); err != nil {
		return queueUsageErr(err)
	}

	var id, jobRate int64
	var inOrder bool
	switch sub {
	case "list", "run":
		if fs.NArg() != 0 {
			fmt.Fprintf(stderr, "braid queue %s: unexpected argument %q\n", sub, fs.Arg(0))
			return 2
		}
	case "pause", "resume", "remove", "verify", "repair":
		var err error
		if fs.NArg() != 1 {
			fmt.Fprintf(stderr, "braid queue %s: want one job ID\n", sub)
			return 2
		}
		if id, err = strconv.ParseInt(fs.Arg(0), 10, 64); err != nil || id <= 0 {
			fmt.Fprintf(stderr, "braid queue %s: %q is not a job ID\n", sub, fs.Arg(0))
			return 2
		}
	case "relink":
		var err error
		if fs.NArg() != 2 {
			fmt.Fprintf(stderr, "braid queue relink: want a job ID and the new URL\n")
			return 2
		}
		if id, err = strconv.ParseInt(fs.Arg(0), 10, 64); err != nil || id <= 0 {
			fmt.Fprintf(stderr, "braid queue relink: %q is not a job ID\n", fs.Arg(0))
			return 2
		}
	case "limit":
		if fs.NArg() != 2 {
			fmt.Fprintf(stderr, "braid queue limit: want a job ID and a rate such as 500K, or none\n")
			return 2
		}
		var err error
		if id, err = parseJobID(sub, fs.Arg(0)); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		if jobRate, err = parseJobLimit(fs.Arg(1)); err != nil {
			fmt.Fprintf(stderr, "braid queue limit: %v\n", err)
			return 2
		}
	case "in-order":
		if fs.NArg() != 2 {
			fmt.Fprintf(stderr, "braid queue in-order: want a job ID and on or off\n")
			return 2
		}
		var err error
		if id, err = parseJobID(sub, fs.Arg(0)); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		if inOrder, err = parseOnOff(fs.Arg(1)); err != nil {
			fmt.Fprintf(stderr, "braid queue in-order: %v\n", err)
			return 2
		}
	case "move":
		var err error
		if fs.NArg() != 2 {
			fmt.Fprintf(stderr, "braid queue move: want a job ID and up, down, top or bottom\n")
			return 2
		}
		if id, err = strconv.ParseInt(fs.Arg(0), 10, 64); err != nil || id <= 0 {
			fmt.Fprintf(stderr, "braid queue move: %q is not a job ID\n", fs.Arg(0))
			return 2
		}
		if _, ok := moves[fs.Arg(1)]; !ok {
			fmt.Fprintf(stderr, "braid queue move: %q is not up, down, top or bottom\n", fs.Arg(1))
			return 2
		}
	default:
		fmt.Fprintf(stderr, "braid queue: unknown command %q\n%s", sub, queueUsage)
		return 2
	}
	rate, err := parseRate(*limit)
	if err != nil {
		fmt.Fprintf(stderr, "braid queue run: --limit: %v\n", err)
		return 2
	}

	dir, err := queue.Dir(*state)
	if err != nil {
		fmt.Fprintf(stderr, "braid queue: %v\n", err)
		return 1
	}
	q, err := queue.Open(dir)
	if err != nil {
		fmt.Fprintf(stderr, "braid queue: %v\n", err)
		return 1
	}
	defer q.Close()
	for _, n := range q.Notices() {
		fmt.Fprintf(stderr, "braid queue: %s\n", n)
	}

	switch sub {
	case "list":
		err = queueList(q, stdout, *asJSON)
	case "pause":
		// A done torrent that seeds stops seeding, as in the window.
		var seeds bool
		if seeds, err = q.PauseSeeding(id); err == nil && !seeds {
			err = q.Pause(id, "")
		}
	case "resume":
		// A done torrent whose seeding was paused (in the window) seeds
		// again; any other job is resumed as such.
		var seeds bool
		if seeds, err = q.ResumeSeeding(id); err == nil && !seeds {
			err = q.Resume(id)
		}
	case "remove":
		if *withFiles {
			_, err = runner.RemoveWithFiles(q, id)
		} else {
			err = q.Remove(id)
		}
	case "move":
		err = moves[fs.Arg(1)](q, id)
	case "relink":
		err = queueRelink(ctx, q, id, fs.Arg(1), stdout)
	case "limit":
		err = queueLimit(q, id, jobRate, stdout)
	case "in-order":
		err = queueInOrder(q, id, inOrder, stdout)
	case "verify", "repair":
		err = queueCheck(ctx, q, id, sub == "repair", stdout)
	case "run":
		closeLog, lerr := openLog(dir)
		if lerr != nil {
			fmt.Fprintf(stderr, "braid queue: %v\n", lerr)
		}
		defer closeLog()
		f := runFlags{maxConn: *maxConn, perHost: *perHost, jobs: *jobs, rate: rate, retryFor: *retryFor, dir: *dlDir}
		if proxy.allProxy != "" || proxy.noProxy != "" {
			if f.network, err = proxy.network(); err != nil {
				fmt.Fprintf(stderr, "braid queue run: %v\n", err)
				return 2
			}
		} else {
			var why error // the run goes on, through the system's proxy
			if f.network, why = runner.StoredNetwork(q); why != nil {
				fmt.Fprintf(stderr, "braid queue run: %v\n", why)
			}
		}
		if *rpcListen != "" {
			f.rpc = &rpcFlags{listen: *rpcListen, origins: rpcOrigins, remote: *rpcRemote}
			f.rpc.tls, err = rpcTLS(*rpcSecure, *rpcCert, *rpcKey)
			if err == nil {
				f.rpc.secret, err = rpcSecretOf(*rpcSecret, *rpcSecretFile, *rpcListen, *rpcRemote && f.rpc.tls == nil, stderr)
			}
		}
		if err == nil {
			err = queueRun(ctx, q, f, stdout)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "braid queue %s: %v\n", sub, err)
		return 1
	}
	if sub != "list" && sub != "run" {
		wakeRunning(ctx)
	}
	return 0
}

// wakeRunning tells the Braid that runs the queue now, the window or a
// queue run, that another process changed it: it shows the change and
// takes up a job resumed or moved. Nothing is said when none runs.
func wakeRunning(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, _ = platform.Forward(ctx, platform.SocketPath(os.Getenv), platform.Handoff{Wake: true})
}

// moves are the directions of braid queue move.
var moves = map[string]func(*queue.Queue, int64) error{
	"up":     func(q *queue.Queue, id int64) error { return q.Move(id, queue.By(-1)) },
	"down":   func(q *queue.Queue, id int64) error { return q.Move(id, queue.By(1)) },
	"top":    func(q *queue.Queue, id int64) error { return q.Move(id, queue.At(0)) },
	"bottom": func(q *queue.Queue, id int64) error { return q.Move(id, queue.At(math.MaxInt)) },
}

func queueUsageErr(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// queueJob is one line of `braid queue list --json`.
type queueJob struct {
	ID         int64     `json:"id"`
	Kind       string    `json:"kind,omitempty"` // "sync": a folder kept a copy of a ResourceSync source; absent: a download
	State      string    `json:"state"`
	Name       string    `json:"name"`
	Source     string    `json:"source"`
	Dest       string    `json:"dest"`
	PiecesDone int       `json:"pieces_done"`
	Pieces     int       `json:"pieces"`
	BytesDone  int64     `json:"bytes_done"`
	Bytes      int64     `json:"bytes"`
	Error      string    `json:"error,omitempty"`
	Checked    string    `json:"checked,omitempty"` // "verified (sha-256)", "not verified (no hash published)"
	AddedAt    time.Time `json:"added_at"`
	Files      []string  `json:"files"`

	Signatures []jsonSignature `json:"signatures,omitempty"` // of files whose signature was checked
	Notice     string          `json:"notice,omitempty"`     // e.g. the publisher has a new version
	// NextTry is when a running job's downloads try again while they wait
	// for the network; absent when they do not wait.
	NextTry *time.Time `json:"next_try,omitempty"`
	// SpeedLimit is the job's own download limit in bytes per second;
	// absent when it has none.
	SpeedLimit int64 `json:"speed_limit,omitempty"`
}

// jobState is a job's state in the CLI's and --json's words: the queue's,
// and "link expired" for a job paused because its link expired (DESIGN.md,
// Job states).
func jobState(j queue.Job) string {
	if j.LinkExpired() {
		return "link expired"
	}
	return string(j.State)
}

// queueRelink gives job id the link u (runner.Relink) and says what was
// checked.
func queueRelink(ctx context.Context, q *queue.Queue, id int64, u string, w io.Writer) error {
	s, err := q.Settings()
	if err != nil {
		return err
	}
	checked, err := runner.Relink(ctx, q, runner.NewClient(s).HTTPClient(), id, u)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "job %d has its new link (%s); the bytes on disk are kept\n", id, checked)
	return nil
}

// waitingText is what queue list says of a job that waits for the
// network, "" for one that does not.
func waitingText(j queue.Job) string {
	if j.NextTry.IsZero() {
		return ""
	}
	w := "waiting for the network, next try at " + j.NextTry.Local().Format("15:04:05")
	if j.Error != "" { // why, while its link is read again
		w += " (" + cmp.Or(explain.OfText(j.Error).Clause(), j.Error) + ")"
	}
	return w
}

// whyText is why a job stopped, for a line of queue list: the kind of its
// error in words where it has one ("the server refused the connection"),
// else the error; --json gives the whole error.
func whyText(j queue.Job) string {
	if j.LinkExpired() {
		return strings.TrimPrefix(j.Error, queue.LinkExpiredPrefix+": ")
	}
	return cmp.Or(explain.OfText(j.Error).Clause(), j.Error)
}

func queueList(q *queue.Queue, w io.Writer, asJSON bool) error {
	jobs, err := q.List()
	if err != nil {
		return err
	}
	limits, err := q.Limits()
	if err != nil {
		return err
	}
	if asJSON {
		out := make([]queueJob, 0, len(jobs))
		for _, j := range jobs {
			done, pieces, bytesDone, size := jobProgress(q, j)
			qj := queueJob{ID: j.ID, State: jobState(j), Name: j.Name(), Source: j.Source, Dest: j.Dest,
				PiecesDone: done, Pieces: pieces, BytesDone: bytesDone, Bytes: size, Error: j.Error, Checked: j.Checked(),
				AddedAt: j.AddedAt.UTC(), Files: []string{}}
			for _, f := range j.Files {
				if f.Selected {
					qj.Files = append(qj.Files, f.Name)
				}
			}
			if j.Sync {
				qj.Kind = "sync"
				qj.Files, qj.BytesDone = syncedFiles(q, j.ID)
				qj.Bytes = qj.BytesDone
			}
			if w := waitingText(j); w != "" {
				at := j.NextTry.UTC()
				qj.NextTry, qj.Error = &at, w
			}
			qj.Signatures = queueSignatures(q, j.ID)
			qj.Notice = j.Notice
			qj.SpeedLimit = limits[j.ID]
			out = append(out, qj)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tCHECKED\tPIECES\tBYTES\tLIMIT\tNAME\tSOURCE")
	for _, j := range jobs {
		done, pieces, bytesDone, size := jobProgress(q, j)
		st := jobState(j)
		if e := cmp.Or(waitingText(j), whyText(j)); e != "" {
			st += " (" + e + ")"
		}
		st += queueTrustText(q, j.ID)
		checked := j.Checked()
		if checked == "" {
			checked = "-"
		}
		progress := fmt.Sprintf("%d/%d\t%s/%s", done, pieces, byteText(bytesDone), byteText(size))
		if j.Sync {
			files, bytes := syncedFiles(q, j.ID)
			progress = fmt.Sprintf("-\t%s in %d %s synced", byteText(bytes), len(files), plural(len(files), "file", "files"))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, st, checked, progress,
			rateText(limits[j.ID]), j.Name(), j.Source)
	}
	return tw.Flush()
}

// runFlags are queue run's flags over the settings; 0 keeps a setting.
type runFlags struct {
	maxConn, perHost, jobs int
	rate                   int64
	retryFor               time.Duration
	dir                    string    // where RPC downloads without a dir go
	rpc                    *rpcFlags // nil: no remote control
	// network is the proxy route of --all-proxy or --no-proxy, else the
	// window's stored setting (by default the environment's and the
	// system's).
	network *netconf.Network
}

// rpcFlags are queue run's remote-control flags.
type rpcFlags struct {
	listen, secret string
	origins        []string
	remote         bool
	tls            *tls.Config // nil: plain HTTP
}

func queueRun(ctx context.Context, q *queue.Queue, f runFlags, w io.Writer) error {
	// The runner's observer and the RPC server's notes write from
	// goroutines of their own: each line goes out whole.
	w = &lockedWriter{mu: &sync.Mutex{}, w: w}
	r := &runner.Runner{Queue: q, Jobs: f.jobs, RetryFor: f.retryFor, Observer: newQueueLog(w)}
	defer r.Close()
	ctx, shutdown := context.WithCancel(ctx) // aria2.shutdown ends it too
	defer shutdown()
	svc, stopped := queueService(ctx, r, f, w)
	if f.rpc != nil {
		return serveQueue(ctx, shutdown, q, svc, stopped, f, w)
	}
	if msg := queue.NothingToRun(q); msg != "" {
		fmt.Fprintln(w, msg)
		return nil
	}
	defer serveLinks(ctx, q, svc.Wake, f.dir, w)()
	err := svc.Drain(ctx)
	if ctx.Err() == nil {
		seedOn(ctx, q, svc, w)
	}
	// An action run when a job was done (a command) gets a moment to end,
	// so that how it went is on the job before this process goes.
	wait, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = r.WaitActions(wait)
	cancel()
	if *stopped {
		fmt.Fprintln(w, "stopped; the jobs it was running are paused with their progress (braid queue resume ID goes on)")
	}
	if ctx.Err() != nil {
		sayStillSeeding(r, w)
	}
	return err
}

// queueService keeps the queue running for queue run (runner.Service):
// the queue's settings, which the window edits too, with --max-conn,
// --max-conn-per-host and --limit over them. It says when the schedule
// holds the jobs and when it lets them run, and when its slower speed
// limits them. stopped tells, once ctx has ended, whether a run was
// under way then (its jobs are paused).
func queueService(ctx context.Context, r *runner.Runner, f runFlags, w io.Writer) (svc *runner.Service, stopped *bool) {
	held, slow := "", int64(-1) // what was said last; Held and Busy come from one goroutine
	stopped = new(bool)
	svc = runner.NewService(r)
	svc.MaxConns, svc.MaxConnsPerHost, svc.Limit, svc.Network = f.maxConn, f.perHost, f.rate, f.network
	svc.Held = func(s queue.Schedule, now time.Time) {
		if line := heldLine(s, now); line != held {
			held = line
			fmt.Fprintln(w, line)
		}
	}
	svc.Busy = func(busy bool) {
		if !busy {
			*stopped = ctx.Err() != nil
			return
		}
		if held != "" {
			held = ""
			fmt.Fprintln(w, "the schedule lets downloads run now")
		}
		if st, err := r.Queue.Settings(); err == nil && st.Schedule.AltSpeed && f.rate == 0 && st.Schedule.AltLimit != slow {
			slow = st.Schedule.AltLimit
			fmt.Fprintf(w, "the schedule's slower speed is on: downloads at most %s\n", rateText(st.Schedule.AltLimit))
		}
	}
	svc.Failed = func(err error) { fmt.Fprintln(w, err) }
	return svc, stopped
}

// heldLine says why the schedule holds the queued jobs at t.
func heldLine(s queue.Schedule, t time.Time) string {
	at := func(when time.Time) string {
		if when.Sub(t) < 20*time.Hour {
			return when.Local().Format("15:04:05")
		}
		return when.Local().Format("Mon 15:04")
	}
	if t.Before(s.PausedUntil) {
		return "the schedule holds the queue: all downloads are paused until " + at(s.PausedUntil)
	}
	if next, ok := s.NextChange(t); ok {
		return "the schedule holds the queue: outside its time windows; downloads start at " + at(next)
	}
	return "the schedule holds the queue: outside its time windows"
}

// sayStillSeeding says, as a run stops, that the torrents it seeds seed
// on at the next start (runner.SeedAgain).
func sayStillSeeding(r *runner.Runner, w io.Writer) {
	if len(r.Seeding()) > 0 {
		fmt.Fprintln(w, "the torrents seeding now seed on at the next start (the window or braid queue run)")
	}
}

// syncedFiles are the files sync job id's sets record as synced, by
// name, and their bytes: those of an interrupted sync too.
func syncedFiles(q *queue.Queue, id int64) (names []string, bytes int64) {
	sets, _ := q.SyncSets(id) // a read that fails lists none
	names = []string{}
	for _, s := range sets {
		for name, f := range s.Files {
			names = append(names, name)
			bytes += max(f.Size, 0)
		}
	}
	slices.Sort(names)
	return names, bytes
}

// jobProgress is j.Progress, with a torrent job's pieces counted as the
// torrent has them: its own pieces, done as recorded once verified (the
// job's files carry a metalink layout of 1 MiB pieces).
func jobProgress(q *queue.Queue, j queue.Job) (done, pieces int, bytesDone, size int64) {
	done, pieces, bytesDone, size = j.Progress()
	m, ok, err := q.TorrentMap(j) // false: not a torrent job
	if err != nil || !ok {
		return done, pieces, bytesDone, size
	}
	var names []string
	for _, f := range j.Files {
		if f.Selected {
			names = append(names, f.Name)
		}
	}
	done, pieces = m.Count(names)
	return done, pieces, bytesDone, size
}

// seedEvery is how often queue run says how the torrents it seeds are
// doing.
const seedEvery = time.Minute

// seedOn keeps the torrents that seed after their download (the queue's
// settings: torrent_seed_ratio, torrent_seed_minutes) seeding until they
// reach their ratio or time, as the window does, saying so once a
// minute; ctx's end (Ctrl-C) stops them, and they seed on at the next
// start. braid queue pause ID stops one (runner.Service.WaitSeeding).
func seedOn(ctx context.Context, q *queue.Queue, svc *runner.Service, w io.Writer) {
	r := svc.Runner
	not := r.NotSeedingOn()
	for _, id := range slices.Sorted(maps.Keys(not)) {
		why := strings.TrimPrefix(not[id].Error(), fmt.Sprintf("job %d: seed again: ", id))
		fmt.Fprintf(w, "job %d does not seed on: %s\n", id, queue.Redact(why))
	}
	ids := r.Seeding()
	if len(ids) == 0 {
		return
	}
	goal := "it is stopped"
	if st, err := q.Settings(); err == nil {
		goal = seedGoalText(st.Torrent.SeedRatio, st.Torrent.SeedTime)
	}
	jobs := map[int64]*torrent.Job{}
	for _, id := range ids {
		if tj, ok := r.LiveTorrent(id); ok {
			jobs[id] = tj
			fmt.Fprintf(w, "job %d %s: seeding until %s (Ctrl-C stops; it seeds on at the next start)\n", id, tj.Snapshot().Name, goal)
		}
	}
	say := func() {
		for _, id := range ids {
			tj := jobs[id]
			if tj == nil {
				continue
			}
			s := tj.Snapshot()
			state := "seeding"
			select {
			case <-tj.Done():
				state = "seeding stopped" // braid queue pause ID
				if tj.GoalReached() {
					state = "done seeding"
				}
				delete(jobs, id) // said once
			default:
			}
			fmt.Fprintf(w, "job %d %s: %s, up %s, ratio %.2f, %d peers\n", id, s.Name, state, byteText(s.Uploaded), s.Ratio, s.Peers)
		}
	}
	svc.WaitSeeding(ctx, seedEvery, say)
	if ctx.Err() == nil {
		say()
	}
}

// seedGoalText says when seeding ends, by the queue's settings.
func seedGoalText(ratio float64, d time.Duration) string {
	mins := fmt.Sprintf("%d minutes", int(d.Minutes()))
	switch {
	case ratio > 0 && d > 0:
		return fmt.Sprintf("it has sent %.2f times its size, or for %s", ratio, mins)
	case d > 0:
		return "it has seeded for " + mins
	default:
		return fmt.Sprintf("it has sent %.2f times its size", ratio)
	}
}

// serveQueue runs the queue and answers aria2's JSON-RPC until
// aria2.shutdown (which calls shutdown) or ctx's end, running jobs as
// they are added.
func serveQueue(ctx context.Context, shutdown func(), q *queue.Queue, svc *runner.Service, stopped *bool, f runFlags, w io.Writer) error {
	ln, err := rpc.Listen(f.rpc.listen, f.rpc.remote)
	if err != nil {
		return err
	}
	dl := &rpc.QueueDownloads{Queue: q, Live: svc.Runner, Wake: svc.Wake, Reader: svc}
	dl.Note = func(m string) { fmt.Fprintln(w, m) }
	dl.SetDir(f.dir)
	// getGlobalOption answers what this run's flags hold, not the saved
	// settings under them.
	dl.HoldRunOptions(rpc.RunOptions{MaxConcurrent: f.jobs, MaxOverallDownload: f.rate, MaxConnsPerHost: f.perHost})
	srv, err := rpc.New(dl, rpc.Options{Secret: f.rpc.secret, AllowOrigins: f.rpc.origins, AllowRemote: f.rpc.remote,
		TLS: f.rpc.tls, Version: version, Shutdown: func(bool) { shutdown() }, Activity: svc.Activity})
	if err != nil {
		ln.Close()
		return err
	}
	// A browser's link, or another braid command's change (braid queue
	// pause), wakes the queue and is told to the clients.
	defer serveLinks(ctx, q, func() { svc.Wake(); srv.Changed() }, f.dir, w)()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	scheme := "http"
	if f.rpc.tls != nil {
		scheme = "https"
	}
	fmt.Fprintf(w, "answering aria2 JSON-RPC on %s://%s/jsonrpc\n", scheme, ln.Addr())
	svc.Serve(ctx, true)
	<-served
	if *stopped {
		fmt.Fprintln(w, "stopped; the jobs it was running are paused with their progress")
	} else {
		fmt.Fprintln(w, "stopped")
	}
	sayStillSeeding(svc.Runner, w)
	return nil
}
