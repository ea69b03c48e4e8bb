package resourcesync

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"braid/engine/metalink"
	"braid/engine/transport"
)

// ErrOutside: a resource's URL is not below the source's base, so it has
// no place in the folder (another host, another scheme, or a path outside
// the base); it is skipped, never written.
var ErrOutside = errors.New("not below the source's base")

// Resource is one resource of a list or change, made ready for the engine.
type Resource struct {
	// File is the resource as Braid's model: Name is its local path below
	// the sync folder (it passed metalink.SafeName), URLs are <loc> first,
	// then the rel="duplicate" mirrors by pri.
	File    metalink.File
	Loc     string
	Lastmod time.Time
	Change  string // created, updated or deleted; "" in a Resource List
	// DescribedBy is a rel="describedby" link to a metalink that holds
	// piece hashes and more mirrors; "" when none.
	DescribedBy string
}

// Base returns the URL that local paths are relative to: the root of the
// host that serves the source ("https://example.org/" for any source on
// example.org). A resource at https://example.org/data/a.csv is written
// to DIR/data/a.csv. Resources on other hosts are not below the base.
func Base(source string) (*url.URL, error) {
	u, err := url.Parse(source)
	if err != nil {
		return nil, fmt.Errorf("source %q: %w", source, err)
	}
	if s := strings.ToLower(u.Scheme); (s != "http" && s != "https") || u.Host == "" {
		return nil, fmt.Errorf("source %q: a ResourceSync source is an http(s) URL", source)
	}
	return &url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: "/"}, nil
}

// NameOf returns the local path of the resource at loc: its URL path below
// base, unescaped. It fails with ErrOutside for a resource on another
// host, and with metalink.ErrUnsafeName for a path that could leave the
// folder or that names no file.
func NameOf(loc string, base *url.URL) (string, error) {
	// url.Parse, not base.Parse: resolving a reference would quietly
	// remove "..", and a list that says ".." is refused, not reinterpreted.
	u, err := url.Parse(loc)
	if err != nil {
		return "", fmt.Errorf("unreadable URL: %w", err)
	}
	if !strings.EqualFold(u.Scheme, base.Scheme) || !strings.EqualFold(u.Host, base.Host) {
		return "", fmt.Errorf("%w: on %s://%s, the source is %s", ErrOutside, u.Scheme, u.Host, base)
	}
	if u.RawQuery != "" {
		return "", fmt.Errorf("%w: a URL with a query has no file name", metalink.ErrUnsafeName)
	}
	rel, ok := strings.CutPrefix(u.Path, base.Path)
	if !ok {
		return "", fmt.Errorf("%w: path %q", ErrOutside, u.Path)
	}
	if rel == "" || strings.HasSuffix(rel, "/") {
		return "", fmt.Errorf("%w: %q names a folder, not a file", metalink.ErrUnsafeName, u.Path)
	}
	if err := metalink.SafeName(rel); err != nil {
		return "", err
	}
	return rel, nil
}

// Resources turns entries into resources below base, in order. An entry
// that cannot be written safely (another host, a path outside the folder,
// an unsafe or duplicate name) is refused with the reason; the rest still
// work. Entries that repeat a <loc> (a Change List lists each change) are
// reduced to the last, which is the resource's latest state.
func Resources(entries []Entry, base *url.URL) ([]Resource, []metalink.Rejected) {
	last := make(map[string]int, len(entries))
	for i, e := range entries {
		last[e.Loc] = i
	}
	out := make([]Resource, 0, len(entries))
	var refused []metalink.Rejected
	names := make(map[string]bool, len(entries))
	for i, e := range entries {
		if last[e.Loc] != i {
			continue
		}
		name, err := NameOf(e.Loc, base)
		if err == nil && names[name] {
			err = fmt.Errorf("%w: another resource has the same path", metalink.ErrUnsafeName)
		}
		if err != nil {
			refused = append(refused, metalink.Rejected{Name: e.Loc, Reason: err.Error()})
			continue
		}
		names[name] = true
		out = append(out, resourceOf(e, name))
	}
	return out, refused
}

