// Package resolve turns a SOURCE as a user gives it (a local .meta4 or
// .metalink file, the URL of one, or the plain URL of a file) into one
// metalink.Document that the engine downloads. A plain HTTP URL is read as
// Metalink/HTTP (RFC 6249): the origin's Link and Digest headers make it a
// multi-mirror, verified download.
package resolve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/engine/redact"
	"braid/engine/resourcesync"
	"braid/engine/transport"
)

// ErrResourceSync: the source is a ResourceSync document (a list of a
// site's resources), which is kept as a folder in sync (braid sync), not
// read as a metalink.
var ErrResourceSync = errors.New("it is a ResourceSync document, not a metalink")

// Metalink media types: RFC 5854 §7 and the Metalink 3 convention.
const (
	TypeMetalink4 = "application/metalink4+xml"
	TypeMetalink3 = "application/metalink+xml"
)

// DefaultName is the file name used when neither the server nor the URL
// gives a safe one.
const DefaultName = "download"

// Kind says what a source turned out to be.
type Kind int

const (
	// KindFile is a local Metalink document.
	KindFile Kind = iota + 1
	// KindMetalinkURL is a Metalink document served at a URL.
	KindMetalinkURL
	// KindPlainURL is the URL of the file itself, described by what its
	// server says (Metalink/HTTP headers for HTTP, SIZE for FTP).
	KindPlainURL
)

func (k Kind) String() string {
	switch k {
	case KindFile:
		return "metalink file"
	case KindMetalinkURL:
		return "metalink URL"
	case KindPlainURL:
		return "plain URL"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Options configure Resolve. The zero value is ready to use.
type Options struct {
	// HTTPClient is used for every HTTP request; nil: transport's shared client.
	HTTPClient *http.Client
	// FTPPool is used for FTP; nil: a pool for the call, closed after it.
	FTPPool *transport.FTPPool
	// Network is FTP's proxy route and Session its logins (an HTTP
	// request has both in HTTPClient); nil: the default route, and only
	// the link's own login or .netrc's.
	Network *netconf.Network
	Session *netconf.Session
	// UserAgent is sent with HTTP requests; transport's default when empty.
	UserAgent string
	// Limits bound documents read from files and URLs; zero: the defaults.
	Limits metalink.Limits
}

// Result is a resolved source.
type Result struct {
	Kind     Kind
	Document *metalink.Document
	// Origin is what the server of a plain URL said; nil for metalink
	// documents.
	Origin *Origin
}

// Origin is what the server of a plain URL said about the file. The
// engine gives ETag to "pref" mirrors as If-Match (RFC 6249 §3.3).
type Origin struct {
	URL     string // the final URL after redirects, without credentials
	ETag    string
	Size    int64 // -1 when unknown
	Ranges  bool
	Digests []metalink.Hash
}

// Resolve reads source into a document. A source with an http, https or
// ftp scheme is fetched; "file:" URLs and anything without a scheme are
// local paths; other schemes fail with transport.ErrUnsupportedScheme.
// Resolve does no I/O beyond reading the source (and, for Metalink/HTTP,
// the origin's HEAD and the metalink its describedby Link names). Its
// errors name the source.
func Resolve(ctx context.Context, source string, opts Options) (*Result, error) {
	u, err := url.Parse(source)
	if err != nil || len(u.Scheme) <= 1 { // no scheme, or a drive letter
		return resolveFile(source, opts)
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		p := u.Path
		if p == "" {
			p = u.Opaque
		}
		// file:///C:/dl/x.meta4 names C:\dl\x.meta4 on Windows.
		if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
			p = p[1:]
		}
		return resolveFile(filepath.FromSlash(p), opts)
	case "http", "https":
		return resolveHTTP(ctx, source, u, opts)
	case "ftp":
		return resolveFTP(ctx, source, u, opts)
	}
	return nil, fmt.Errorf("source %s: %q: %w", redact.Parsed(u), u.Scheme, transport.ErrUnsupportedScheme)
}

func resolveFile(p string, opts Options) (*Result, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := opts.Limits.Parse(f)
	if errors.Is(err, metalink.ErrNotMetalink) && isResourceSync(f) {
		err = ErrResourceSync
	}
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", p, err)
	}
	return &Result{Kind: KindFile, Document: doc}, nil
}

// isResourceSync reports whether the file f begins as a ResourceSync
// document does.
func isResourceSync(f *os.File) bool {
	head := make([]byte, 4096)
	n, _ := f.ReadAt(head, 0)
	return resourcesync.Sniff(head[:n])
}

func maxDocument(opts Options) int64 {
	if opts.Limits.MaxBytes > 0 {
		return opts.Limits.MaxBytes
	}
	return metalink.DefaultMaxBytes
}

func isMetalinkPath(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext == ".meta4" || ext == ".metalink"
}

func isMetalinkType(ct string) bool { return ct == TypeMetalink4 || ct == TypeMetalink3 }

