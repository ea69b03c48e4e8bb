package rpc

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// aria2's options as Braid honours them. getGlobalOption and getOption
// answer every one of them with its real value, in aria2's string form;
// changeGlobalOption and changeOption change those Braid can change and
// refuse any other with a sentence that names it, rather than answer OK
// and change nothing. A client that sends an option at the value it
// already has (a web front end saving its whole form) is answered OK:
// nothing needed to change.

// globalOption is one of aria2's global options that Braid honours.
type globalOption struct {
	name string
	// get is the option's value in aria2's form; false leaves it out (a
	// value aria2 could not hold).
	get func(GlobalOptions) (string, bool)
	// set changes it in g; nil: Braid cannot change it while it runs.
	set func(g *GlobalOptions, v string) error
}

// maxPerServer is aria2's bound of max-connection-per-server.
const maxPerServer = 16

var globalOptions = []globalOption{
	{"dir",
		func(g GlobalOptions) (string, bool) { return g.Dir, g.Dir != "" },
		func(g *GlobalOptions, v string) error {
			if v == "" {
				return failf("The option dir needs a folder.")
			}
			g.Dir = v
			return nil
		}},
	{"max-concurrent-downloads",
		func(g GlobalOptions) (string, bool) { return strconv.Itoa(g.MaxConcurrent), true },
		func(g *GlobalOptions, v string) (err error) { g.MaxConcurrent, err = positive(v); return }},
	{"max-overall-download-limit",
		func(g GlobalOptions) (string, bool) { return itoa(g.MaxOverallDownload), true },
		func(g *GlobalOptions, v string) (err error) { g.MaxOverallDownload, err = parseSize(v); return }},
	{"max-overall-upload-limit",
		func(g GlobalOptions) (string, bool) { return itoa(g.MaxOverallUpload), true },
		func(g *GlobalOptions, v string) (err error) { g.MaxOverallUpload, err = parseSize(v); return }},
	{"max-connection-per-server",
		func(g GlobalOptions) (string, bool) {
			n := g.MaxConnectionsPerSrv
			return strconv.Itoa(n), n >= 1 && n <= maxPerServer
		},
		func(g *GlobalOptions, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > maxPerServer {
				return failf("The option max-connection-per-server takes a number from 1 to %d, not %q.", maxPerServer, v)
			}
			g.MaxConnectionsPerSrv = n
			return nil
		}},
	{"seed-ratio",
		func(g GlobalOptions) (string, bool) { return ratioText(g.SeedRatio), true },
		func(g *GlobalOptions, v string) error {
			r, err := strconv.ParseFloat(v, 64)
			if err != nil || r < 0 || math.IsInf(r, 0) || math.IsNaN(r) {
				return failf("The option seed-ratio takes a ratio of 0 or more (1.0: upload as much as downloaded), not %q.", v)
			}
			g.SeedRatio = r
			return nil
		}},
	{"seed-time",
		func(g GlobalOptions) (string, bool) {
			if g.SeedTime <= 0 {
				return "", false // aria2 has no value for "no time limit"
			}
			return strconv.FormatFloat(g.SeedTime.Minutes(), 'f', -1, 64), true
		},
		func(g *GlobalOptions, v string) error {
			m, err := strconv.ParseFloat(v, 64)
			if err != nil || m < 0 || m > 1e9 || math.IsNaN(m) {
				return failf("The option seed-time takes minutes, 0 or more, not %q.", v)
			}
			g.SeedTime = time.Duration(m * float64(time.Minute))
			return nil
		}},
	// Trackers, DHT and PEX go together in Braid (Settings, BitTorrent).
	{"enable-dht", func(g GlobalOptions) (string, bool) { return strconv.FormatBool(g.Discovery), true }, nil},
	{"enable-peer-exchange", func(g GlobalOptions) (string, bool) { return strconv.FormatBool(g.Discovery), true }, nil},
	// Braid always goes on from what a download has on disk.
	{"continue", func(GlobalOptions) (string, bool) { return "true", true }, nil},
	// The server keeps this many results of removed downloads.
	{"max-download-result", func(GlobalOptions) (string, bool) { return strconv.Itoa(maxRemoved), true }, nil},
}

func findGlobal(name string) (globalOption, bool) {
	i := slices.IndexFunc(globalOptions, func(o globalOption) bool { return o.name == name })
	if i < 0 {
		return globalOption{}, false
	}
	return globalOptions[i], true
}

// globalValues are the global options' values by name.
func globalValues(g GlobalOptions) map[string]string {
	out := make(map[string]string, len(globalOptions))
	for _, o := range globalOptions {
		if v, ok := o.get(g); ok {
			out[o.name] = v
		}
	}
	return out
}

// notHonoured is the refusal of options Braid does not honour, or cannot
// change (names sorted, so the answer is the same each time).
func notHonoured(unknown, fixed []string) error {
	slices.Sort(unknown)
	slices.Sort(fixed)
	var parts []string
	if len(unknown) > 0 {
		parts = append(parts, fmt.Sprintf("Braid does not honour the option%s %s.", plural(unknown), strings.Join(unknown, ", ")))
	}
	if len(fixed) > 0 {
		parts = append(parts, fmt.Sprintf("Braid cannot change the option%s %s while it runs.", plural(fixed), strings.Join(fixed, ", ")))
	}
	return failf("%s Nothing was changed.", strings.Join(parts, " "))
}

