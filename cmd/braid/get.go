package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/platform"
	"braid/runner"
)

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
	stdout      io.Writer
	stderr      io.Writer
	torrent     *torrentFlagValues // BitTorrent flags (torrent.go)
	net         *netconf.Session   // the sources' logins, cookies and headers (netflags.go)

	// requireSignature: a file counts as done only if a known key signed it.
	requireSignature bool
	jobs             int // sources downloading at once (--jobs)
	// members are the paths inside the one archive SOURCE (a ZIP, or a tar
	// with an eStargz index) to fetch alone
	// (--member, getmember.go); none: the whole source.
	members memberList
	// inOrder fetches each file from its start (--in-order).
	inOrder bool
	// par2 is --par2's parity set for the one file of a plain URL; nil:
	// the parity a metalink lists.
	par2 *runner.Parity
}

// cmdGet adds the sources as jobs of the queue, runs them through the
// runner and prints what happens, as text or JSON lines.
func cmdGet(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, code := parseGet(args, stdout, stderr)
	if code >= 0 {
		return code
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "braid get: -d: %v\n", err)
		return 1
	}
	if len(o.members) > 0 {
		return getMembers(ctx, o)
	}
	g := &runner.Get{
		Dir:              o.dir,
		State:            o.state,
		Locations:        o.prefs.Locations,
		Given:            o.given,
		Defaults:         o.defaults,
		Client:           &o.client,
		RequireHash:      o.requireHash,
		RequireSignature: o.requireSignature,
		RetryFor:         o.retryFor,
		Jobs:             o.jobs,
		Torrent:          o.torrent.options(),
		Net:              o.net,
		Observer:         newPrinter(o),
		InOrder:          o.inOrder,
		Par2:             o.par2,
	}
	if !g.Run(ctx, o.sources) {
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
When no mirror can send some pieces good (every mirror sends the same damaged
bytes, or none is left) and the file has a PAR2 parity set (listed beside it
in the metalink, or named with --par2), the index and the fewest volumes the
damage needs are fetched and the pieces are rebuilt: "verified (sha-256),
3 pieces rebuilt from parity".

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
	netf := addNetFlags(fs)
	requireHash := fs.Bool("require-hash", false, "fail (exit 1) for a file that no published hash can verify")
	requireSig := fs.Bool("require-signature", false, "fail a file unless an OpenPGP key of the keyring (braid keys) signed it; it stays NAME.part")
	inOrder := fs.Bool("in-order", false, "fetch each file from its start, to use it while it arrives (every mirror still fills the next pieces; a torrent asks for a window from each file's start, a media file's first and last pieces first)")
	var members memberList
	fs.Var(&members, "member", "fetch only this file out of the archive SOURCE, a ZIP or a tar with an eStargz index (its path inside, as braid inspect lists it; repeatable): read by range, unpacked, checked against its CRC-32 or sha-256")
	par2Arg := fs.String("par2", "", "the PAR2 parity set of a plain URL's file, used only when no mirror can send pieces good: the URL of its index NAME.par2 (its volumes NAME.volXX+YY.par2 are looked for beside it) or the path of one on disk, its volumes beside it")
	retryFor := fs.Duration("retry-for", defaultRetryFor, "how long to wait for the network while every mirror fails with temporary errors, e.g. 30m (0: forever)")
	// Flags may follow the sources (braid get URL -d DIR), as aria2c and
	// curl take them.
	sources, code, ok := parseInterspersed(fs, args)
	if !ok {
		return nil, code
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
	if len(sources) == 0 {
		fmt.Fprintln(stderr, "braid get: no SOURCE given")
		fs.Usage()
		return nil, 2
	}
	if len(members) > 0 && len(sources) != 1 {
		fmt.Fprintf(stderr, "braid get: --member takes the members of one archive: give one SOURCE, not %d\n", len(sources))
		return nil, 2
	}
	var par2Set *runner.Parity
	if *par2Arg != "" {
		if len(sources) != 1 || len(members) > 0 {
			fmt.Fprintln(stderr, "braid get: --par2 names the parity set of one file: give one SOURCE (a plain URL), without --member")
			return nil, 2
		}
		if par2Set, err = runner.ParityArg(*par2Arg); err != nil {
			fmt.Fprintf(stderr, "braid get: %v\n", err)
			return nil, 2
		}
	}
	network, session, err := netf.open(sources)
	if err != nil {
		fmt.Fprintf(stderr, "braid get: %v\n", err)
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
			Network:           network,
		},
		net:         session,
		jobs:        *jobs,
		json:        *jsonOut,
		requireHash: *requireHash,
		retryFor:    *retryFor,
		sources:     onceEach(sources, stderr, *jsonOut),
		tty:         isTerminal(stdout),
		stdout:      stdout,
		stderr:      stderr,
		torrent:     tor,
	}
	o.requireSignature = *requireSig
	o.members = members
	o.inOrder = *inOrder
	o.par2 = par2Set
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

// defaultJobs is how many sources `braid get` downloads at once, as the
// queue's "downloads at once" setting defaults to.
const defaultJobs = 3

// defaultRetryFor is how long `braid get` waits for the network when every
// mirror fails with temporary errors: long enough for a Wi-Fi drop, a VPN
// reconnect or a server restart, short enough that a script learns of an
// outage that is not going away.
const defaultRetryFor = 10 * time.Minute

// getNetworkHelp is the part of `braid get -h` about a misbehaving network.
const getNetworkHelp = `When every mirror fails with temporary errors (no network, timeouts, 5xx, 429,
503), get waits, showing "waiting for the network, next try in 20 s", and tries
again with a back-off of up to a minute; it gives up after --retry-for. A file
whose server does not tell its size is streamed on one connection and shown as
bytes and speed without a percentage; it is checked against whatever hash is
known (metalink, Digest header).
`

// givenPrefs are the --lang and --os the user gave on the command line,
// a nil list for a flag not given (see metalink.Select), an empty one for
// a flag given empty ("any").
func givenPrefs(fs *flag.FlagSet, lang, osList string) metalink.Prefs {
	var p metalink.Prefs
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "lang":
			p.Languages = append([]string{}, commaList(lang)...)
		case "os":
			p.OS = append([]string{}, commaList(osList)...)
		}
	})
	return p
}
