package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/resolve"
	"braid/engine/signature"
	"braid/engine/source"
	"braid/engine/torrent"
	"braid/platform"

	"golang.org/x/text/language"
)

// inspectTimeout bounds resolving a source over the network.
const inspectTimeout = 2 * time.Minute

const inspectUsage = `Usage: braid inspect [--lang L] [--os O] [--location C] [--json] SOURCE

Shows every file of a metalink with its size, hashes, pieces, languages and
operating systems, the mirrors in the order they would be tried, and whether
the file is selected (and why not), then the files refused as unsafe and the
warnings. SOURCE is a .meta4 or .metalink file (a path or a file:// URL),
the http(s) URL of one, or the plain http(s) or ftp URL of a file, whose
server's Link and Digest headers (RFC 6249) name its mirrors and hashes.
For the plain http(s) URL of a ZIP archive (.zip, .jar, .whl, .apk, ...), or a
metalink of one such file, it also lists the members: size, compressed size,
method, CRC-32 and path, read from the archive's end and its directory in two
or three range requests (from a metalink's mirrors side by side, by whole
pieces checked against its piece hashes); braid get --member PATH fetches one
of them. For a tar (.tar, .tar.gz, .tgz, .tar.xz, ..., or a registry blob
named by its sha256: digest) it reads the end for an eStargz index (the
footer and the table of contents, two range requests) and lists the entries:
size, the size of their gzip chunks, type, sha-256 and path; a tar without
an index is said to be one, whose members only the whole archive gives.
For a .torrent (a path or an http(s) URL) or a magnet link it shows the info
hash, trackers, web seeds, pieces and files; a magnet link's files are known
only once peers send its metadata, which braid get fetches. A .torrent of one
ZIP archive or tar that names web seeds gets its members listed too, read
from the web seeds by whole pieces checked against the torrent's sha-1
hashes.
For a PAR2 index file (NAME.par2, a path) it shows the parity set: its
files, slices, recovery blocks in the volumes beside it, and how much damage
they can mend.

--lang, --os and --location are comma lists that replace the defaults taken
from the locale and the running system; an empty list (--lang=) selects any
language or OS. Given, --lang and --os are filters. The defaults only narrow a
choice between alternatives: the file in the best match for the locale's
language (en-GB before en-US), the build for the running system. When no
build of a file is in the locale's language, the English one is taken, else
the first one listed, never none; when no file is for the running system,
the OS does not filter. A note says so. Exit status: 0 shown, 1 unreadable or invalid source, 2 usage.

Flags:
`

// cmdInspect implements 'braid inspect' with the user's defaults.
func cmdInspect(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runInspect(ctx, args, stdout, stderr, platform.DefaultPrefs(), resolve.Options{})
}

