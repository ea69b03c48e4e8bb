package resourcesync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"braid/engine/metalink"
	"braid/engine/transport"
)

// WellKnown is the path of a source's Source Description (RFC 5785).
const WellKnown = "/.well-known/resourcesync"

// DefaultMaxIndexDepth bounds sitemap indexes that point at indexes.
const DefaultMaxIndexDepth = 3

// MaxSets bounds the Capability Lists of one Source Description that
// Discover reads: each is a request, and real sources have a handful.
const MaxSets = 256

// Fetcher reads a source's documents over HTTP. It is the package's only
// I/O; everything it reads goes through Limits.Parse. The zero value is
// ready to use. A Fetcher is safe for concurrent use.
type Fetcher struct {
	HTTP          *http.Client // nil: the transport's shared client
	UserAgent     string
	Limits        Limits
	MaxIndexDepth int // 0: DefaultMaxIndexDepth
	// MaxEntries bounds the entries of all the lists an index groups
	// together; 0: Limits' per-document bound times 10.
	MaxEntries int
}

// Set is one set of resources of a source: the capabilities one
// Capability List offers.
type Set struct {
	CapabilityList string // "" when the source named a list directly
	ResourceList   string // "" when the set offers none
	ChangeList     string // "" when the set offers none
}

// Get fetches and parses one document.
func (f *Fetcher) Get(ctx context.Context, u string) (*Document, error) {
	doc, _, err := f.get(ctx, u)
	return doc, err
}

// get is Get that also returns what the server said (its Link headers),
// when it answered.
func (f *Fetcher) get(ctx context.Context, u string) (*Document, *transport.Probe, error) {
	p, body, err := f.fetch(ctx, u)
	if err != nil {
		return nil, p, err
	}
	doc, err := f.Limits.ParseBytes(body)
	if err != nil {
		return nil, p, fmt.Errorf("%s: %w", u, err)
	}
	resolveLocs(doc, u)
	return doc, p, nil
}

// resolveLocs makes the relative <loc>s of doc, read from u, absolute. The
// sitemap protocol asks for absolute URLs, but sources write relative ones
// (resync's own test data does), and they mean something only against the
// document's address. A reference with a "." or ".." segment is left as
// written: resolving would quietly remove the "..", and a list that says
// ".." is refused (NameOf), not reinterpreted.
func resolveLocs(doc *Document, u string) {
	base, err := url.Parse(u)
	if err != nil || base.Host == "" {
		return
	}
	base.User = nil // a login used to fetch the list is not copied into its entries
	n := 0
	for i := range doc.Entries {
		e := &doc.Entries[i]
		ref, err := url.Parse(e.Loc)
		if err != nil || ref.Scheme != "" || hasDotSegment(ref.Path) {
			continue
		}
		e.Loc = base.ResolveReference(ref).String()
		n++
	}
	switch {
	case n == 1:
		doc.Warnings = append(doc.Warnings, "1 relative <loc> resolved against the document's address")
	case n > 1:
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("%d relative <loc>s resolved against the document's address", n))
	}
}

// hasDotSegment reports a path with a "." or ".." segment.
func hasDotSegment(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

func (f *Fetcher) fetch(ctx context.Context, u string) (*transport.Probe, []byte, error) {
	src, err := transport.NewHTTP(u, transport.Options{Size: -1, HTTPClient: f.HTTP, UserAgent: f.UserAgent})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", u, err)
	}
	lim := f.Limits.withDefaults().MaxBytes
	return src.Fetch(ctx, lim) // its errors name the URL
}

// Discover finds the sets of resources of source: a base URL (ending in
// "/", whose host's /.well-known/resourcesync is read), a Source
// Description, a Capability List, a Resource List or Change List directly
// (whose rs:ln rel="up" Capability List is read when it can be), or any
// resource whose server names its Capability List in a Link header
// (rel="resourcesync").
func (f *Fetcher) Discover(ctx context.Context, source string) ([]Set, error) {
	u, err := url.Parse(source)
	if err != nil {
		return nil, fmt.Errorf("source %q: %w", source, err)
	}
	if u.Path == "" || strings.HasSuffix(u.Path, "/") {
		wk := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: WellKnown}
		return f.discover(ctx, wk.String(), 0)
	}
	return f.discover(ctx, source, 0)
}

func (f *Fetcher) discover(ctx context.Context, loc string, depth int) ([]Set, error) {
	doc, p, err := f.get(ctx, loc)
	if err != nil {
		// Any resource may point at its Capability List with an HTTP
		// Link header (rel="resourcesync", §6.3.3).
		if p != nil && depth == 0 && errors.Is(err, ErrNotResourceSync) {
			for _, l := range p.Links {
				if l.Rel == "resourcesync" {
					return f.discover(ctx, resolveRef(p.URL, l.URL), depth+1)
				}
			}
		}
		return nil, err
	}
	switch doc.Capability {
	case CapDescription:
		if depth > 0 {
			return nil, fmt.Errorf("%s: %w: a Source Description under another", loc, ErrCapability)
		}
		if len(doc.Entries) > MaxSets {
			return nil, fmt.Errorf("%s: %w: the Source Description lists %d Capability Lists, Braid reads up to %d", loc, ErrTooMany, len(doc.Entries), MaxSets)
		}
		var sets []Set
		var errs []error
		for _, e := range doc.Entries {
			if e.Capability != "" && e.Capability != CapCapabilityList {
				continue
			}
			s, err := f.discover(ctx, resolveRef(loc, e.Loc), depth+1)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			sets = append(sets, s...)
		}
		if len(sets) == 0 {
			if len(errs) > 0 {
				return nil, errors.Join(errs...)
			}
			return nil, fmt.Errorf("%s: the Source Description lists no Capability List", loc)
		}
		return sets, nil
	case CapCapabilityList:
		s := Set{CapabilityList: loc}
		for _, e := range doc.Entries {
			switch e.Capability {
			case CapResourceList:
				s.ResourceList = resolveRef(loc, e.Loc)
			case CapChangeList:
				s.ChangeList = resolveRef(loc, e.Loc)
			}
		}
		if s.ResourceList == "" && s.ChangeList == "" {
			return nil, fmt.Errorf("%s: the Capability List offers no Resource List and no Change List", loc)
		}
		return []Set{s}, nil
	case CapResourceList, CapChangeList, "":
		if up := LinkTo(doc.Links, "up"); up != "" && depth == 0 {
			if sets, err := f.discover(ctx, resolveRef(loc, up), depth+1); err == nil {
				return sets, nil
			}
		}
		if doc.Capability == CapChangeList {
			return []Set{{ChangeList: loc}}, nil
		}
		return []Set{{ResourceList: loc}}, nil // a plain sitemap reads as a Resource List
	}
	return nil, fmt.Errorf("%s: %w %q: name a Source Description, Capability List or Resource List", loc, ErrCapability, doc.Capability)
}