func resourceOf(e Entry, name string) Resource {
	r := Resource{Loc: e.Loc, Lastmod: e.Lastmod, Change: e.Change}
	f := metalink.File{Name: name, Size: e.Length, Hashes: e.Hashes}
	f.URLs = append(f.URLs, metalink.URL{URL: e.Loc, Priority: 1})
	for _, l := range e.Links {
		switch l.Rel {
		case "duplicate":
			if transport.Fetchable(l.Href) && !f.HasURL(l.Href) {
				f.URLs = append(f.URLs, metalink.URL{URL: l.Href, Priority: l.Priority})
			}
		case "describedby":
			if r.DescribedBy == "" && isMetalinkLink(l) {
				r.DescribedBy = l.Href
			}
		}
	}
	// Stable: the <loc> stays first among equal priorities.
	slices.SortStableFunc(f.URLs, func(a, b metalink.URL) int { return a.Priority - b.Priority })
	r.File = f
	return r
}

func isMetalinkLink(l Link) bool {
	if strings.Contains(l.Type, "metalink") {
		return true
	}
	p := strings.ToLower(l.Href)
	return strings.HasSuffix(p, ".meta4") || strings.HasSuffix(p, ".metalink")
}

// Merge adds what a describing metalink says about r's file: piece hashes,
// whole-file hashes it lacks, and its mirrors after r's own. It refuses a
// metalink that contradicts the resource (another size or hash) and says
// why.
func Merge(r *Resource, desc *metalink.Document) error {
	var match *metalink.File
	if len(desc.Files) == 1 {
		match = &desc.Files[0]
	}
	for i := range desc.Files {
		if match == nil && desc.Files[i].Name == r.File.Name[strings.LastIndex(r.File.Name, "/")+1:] {
			match = &desc.Files[i]
		}
	}
	if match == nil {
		return errors.New("it describes no file of that name")
	}
	f := &r.File
	if match.Size >= 0 && f.Size >= 0 && match.Size != f.Size {
		return fmt.Errorf("it says %d bytes, the list %d", match.Size, f.Size)
	}
	for _, h := range match.Hashes {
		for _, have := range f.Hashes {
			if have.Type == h.Type && have.Value != h.Value {
				return fmt.Errorf("its %s differs from the list's", h.Type)
			}
		}
	}
	for _, h := range match.Hashes {
		if !slices.ContainsFunc(f.Hashes, func(x metalink.Hash) bool { return x.Type == h.Type }) {
			f.Hashes = append(f.Hashes, h)
		}
	}
	if f.Size < 0 {
		f.Size = match.Size
	}
	if f.Pieces == nil && match.Pieces != nil {
		f.Pieces = match.Pieces
	}
	// The metalink's mirrors come after the list's own: the list is what
	// the source vouches for.
	after := 1
	if n := len(f.URLs); n > 0 {
		after = f.URLs[n-1].Priority
	}
	for _, u := range match.URLs {
		if !f.HasURL(u.URL) {
			u.Priority = max(u.Priority, after)
			f.URLs = append(f.URLs, u)
		}
	}
	slices.SortStableFunc(f.URLs, func(a, b metalink.URL) int { return a.Priority - b.Priority })
	return nil
}

// ToDocument returns resources as one metalink.Document, the model the
// picker and the queue show: the files in order, the refused entries as
// Rejected.
func ToDocument(rs []Resource, refused []metalink.Rejected, warnings []string) *metalink.Document {
	doc := &metalink.Document{Version: 4, Generator: "ResourceSync", Rejected: refused, Warnings: warnings}
	for _, r := range rs {
		if r.Change != ChangeDeleted {
			doc.Files = append(doc.Files, r.File)
		}
	}
	return doc
}