// runInspect is cmdInspect with the default selection and the resolver's
// options given, so tests depend neither on the machine's locale nor on
// the default size limits.
func runInspect(ctx context.Context, args []string, stdout, stderr io.Writer, defaults metalink.Prefs, opts resolve.Options) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), inspectUsage)
		fs.PrintDefaults()
	}
	langs := fs.String("lang", strings.Join(defaults.Languages, ","), "languages as BCP 47 tags, e.g. de,en")
	oses := fs.String("os", strings.Join(defaults.OS, ","), "operating systems, e.g. linux/amd64,Linux-x86")
	locs := fs.String("location", strings.Join(defaults.Locations, ","), "countries whose mirrors go first, e.g. DE,AT")
	asJSON := fs.Bool("json", false, "print the report as JSON (schema version 1)")
	netf := addNetFlags(fs)

	sources, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(sources) != 1 {
		fmt.Fprintf(stderr, "braid inspect: want one SOURCE, got %d\n", len(sources))
		fs.Usage()
		return 2
	}
	prefs, err := inspectPrefs(*langs, *oses, *locs)
	if err != nil {
		fmt.Fprintf(stderr, "braid inspect: %v\n", err)
		return 2
	}

	network, session, err := netf.open(sources)
	if err != nil {
		fmt.Fprintf(stderr, "braid inspect: %v\n", err)
		return 2
	}
	via := reach{client: &engine.Client{Network: network}, net: session}
	if opts.HTTPClient == nil {
		opts.HTTPClient = via.http()
	}
	opts.Network, opts.Session = network, session // an ftp source's

	if isPar2Path(sources[0]) {
		return inspectParity(sources[0], *asJSON, stdout, stderr)
	}
	rctx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	var report *inspectReport
	if source.Of(sources[0]).IsTorrent() {
		var spec *torrent.Spec
		report, spec, err = torrentReport(rctx, sources[0], opts.HTTPClient)
		if err != nil { // torrent.Resolve's errors do not name the source
			fmt.Fprintf(stderr, "braid inspect: %s: %v\n", sources[0], err)
			return 1
		}
		if len(report.Files) == 1 && isZipName(report.Files[0].Name) {
			report.Archive = torrentZipListing(rctx, spec, via)
		} else if len(report.Files) == 1 && mayHaveIndex(report.Files[0].Name) {
			report.Archive = torrentTarListing(rctx, sources[0], spec, via)
		}
		return writeInspect(report, *asJSON, stdout, stderr)
	}
	res, err := resolve.Resolve(rctx, sources[0], opts)
	if err != nil {
		fmt.Fprintf(stderr, "braid inspect: %v%s\n", err, syncHint(err, sources[0]))
		return 1
	}
	// The flags the user gave are filters; the defaults only narrow
	// choices between alternatives (metalink.Select).
	var given metalink.Prefs
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "lang":
			given.Languages = append([]string{}, prefs.Languages...)
		case "os":
			given.OS = append([]string{}, prefs.OS...)
		}
	})
	report = newInspectReport(sources[0], res, prefs, given, defaults)
	if len(res.Document.Files) == 1 && isZipName(res.Document.Files[0].Name) {
		if res.Kind == resolve.KindPlainURL {
			report.Archive = zipListing(rctx, sources[0], res.Origin, via)
		} else {
			report.Archive = zipListingMirrors(rctx, res.Document.Files[0], via)
		}
	} else if len(res.Document.Files) == 1 && res.Kind == resolve.KindPlainURL && (isTarName(res.Document.Files[0].Name) || isTarURL(sources[0])) {
		report.Archive = tarListing(rctx, sources[0], res.Origin, via)
	} else if len(res.Document.Files) == 1 && res.Kind != resolve.KindPlainURL && mayHaveIndex(res.Document.Files[0].Name) {
		report.Archive = tarListingMirrors(rctx, sources[0], res.Document.Files[0], via)
	}
	return writeInspect(report, *asJSON, stdout, stderr)
}

// writeInspect prints the report, as JSON or for people.
func writeInspect(report *inspectReport, asJSON bool, stdout, stderr io.Writer) int {
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // URLs with & stay readable
		if err := enc.Encode(report); err != nil {
			fmt.Fprintf(stderr, "braid inspect: %v\n", err)
			return 1
		}
		return 0
	}
	if err := report.writeText(stdout); err != nil {
		fmt.Fprintf(stderr, "braid inspect: %v\n", err)
		return 1
	}
	return 0
}

// inspectPrefs reads the comma lists of the selection flags, refusing
// language tags and country codes that cannot mean anything.
func inspectPrefs(langs, oses, locs string) (metalink.Prefs, error) {
	var p metalink.Prefs
	for _, l := range inspectSplit(langs) {
		if _, err := language.Parse(l); err != nil {
			return p, fmt.Errorf("--lang %q is not a BCP 47 language tag: %w", l, err)
		}
		p.Languages = append(p.Languages, l)
	}
	p.OS = inspectSplit(oses)
	for _, c := range inspectSplit(locs) {
		n := metalink.NormalizeCountry(c)
		if n == "" {
			return p, fmt.Errorf("--location %q is not a two-letter country code", c)
		}
		p.Locations = append(p.Locations, n)
	}
	return p, nil
}