// List reads the document at loc and, when it is a sitemap index, every
// document it groups (to MaxIndexDepth), and returns one document with
// all their entries. Its times are the top document's: a Resource List
// Index's at is the snapshot time of the whole.
func (f *Fetcher) List(ctx context.Context, loc string) (*Document, error) {
	top, err := f.Get(ctx, loc)
	if err != nil {
		return nil, err
	}
	if !top.Index {
		return top, nil
	}
	out := *top
	out.Index, out.Entries = false, nil
	seen := map[string]bool{loc: true}
	if err := f.gather(ctx, loc, top, &out, seen, 1); err != nil {
		return nil, err
	}
	return &out, nil
}

func (f *Fetcher) gather(ctx context.Context, loc string, idx *Document, out *Document, seen map[string]bool, depth int) error {
	maxDepth := f.MaxIndexDepth
	if maxDepth <= 0 {
		maxDepth = DefaultMaxIndexDepth
	}
	maxEntries := f.MaxEntries
	if maxEntries <= 0 {
		maxEntries = 10 * f.Limits.withDefaults().MaxEntries
	}
	for _, e := range idx.Entries {
		child := resolveRef(loc, e.Loc)
		if seen[child] {
			return fmt.Errorf("%s: %w: %s is listed twice or in a loop", loc, ErrIndexDepth, child)
		}
		seen[child] = true
		doc, err := f.Get(ctx, child)
		if err != nil {
			return err
		}
		out.Warnings = append(out.Warnings, doc.Warnings...)
		if doc.Index {
			if depth >= maxDepth {
				return fmt.Errorf("%s: %w (more than %d levels)", child, ErrIndexDepth, maxDepth)
			}
			if err := f.gather(ctx, child, doc, out, seen, depth+1); err != nil {
				return err
			}
			continue
		}
		if len(out.Entries)+len(doc.Entries) > maxEntries {
			return fmt.Errorf("%s: %w: the index lists more than %d in all", loc, ErrTooMany, maxEntries)
		}
		out.Entries = append(out.Entries, doc.Entries...)
	}
	return nil
}

// ChangeLists reads the Change List at loc or, when it is a Change List
// Index, the lists it groups that may hold changes at or after since
// (closed lists that ended before it are not fetched).
func (f *Fetcher) ChangeLists(ctx context.Context, loc string, since time.Time) ([]*Document, error) {
	top, err := f.Get(ctx, loc)
	if err != nil {
		return nil, err
	}
	if top.Capability != "" && top.Capability != CapChangeList {
		return nil, fmt.Errorf("%s: %w %q where a Change List was named", loc, ErrCapability, top.Capability)
	}
	if !top.Index {
		return []*Document{top}, nil
	}
	var out []*Document
	for _, e := range top.Entries {
		if !e.Until.IsZero() && e.Until.Before(since) {
			continue
		}
		doc, err := f.Get(ctx, resolveRef(loc, e.Loc))
		if err != nil {
			return nil, err
		}
		if doc.Index {
			return nil, fmt.Errorf("%s: %w: a Change List Index inside another", loc, ErrIndexDepth)
		}
		if doc.From.IsZero() { // the index says when it begins
			doc.From, doc.Until = e.From, e.Until
		}
		out = append(out, doc)
	}
	if len(out) == 0 && !top.From.IsZero() {
		// Every list closed before since: nothing changed, and the index
		// still covers the time.
		out = append(out, &Document{Capability: CapChangeList, From: top.From, Until: top.Until})
	}
	return out, nil
}

// Describe fetches r's describedby metalink, if any, and merges its piece
// hashes and mirrors into r.File. A failure is returned as a warning to
// show: the resource still downloads, verified by its own hash.
func (f *Fetcher) Describe(ctx context.Context, r *Resource) error {
	if r.DescribedBy == "" {
		return nil
	}
	href := resolveRef(r.Loc, r.DescribedBy)
	_, body, err := f.fetch(ctx, href)
	if err != nil {
		return fmt.Errorf("metalink %s: %w", href, err)
	}
	// Relative mirrors in it are relative to where it was fetched.
	desc, err := metalink.ParseAt(bytes.NewReader(body), href)
	if err != nil {
		return fmt.Errorf("metalink %s: %w", href, err)
	}
	if err := Merge(r, desc); err != nil {
		return fmt.Errorf("metalink %s not used: %w", href, err)
	}
	return nil
}

// resolveRef resolves ref against base; a ref that does not parse is
// returned as is, to fail with its own message where it is used.
func resolveRef(base, ref string) string {
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := b.Parse(ref)
	if err != nil {
		return ref
	}
	return r.String()
}