func resolveHTTP(ctx context.Context, source string, u *url.URL, opts Options) (*Result, error) {
	src, err := transport.NewHTTP(source, transport.Options{Size: -1, HTTPClient: opts.HTTPClient, UserAgent: opts.UserAgent})
	if err != nil {
		return nil, err
	}
	defer src.Close() // the FTP server a redirect may lead to
	if isMetalinkPath(u.Path) {
		return fetchMetalink(ctx, src, opts)
	}
	p, err := src.Probe(ctx)
	if err != nil {
		return nil, err
	}
	if isMetalinkType(p.ContentType) {
		return fetchMetalink(ctx, src, opts)
	}
	return metalinkHTTP(ctx, source, u, p, opts)
}

func fetchMetalink(ctx context.Context, src *transport.HTTPSource, opts Options) (*Result, error) {
	_, body, err := src.Fetch(ctx, maxDocument(opts))
	if err != nil {
		return nil, err
	}
	// A relative <url> resolves against where the document came from.
	doc, err := opts.Limits.ParseAt(bytes.NewReader(body), src.Mirror())
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", src.Mirror(), err)
	}
	return &Result{Kind: KindMetalinkURL, Document: doc}, nil
}

// metalinkHTTP builds the one-file document of a plain HTTP URL from its
// origin's answer.
func metalinkHTTP(ctx context.Context, source string, u *url.URL, p *transport.Probe, opts Options) (*Result, error) {
	doc := &metalink.Document{Version: 4}
	// The origin's Digest, sent on its redirect or its answer, is what
	// vouches for the file (RFC 6249 §6); a copy it redirected to that
	// disagrees is refused by the engine.
	digests := p.OriginDigests
	file := metalink.File{
		Size:   p.Size,
		Hashes: digests,
		URLs:   []metalink.URL{{URL: source, Priority: 1}},
	}
	final, err := url.Parse(p.URL)
	if err != nil {
		final = u
	}
	file.Name = fileName(doc, p.Name, final, u)

	var mirrors []metalink.Link
	var described, signatures []metalink.Link
	for _, l := range p.Links {
		if isSignatureLink(l) {
			// Not subject to RFC 6249 §6 below: a signature vouches for
			// itself against the user's keyring.
			signatures = append(signatures, l)
		}
		switch l.Rel {
		case "duplicate":
			mirrors = append(mirrors, l)
		case "describedby":
			if isMetalinkType(l.Type) {
				described = append(described, l)
			}
		}
	}
	if len(digests) == 0 && len(mirrors)+len(described) > 0 {
		// RFC 6249 §6: without an Instance Digest the Link header fields
		// MUST be ignored, since nothing would vouch for the mirrors.
		doc.Warnings = append(doc.Warnings, fmt.Sprintf(
			"the server listed %d mirrors and metalinks but sent no Digest header; they are ignored (RFC 6249 §6)",
			len(mirrors)+len(described)))
		mirrors, described = nil, nil
	}
	seen := map[string]bool{redact.Parsed(u): true, p.URL: true}
	for _, l := range mirrors {
		m, ok := mirrorURL(doc, final, l)
		if !ok {
			continue
		}
		if key := redact.URL(m.URL); seen[key] {
			continue
		} else {
			seen[key] = true
		}
		file.URLs = append(file.URLs, m)
	}
	if len(described) > 0 {
		mergeDescribed(ctx, doc, &file, final, described[0], opts)
	}
	if len(signatures) > 0 {
		fetchSignature(ctx, doc, &file, final, signatures[0], opts)
	}
	sortURLs(file.URLs)
	doc.Files = []metalink.File{file}
	return &Result{
		Kind:     KindPlainURL,
		Document: doc,
		Origin:   &Origin{URL: p.URL, ETag: p.ETag, Size: p.Size, Ranges: p.Ranges, Digests: digests},
	}, nil
}

// mirrorURL turns a rel=duplicate link into a mirror, resolving a relative
// URL against the origin's final URL. Schemes Braid cannot fetch are
// skipped with a warning.
func mirrorURL(doc *metalink.Document, base *url.URL, l metalink.Link) (metalink.URL, bool) {
	ref, err := url.Parse(l.URL)
	if err != nil {
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("mirror %q skipped: %v", l.URL, err))
		return metalink.URL{}, false
	}
	abs := base.ResolveReference(ref)
	switch strings.ToLower(abs.Scheme) {
	case "http", "https", "ftp":
	default:
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("mirror %s skipped: Braid does not fetch %q URLs", redact.Parsed(abs), abs.Scheme))
		return metalink.URL{}, false
	}
	if abs.Host == "" {
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("mirror %q skipped: no host", l.URL))
		return metalink.URL{}, false
	}
	return metalink.URL{
		URL:      abs.String(),
		Location: l.Geo,
		Priority: l.Priority,
		Pref:     l.Pref,
		Depth:    l.Depth,
	}, true
}

// sortURLs orders mirrors by priority, keeping the origin first among
// equals (a stable sort keeps header order).
func sortURLs(urls []metalink.URL) {
	slices.SortStableFunc(urls, func(a, b metalink.URL) int { return a.Priority - b.Priority })
}