// inspectSplit splits a comma list, dropping empty items.
func inspectSplit(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// The JSON report of 'braid inspect --json', schema version 1. Scripts rely
// on it: keys are only ever added (and then the version stays 1); renaming
// or removing a key, or changing a meaning, bumps Version. Every key is
// always present; lists are [] rather than null, and a value that does not
// exist is null.
type inspectReport struct {
	Version int    `json:"version"` // schema version: 1
	Source  string `json:"source"`  // SOURCE as given
	// Kind is what SOURCE turned out to be: "metalink_file",
	// "metalink_url", "plain_url" (a file's own URL, described by its
	// server's headers), "torrent_file", "torrent_url" or "magnet".
	Kind            string            `json:"kind"`
	Server          *inspectServer    `json:"server"`           // plain_url only, else null
	MetalinkVersion int               `json:"metalink_version"` // 3 or 4; 0 for a plain_url
	Generator       string            `json:"generator"`        // "" when not stated
	Origin          string            `json:"origin"`           // "" when not stated
	Dynamic         bool              `json:"dynamic"`          // origin may hold a newer document
	Published       *string           `json:"published"`        // RFC 3339 in UTC, or null
	Updated         *string           `json:"updated"`          // RFC 3339 in UTC, or null
	Prefs           inspectSelection  `json:"prefs"`            // the selection applied
	Selected        int               `json:"selected"`         // how many files are selected
	Notes           []string          `json:"notes"`            // where the defaults did not narrow the choice, and why
	Files           []inspectFile     `json:"files"`            // in document order
	Rejected        []inspectRejected `json:"rejected"`         // files refused as unsafe
	Warnings        []string          `json:"warnings"`         // things skipped or repaired
	Torrent         *inspectTorrent   `json:"torrent"`          // torrent_file, torrent_url and magnet only, else null
	Archive         *inspectArchive   `json:"archive"`          // a plain_url, a one-file metalink or torrent of a ZIP archive or a tar only, else null
}

// inspectServer is what the server of a plain URL said about the file.
type inspectServer struct {
	URL     string        `json:"url"`     // after redirects, without credentials
	ETag    string        `json:"etag"`    // "" when none
	Size    int64         `json:"size"`    // -1 when unknown
	Ranges  bool          `json:"ranges"`  // it serves byte ranges
	Digests []inspectHash `json:"digests"` // from its Digest header
}

// inspectSelection is the selection a report applied; empty lists mean any.
type inspectSelection struct {
	Languages []string `json:"languages"`
	OS        []string `json:"os"`
	Locations []string `json:"locations"`
}

// inspectFile is one file of the report.
type inspectFile struct {
	Name        string           `json:"name"`
	Size        int64            `json:"size"` // bytes, -1 when unknown
	Identity    string           `json:"identity"`
	Version     string           `json:"version"`
	Description string           `json:"description"`
	Languages   []string         `json:"languages"` // [] means any language
	OS          []string         `json:"os"`        // [] means any OS
	Hashes      []inspectHash    `json:"hashes"`    // whole-file hashes
	Pieces      *inspectPieces   `json:"pieces"`    // null without piece hashes
	Signature   *string          `json:"signature"` // media type of the signature, or null
	Selected    bool             `json:"selected"`
	Reason      string           `json:"reason"`   // why not selected; "" when selected
	Mirrors     []inspectMirror  `json:"mirrors"`  // in the order they would be tried
	MetaURLs    []inspectMetaURL `json:"metaurls"` // .torrent and other metadata
	Publisher   *inspectParty    `json:"publisher"`
	License     *inspectParty    `json:"license"`
}

// inspectParty is a publisher or licence.
type inspectParty struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// inspectHash is a whole-file hash: IANA name and lower-case hex.
type inspectHash struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// inspectPieces describes the piece hashes.
type inspectPieces struct {
	Type   string `json:"type"`   // IANA hash name
	Length int64  `json:"length"` // bytes per piece (the last may be shorter)
	Count  int    `json:"count"`  // number of pieces
}

// inspectMirror is one mirror, in try order.
type inspectMirror struct {
	URL            string `json:"url"`
	Location       string `json:"location"`        // ISO 3166-1 alpha-2, "" when unknown
	Priority       int    `json:"priority"`        // 1 (first) to 999999
	MaxConnections int    `json:"max_connections"` // 0 when the document does not say
	Local          bool   `json:"local"`           // in one of prefs.locations
}

// inspectMetaURL is one metaurl.
type inspectMetaURL struct {
	URL       string `json:"url"`
	MediaType string `json:"media_type"`
	Name      string `json:"name"`
	Priority  int    `json:"priority"`
}

// inspectRejected is a file refused for safety.
type inspectRejected struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// inspectKinds are the stable names of resolve's kinds in the report.
var inspectKinds = map[resolve.Kind]string{
	resolve.KindFile:        "metalink_file",
	resolve.KindMetalinkURL: "metalink_url",
	resolve.KindPlainURL:    "plain_url",
}

func newInspectReport(source string, res *resolve.Result, p, given, defaults metalink.Prefs) *inspectReport {
	d := res.Document
	r := &inspectReport{
		Version:         1,
		Source:          source,
		Kind:            inspectKinds[res.Kind],
		MetalinkVersion: d.Version,
		Generator:       d.Generator,
		Origin:          d.Origin,
		Dynamic:         d.Dynamic,
		Published:       inspectDate(d.Published),
		Updated:         inspectDate(d.Updated),
		Prefs: inspectSelection{
			Languages: inspectList(p.Languages),
			OS:        inspectList(p.OS),
			Locations: inspectList(p.Locations),
		},
		Files:    []inspectFile{},
		Notes:    []string{},
		Rejected: []inspectRejected{},
		Warnings: inspectList(d.Warnings),
	}
	if r.Kind == "" { // a kind newer than this report: still say something
		r.Kind = strings.ReplaceAll(res.Kind.String(), " ", "_")
	}
	if o := res.Origin; o != nil {
		r.MetalinkVersion = 0
		r.Server = &inspectServer{URL: o.URL, ETag: o.ETag, Size: o.Size, Ranges: o.Ranges, Digests: []inspectHash{}}
		for _, h := range o.Digests {
			r.Server.Digests = append(r.Server.Digests, inspectHash{Type: h.Type, Value: h.Value})
		}
	}
	local := make(map[string]bool)
	for _, l := range p.Locations {
		local[metalink.NormalizeCountry(l)] = true
	}
	choices, notes := metalink.Select(d.Files, given, defaults)
	r.Notes = append(r.Notes, notes...)
	for i, f := range d.Files {
		ok, why := choices[i].Selected, choices[i].Why
		if ok {
			r.Selected++
		}
		jf := inspectFile{
			Name:        f.Name,
			Size:        f.Size,
			Identity:    f.Identity,
			Version:     f.Version,
			Description: f.Description,
			Languages:   inspectList(f.Languages),
			OS:          inspectList(f.OS),
			Hashes:      []inspectHash{},
			Selected:    ok,
			Reason:      why,
			Mirrors:     []inspectMirror{},
			MetaURLs:    []inspectMetaURL{},
		}
		for _, h := range f.Hashes {
			jf.Hashes = append(jf.Hashes, inspectHash{Type: h.Type, Value: h.Value})
		}
		if f.Pieces != nil {
			jf.Pieces = &inspectPieces{Type: f.Pieces.Type, Length: f.Pieces.Length, Count: len(f.Pieces.Hashes)}
		}
		if f.Signature != nil {
			jf.Signature = &f.Signature.MediaType
		}
		for _, u := range metalink.OrderURLs(f.URLs, p.Locations) {
			loc := metalink.NormalizeCountry(u.Location)
			jf.Mirrors = append(jf.Mirrors, inspectMirror{
				URL: u.URL, Location: loc, Priority: inspectPriority(u.Priority),
				MaxConnections: u.MaxConnections, Local: loc != "" && local[loc],
			})
		}
		for _, m := range f.MetaURLs {
			jf.MetaURLs = append(jf.MetaURLs, inspectMetaURL{
				URL: m.URL, MediaType: m.MediaType, Name: m.Name, Priority: inspectPriority(m.Priority),
			})
		}
		if f.Publisher != (metalink.Party{}) {
			jf.Publisher = &inspectParty{Name: f.Publisher.Name, URL: f.Publisher.URL}
		}
		if f.License != (metalink.Party{}) {
			jf.License = &inspectParty{Name: f.License.Name, URL: f.License.URL}
		}
		r.Files = append(r.Files, jf)
	}
	for _, rej := range d.Rejected {
		r.Rejected = append(r.Rejected, inspectRejected{Name: rej.Name, Reason: rej.Reason})
	}
	return r
}

// inspectList returns s, or an empty list for nil so JSON shows [].
func inspectList(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func inspectDate(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

// inspectPriority is the priority a mirror is tried by: one outside the
// valid range counts as the lowest.
func inspectPriority(p int) int {
	if p < 1 || p > metalink.LowestPriority {
		return metalink.LowestPriority
	}
	return p
}

// writeText prints the report for people: a header, then each file as a
// block of aligned label/value lines, then rejected files and warnings.
func (r *inspectReport) writeText(w io.Writer) error {
	ew := &inspectErrWriter{w: w}
	pf := func(format string, args ...any) { fmt.Fprintf(ew, format, args...) }
	anyOf := func(s []string) string {
		if len(s) == 0 {
			return "any"
		}
		return strings.Join(s, ", ")
	}

	if r.Torrent != nil {
		r.writeTorrentText(pf)
		return ew.err
	}
	pf("%-10s %s\n", "source", inspectClean(r.Source))
	if r.Server != nil {
		pf("%-10s plain URL, described by its server\n", "format")
		srv := r.Server
		ranges := "no byte ranges"
		if srv.Ranges {
			ranges = "byte ranges"
		}
		etag := ""
		if srv.ETag != "" {
			etag = ", ETag " + inspectClean(srv.ETag)
		}
		pf("%-10s %s (%s%s)\n", "server", inspectClean(srv.URL), ranges, etag)
	} else {
		format := fmt.Sprintf("Metalink %d", r.MetalinkVersion)
		if r.Generator != "" {
			format += ", written by " + inspectClean(r.Generator)
		}
		pf("%-10s %s\n", "format", format)
	}
	if r.Origin != "" {
		dyn := ""
		if r.Dynamic {
			dyn = " (updates published there)"
		}
		pf("%-10s %s%s\n", "origin", inspectClean(r.Origin), dyn)
	}
	if r.Published != nil {
		pf("%-10s %s\n", "published", *r.Published)
	}
	if r.Updated != nil {
		pf("%-10s %s\n", "updated", *r.Updated)
	}
	// The order is metalink.URLOrder's: the user's countries, then the
	// publisher's priority.
	loc := "no country preferred, mirrors by priority"
	if len(r.Prefs.Locations) > 0 {
		loc = "mirrors in " + strings.Join(r.Prefs.Locations, ", ") + " first, then by priority"
	}
	pf("%-10s language %s; OS %s; %s\n", "selecting",
		anyOf(r.Prefs.Languages), anyOf(r.Prefs.OS), loc)
	pf("%-10s %d of %d selected, %d rejected\n", "files", r.Selected, len(r.Files), len(r.Rejected))
	for _, n := range r.Notes {
		pf("%-10s %s\n", "note", inspectClean(n))
	}

	for _, f := range r.Files {
		pf("\n")
		if f.Selected {
			pf("[x] %s\n", inspectClean(f.Name))
		} else {
			pf("[ ] %s\n    not selected: %s\n", inspectClean(f.Name), inspectClean(f.Reason))
		}
		line := func(label, value string) { pf("    %-10s %s\n", label, value) }
		if f.Size >= 0 {
			line("size", fmt.Sprintf("%d bytes (%s)", f.Size, byteText(f.Size)))
		} else {
			line("size", "unknown")
		}
		if f.Identity != "" {
			line("identity", inspectClean(f.Identity))
		}
		if f.Version != "" {
			line("version", inspectClean(f.Version))
		}
		if f.Description != "" {
			line("about", inspectClean(inspectShorten(f.Description, 100)))
		}
		line("language", inspectClean(anyOf(f.Languages)))
		line("os", inspectClean(anyOf(f.OS)))
		if len(f.Hashes) == 0 {
			line("hash", "none: the file cannot be verified")
		}
		for _, h := range f.Hashes {
			line(inspectClean(h.Type), inspectClean(h.Value))
		}
		if f.Pieces != nil {
			line("pieces", fmt.Sprintf("%d of %s (%s)", f.Pieces.Count, byteText(f.Pieces.Length), inspectClean(f.Pieces.Type)))
		} else {
			line("pieces", "none")
		}
		if f.Signature != nil {
			line("signature", inspectSignature(*f.Signature))
		}
		if f.Publisher != nil {
			line("publisher", inspectClean(strings.TrimSpace(f.Publisher.Name+" "+f.Publisher.URL)))
		}
		if f.License != nil {
			line("license", inspectClean(strings.TrimSpace(f.License.Name+" "+f.License.URL)))
		}
		if len(f.Mirrors) == 0 {
			line("mirrors", "none")
		}
		for i, m := range f.Mirrors {
			label := ""
			if i == 0 {
				label = "mirrors"
			}
			loc := m.Location
			if loc == "" {
				loc = "--"
			}
			extra := ""
			if m.MaxConnections > 0 {
				extra = fmt.Sprintf("  (max %d connections)", m.MaxConnections)
			}
			line(label, fmt.Sprintf("%3d. %s  pri %-6d %s%s", i+1, loc, m.Priority, inspectClean(m.URL), extra))
		}
		for i, m := range f.MetaURLs {
			label := ""
			if i == 0 {
				label = "metaurls"
			}
			name := ""
			if m.Name != "" {
				name = "  (" + inspectClean(m.Name) + ")"
			}
			line(label, fmt.Sprintf("%s  pri %-6d %s%s", inspectClean(m.MediaType), m.Priority, inspectClean(m.URL), name))
		}
	}
	if r.Archive != nil {
		writeArchiveText(pf, r.Archive)
	}
	if len(r.Rejected) > 0 {
		pf("\nrejected (nothing is written for these):\n")
		for _, rej := range r.Rejected {
			pf("    %s: %s\n", inspectClean(rej.Name), inspectClean(rej.Reason))
		}
	}
	if len(r.Warnings) > 0 {
		pf("\nwarnings:\n")
		for _, w := range r.Warnings {
			pf("    %s\n", inspectClean(w))
		}
	}
	return ew.err
}

// inspectSignature says what kind of signature a file has and whether
// Braid can check it; one it cannot check is a warning, and the file is
// judged by its hashes (engine/signature's Unreadable).
func inspectSignature(mediaType string) string {
	switch {
	case strings.TrimSpace(mediaType) == "":
		return "given without a media type: it cannot be checked; the file is judged by its hashes"
	case !signature.IsOpenPGP(mediaType):
		return inspectClean(mediaType) + ": Braid cannot check it; the file is judged by its hashes"
	}
	return inspectClean(mediaType)
}

// inspectClean makes document text safe for a terminal: control characters
// (escape sequences, carriage returns that overwrite a line) are shown
// quoted instead of acting.
func inspectClean(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			q := fmt.Sprintf("%q", s)
			return q[1 : len(q)-1]
		}
	}
	return s
}

// inspectShorten folds s onto one line and cuts it to at most n runes.
func inspectShorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// inspectErrWriter keeps the first write error so printing reads straight.
type inspectErrWriter struct {
	w   io.Writer
	err error
}

func (e *inspectErrWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