func plural(names []string) string {
	if len(names) > 1 {
		return "s"
	}
	return ""
}

// jobValues are a download's options: its own, and the global ones that
// hold for each download.
func (s *Server) jobValues(j Job) (map[string]string, error) {
	g, err := s.d.GlobalOptions()
	if err != nil {
		return nil, err
	}
	o := map[string]string{"dir": j.Dir, "continue": "true"}
	if v, ok := findOption("max-connection-per-server").get(g); ok {
		o["max-connection-per-server"] = v
	}
	if len(j.Files) == 1 {
		if rel, err := filepath.Rel(j.Dir, j.Files[0].Path); err == nil {
			o["out"] = filepath.ToSlash(rel)
		}
	}
	if j.Referer != "" {
		o["referer"] = j.Referer
	}
	if j.InfoHash != "" {
		for _, name := range []string{"seed-ratio", "seed-time", "enable-dht", "enable-peer-exchange"} {
			if v, ok := findOption(name).get(g); ok {
				o[name] = v
			}
		}
	}
	if j.State != Removed {
		jo, err := s.d.JobOptions(j.ID)
		if err != nil {
			return nil, err
		}
		o["max-download-limit"] = itoa(jo.MaxDownloadLimit)
		for k, v := range map[string]string{"all-proxy": jo.AllProxy, "all-proxy-user": jo.AllProxyUser, "no-proxy": jo.NoProxy} {
			if v != "" {
				o[k] = v
			}
		}
	}
	return o, nil
}

// findOption is a global option of the table, which exists.
func findOption(name string) globalOption {
	o, _ := findGlobal(name)
	return o
}

func (s *Server) getOption(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	j, err := s.job(gid, Want{})
	if err != nil {
		return nil, err
	}
	return s.jobValues(j)
}

// changeOption changes a download's own speed limit, the one option
// Braid keeps per download that can change once it is added.
func (s *Server) changeOption(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	opts, err := p.options(1)
	if err != nil {
		return nil, err
	}
	j, err := s.job(gid, Want{})
	if err != nil {
		return nil, err
	}
	now, err := s.jobValues(j)
	if err != nil {
		return nil, err
	}
	if j.State == Removed {
		return nil, failf("Cannot change option for GID#%s: it was removed.", gid)
	}
	var unknown, fixed []string
	var limit []string
	for k, v := range opts {
		switch {
		case k == "max-download-limit":
			limit = v
		case len(v) == 1 && now[k] == v[0]:
			// Already so: nothing to change.
		case isGlobal(k) || now[k] != "":
			fixed = append(fixed, k)
		default:
			unknown = append(unknown, k)
		}
	}
	if len(unknown)+len(fixed) > 0 {
		return nil, notHonoured(unknown, fixed)
	}
	if len(limit) == 0 {
		return "OK", nil
	}
	n, err := parseSize(limit[0])
	if err != nil {
		return nil, failf("max-download-limit: %v", err)
	}
	if err := s.d.SetJobOptions(j.ID, JobOptions{MaxDownloadLimit: n}); err != nil {
		return nil, err
	}
	return "OK", nil
}

func isGlobal(name string) bool {
	_, ok := findGlobal(name)
	return ok
}

func (s *Server) getGlobalOption(context.Context, params) (any, error) {
	g, err := s.d.GlobalOptions()
	if err != nil {
		return nil, err
	}
	return globalValues(g), nil
}

// changeGlobalOption changes the options given, all or none: one that
// Braid does not honour, cannot change, or whose value is wrong refuses
// the whole call.
func (s *Server) changeGlobalOption(_ context.Context, p params) (any, error) {
	opts, err := p.options(0)
	if err != nil {
		return nil, err
	}
	g, err := s.d.GlobalOptions()
	if err != nil {
		return nil, err
	}
	now := globalValues(g)
	var unknown, fixed []string
	for k, v := range opts {
		o, ok := findGlobal(k)
		switch {
		case !ok:
			unknown = append(unknown, k)
		case len(v) == 0:
		case o.set == nil && now[k] != v[0]:
			fixed = append(fixed, k)
		}
	}
	if len(unknown)+len(fixed) > 0 {
		return nil, notHonoured(unknown, fixed)
	}
	for k, v := range opts {
		o, _ := findGlobal(k)
		if len(v) == 0 || o.set == nil {
			continue
		}
		if err := o.set(&g, v[0]); err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "The option") {
				err = failf("The option %s: %s.", k, msg) // params.go's words
			}
			return nil, failf("%v Nothing was changed.", err)
		}
	}
	if err := s.d.SetGlobalOptions(g); err != nil {
		return nil, err
	}
	return "OK", nil
}

// ratioText is a ratio as aria2 writes it: "1.0", "2.5".
func ratioText(r float64) string {
	s := strconv.FormatFloat(r, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