// fileName picks the file's name: the server's Content-Disposition, else
// the last segment of the final URL's path, else of the URL as given, each
// only if metalink.SafeName accepts it; else DefaultName, with a warning.
func fileName(doc *metalink.Document, disposition string, final, given *url.URL) string {
	var refused []string
	try := func(what, name string) bool {
		if name == "" {
			return false
		}
		if err := metalink.SafeName(name); err != nil {
			refused = append(refused, fmt.Sprintf("%s: %v", what, err))
			return false
		}
		return true
	}
	// RFC 6266 §4.3: only the last path element of a suggested name counts.
	if i := strings.LastIndexByte(disposition, '/'); i >= 0 {
		disposition = disposition[i+1:]
	}
	last := func(u *url.URL) string {
		if strings.Trim(u.Path, "/") == "" {
			return ""
		}
		return path.Base(u.Path)
	}
	name := ""
	switch {
	case try("Content-Disposition", disposition):
		name = disposition
	case try("URL", last(final)):
		name = last(final)
	case last(given) != last(final) && try("URL", last(given)):
		name = last(given)
	default:
		name = DefaultName
		refused = append(refused, fmt.Sprintf("no safe file name from the server or the URL; saving as %q", DefaultName))
	}
	if name != DefaultName && len(refused) > 0 {
		refused = append(refused, fmt.Sprintf("saving as %q", name))
	}
	doc.Warnings = append(doc.Warnings, refused...)
	return name
}

// mergeDescribed fetches the metalink a describedby Link names and merges
// its piece hashes and whole-file hashes into file. Failures become
// warnings: the download works without them, only without repair.
func mergeDescribed(ctx context.Context, doc *metalink.Document, file *metalink.File, base *url.URL, l metalink.Link, opts Options) {
	warn := func(format string, args ...any) {
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("metalink %s: ", l.URL)+fmt.Sprintf(format, args...))
	}
	abs, err := httpLink(base, l)
	if err != nil {
		warn("%v", err)
		return
	}
	src, err := transport.NewHTTP(abs, transport.Options{Size: -1, HTTPClient: opts.HTTPClient, UserAgent: opts.UserAgent})
	if err != nil {
		warn("%v", err)
		return
	}
	_, body, err := src.Fetch(ctx, maxDocument(opts))
	if err != nil {
		warn("%v", err)
		return
	}
	desc, err := opts.Limits.ParseAt(bytes.NewReader(body), abs)
	if err != nil {
		warn("%v", err)
		return
	}
	match := matchFile(desc, file)
	if match == nil {
		warn("describes no file matching %q", file.Name)
		return
	}
	if match.Size >= 0 && file.Size >= 0 && match.Size != file.Size {
		warn("describes %d bytes, the server sends %d; not used", match.Size, file.Size)
		return
	}
	for _, h := range match.Hashes {
		for _, have := range file.Hashes {
			if have.Type == h.Type && have.Value != h.Value {
				warn("its %s hash differs from the server's Digest; not used", h.Type)
				return
			}
		}
	}
	for _, h := range match.Hashes {
		if !hasType(file.Hashes, h.Type) {
			file.Hashes = append(file.Hashes, h)
		}
	}
	if file.Size < 0 {
		file.Size = match.Size
	}
	if match.Pieces != nil && file.Pieces == nil {
		file.Pieces = match.Pieces
	}
	adoptDescribed(file, match)
}

func hasType(hs []metalink.Hash, typ string) bool {
	for _, h := range hs {
		if h.Type == typ {
			return true
		}
	}
	return false
}

// matchFile finds the file a describing metalink means: the only one, or
// the one with the same name, or one sharing a whole-file hash.
func matchFile(desc *metalink.Document, file *metalink.File) *metalink.File {
	if len(desc.Files) == 1 {
		return &desc.Files[0]
	}
	for i := range desc.Files {
		if desc.Files[i].Name == file.Name {
			return &desc.Files[i]
		}
	}
	for i := range desc.Files {
		for _, h := range desc.Files[i].Hashes {
			for _, have := range file.Hashes {
				if h == have {
					return &desc.Files[i]
				}
			}
		}
	}
	return nil
}

// resolveFTP builds the one-file document of an ftp URL from SIZE.
func resolveFTP(ctx context.Context, source string, u *url.URL, opts Options) (*Result, error) {
	pool := opts.FTPPool
	if pool == nil {
		pool = transport.NewFTPPool(1)
		defer pool.Close()
	}
	src, err := transport.NewFTP(source, transport.Options{Size: -1, FTPPool: pool, Network: opts.Network, Session: opts.Session})
	if err != nil {
		return nil, err
	}
	info, err := src.Stat(ctx)
	if err != nil {
		return nil, err
	}
	doc := &metalink.Document{Version: 4}
	file := metalink.File{
		Size: info.Size,
		URLs: []metalink.URL{{URL: source, Priority: 1}},
	}
	file.Name = fileName(doc, "", u, u)
	doc.Files = []metalink.File{file}
	return &Result{
		Kind:     KindPlainURL,
		Document: doc,
		Origin:   &Origin{URL: src.Mirror(), Size: info.Size, Ranges: info.Ranges},
	}, nil
}
