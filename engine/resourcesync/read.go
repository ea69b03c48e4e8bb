package resourcesync

import (
	"bytes"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"braid/engine/metalink"
)

// Limits bound what Parse accepts. Zero fields take the defaults.
type Limits struct {
	// MaxBytes bounds the document's size; the sitemap protocol's own
	// limit is 50 MB.
	MaxBytes int64
	// MaxEntries bounds the <url> or <sitemap> children of one document;
	// the sitemap protocol's own limit is 50,000.
	MaxEntries int
	// MaxDepth bounds element nesting. A ResourceSync document needs four.
	MaxDepth int
}

// Defaults of Limits.
const (
	DefaultMaxBytes   = 64 << 20
	DefaultMaxEntries = 100_000
	DefaultMaxDepth   = 32
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// Parse reads one ResourceSync document with the default limits.
func Parse(r io.Reader) (*Document, error) { return Limits{}.Parse(r) }

// Parse reads one ResourceSync document: a sitemap <urlset> or
// <sitemapindex> with ResourceSync's rs:md and rs:ln. It is tolerant of
// what real sources do (whitespace around values, unknown elements and
// attributes, several hashes in one hash attribute, a missing namespace)
// and strict about what could hurt: size, nesting, entries and entity
// declarations are bounded, and malformed XML is a *SyntaxError with the
// line.
func (l Limits) Parse(r io.Reader) (*Document, error) {
	l = l.withDefaults()
	buf, err := io.ReadAll(io.LimitReader(r, l.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("resourcesync: read: %w", err)
	}
	return l.ParseBytes(buf)
}

// ParseBytes is Parse of a document already read into buf, as Fetcher
// has it: a list of 100,000 entries is some 30 MB, and reading it again
// through Parse would hold it twice. buf is not kept.
func (l Limits) ParseBytes(buf []byte) (*Document, error) {
	l = l.withDefaults()
	if int64(len(buf)) > l.MaxBytes {
		return nil, &SyntaxError{Line: bytes.Count(buf, []byte("\n")) + 1, Msg: fmt.Sprintf("larger than %d bytes", l.MaxBytes), Err: ErrTooLarge}
	}
	p := &parser{lim: l, dec: xml.NewDecoder(bytes.NewReader(buf)), doc: &Document{}}
	// Room for the entries at once, rather than growing (and copying) a
	// slice of 100,000 entries step by step: every entry has one </loc>
	// (a document whose sitemap namespace has a prefix gets no estimate).
	p.doc.Entries = make([]Entry, 0, min(bytes.Count(buf, []byte("</loc>")), l.MaxEntries))
	p.dec.Strict = true
	if err := p.run(); err != nil {
		return nil, err
	}
	return p.doc, nil
}

type parser struct {
	lim   Limits
	dec   *xml.Decoder
	doc   *Document
	stack []xml.Name // open elements
	entry *Entry     // the <url> or <sitemap> being read: nil or &cur
	cur   Entry
	locs  int  // the <loc>s the entry has had
	docMD bool // the document's own rs:md has been read
	text  strings.Builder
	root  bool // the root element has been seen
}

func (p *parser) line() int {
	n, _ := p.dec.InputPos()
	return n
}

func (p *parser) fail(err error, format string, args ...any) error {
	return &SyntaxError{Line: p.line(), Msg: fmt.Sprintf(format, args...), Err: err}
}

func (p *parser) warn(format string, args ...any) {
	if len(p.doc.Warnings) < 100 { // a hostile document cannot grow them without bound
		p.doc.Warnings = append(p.doc.Warnings, fmt.Sprintf("line %d: ", p.line())+fmt.Sprintf(format, args...))
	}
}

func (p *parser) run() error {
	for {
		tok, err := p.dec.Token()
		if err == io.EOF {
			if !p.root {
				return p.fail(ErrNotResourceSync, "no root element")
			}
			return p.fail(ErrTruncated, "the document ends inside <%s>", p.stack[len(p.stack)-1].Local)
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				if strings.Contains(se.Msg, "unexpected EOF") {
					return &SyntaxError{Line: se.Line, Msg: "the document ends too early", Err: ErrTruncated}
				}
				return &SyntaxError{Line: se.Line, Msg: se.Msg, Err: ErrNotResourceSync}
			}
			return p.fail(ErrNotResourceSync, "%v", err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			if bytes.Contains(bytes.ToUpper(t), []byte("ENTITY")) {
				return p.fail(ErrEntity, "the document declares an entity")
			}
		case xml.StartElement:
			if len(p.stack) >= p.lim.MaxDepth {
				return p.fail(ErrTooDeep, "elements nested deeper than %d", p.lim.MaxDepth)
			}
			if err := p.start(t); err != nil {
				return err
			}
			p.stack = append(p.stack, t.Name)
		case xml.EndElement:
			p.stack = p.stack[:len(p.stack)-1]
			p.end(t)
			if len(p.stack) == 0 {
				return nil // nothing after the root element matters
			}
		case xml.CharData:
			if len(p.stack) == 3 && p.entry != nil && p.text.Len() < 64<<10 {
				p.text.Write(t)
			}
		}
	}
}

// sitemapElem reports whether n is the sitemap element local: in the
// sitemap namespace or, as some sources write it, in none.
func sitemapElem(n xml.Name, local string) bool {
	return n.Local == local && (n.Space == NSSitemap || n.Space == "")
}

// rsElem reports whether n is ResourceSync's rs:local. Sources that forget
// the namespace declaration still get read: their prefix is taken as is.
func rsElem(n xml.Name, local string) bool {
	return n.Local == local && (n.Space == NSRS || n.Space == "rs")
}

func (p *parser) start(t xml.StartElement) error {
	switch len(p.stack) {
	case 0:
		p.root = true
		switch {
		case sitemapElem(t.Name, "urlset"):
		case sitemapElem(t.Name, "sitemapindex"):
			p.doc.Index = true
		default:
			return p.fail(ErrNotResourceSync, "root element <%s> is not a sitemap <urlset> or <sitemapindex>", t.Name.Local)
		}
	case 1:
		switch {
		case rsElem(t.Name, "md") && p.docMD:
			// Two rs:md of the document contradict or repeat each other;
			// the first is the one a reader meets first (resync refuses
			// the document, test_14_parse_multi).
			p.warn("the document has more than one <rs:md>; the first is used")
		case rsElem(t.Name, "md"):
			p.docMD = true
			md := p.md(t.Attr)
			p.doc.Capability = md.Capability
			p.doc.At, p.doc.Completed, p.doc.From, p.doc.Until = md.At, md.Completed, md.From, md.Until
		case rsElem(t.Name, "ln"):
			if l, ok := p.link(t.Attr); ok {
				p.doc.Links = append(p.doc.Links, l)
			}
		case sitemapElem(t.Name, "url") && !p.doc.Index, sitemapElem(t.Name, "sitemap") && p.doc.Index:
			if len(p.doc.Entries) >= p.lim.MaxEntries {
				return p.fail(ErrTooMany, "more than %d entries", p.lim.MaxEntries)
			}
			p.cur = Entry{Length: -1, Line: p.line()}
			p.entry = &p.cur
			p.locs = 0
		}
	case 2:
		if p.entry == nil {
			return nil
		}
		p.text.Reset()
		switch {
		case rsElem(t.Name, "md"):
			md := p.md(t.Attr)
			md.Loc, md.Lastmod, md.Line, md.Links = p.entry.Loc, p.entry.Lastmod, p.entry.Line, p.entry.Links
			*p.entry = md
		case rsElem(t.Name, "ln"):
			if l, ok := p.link(t.Attr); ok && len(p.entry.Links) < 64 {
				p.entry.Links = append(p.entry.Links, l)
			}
		}
	}
	return nil
}

func (p *parser) end(t xml.EndElement) {
	switch len(p.stack) {
	case 1: // the end of a child of the root
		if p.entry == nil {
			return
		}
		e := p.entry
		p.entry = nil
		if p.locs > 1 {
			// Which resource it is cannot be told; taking one would be a
			// guess (resync refuses the document, test_12_parse_multi_loc).
			p.warn("the entry on line %d has %d <loc>s, and an entry is one resource; skipped", e.Line, p.locs)
			return
		}
		if e.Loc == "" {
			p.warn("an entry without <loc> is skipped")
			return
		}
		p.doc.Entries = append(p.doc.Entries, *e)
	case 2:
		if p.entry == nil {
			return
		}
		v := strings.TrimSpace(p.text.String())
		switch {
		case sitemapElem(t.Name, "loc"):
			p.entry.Loc = v
			p.locs++
		case sitemapElem(t.Name, "lastmod"):
			p.entry.Lastmod = p.time("lastmod", v)
		}
	}
}

// md reads the attributes of an rs:md into an Entry (the document's own
// rs:md uses its times and capability).
func (p *parser) md(attrs []xml.Attr) Entry {
	e := Entry{Length: -1}
	for _, a := range attrs {
		if a.Name.Space != "" {
			continue // another community's attribute
		}
		v := strings.TrimSpace(a.Value)
		switch a.Name.Local {
		case "capability":
			e.Capability = strings.ToLower(v)
		case "change":
			e.Change = strings.ToLower(v)
		case "hash":
			e.Hashes = p.hashes(v)
		case "length":
			e.Length = p.length(v)
		case "type":
			e.Type = v
		case "path":
			e.Path = v
		case "at":
			e.At = p.time("at", v)
		case "completed":
			e.Completed = p.time("completed", v)
		case "from":
			e.From = p.time("from", v)
		case "until":
			e.Until = p.time("until", v)
		}
	}
	return e
}

func (p *parser) link(attrs []xml.Attr) (Link, bool) {
	l := Link{Priority: metalink.LowestPriority, Length: -1}
	for _, a := range attrs {
		if a.Name.Space != "" {
			continue
		}
		v := strings.TrimSpace(a.Value)
		switch a.Name.Local {
		case "href":
			l.Href = v
		case "rel":
			l.Rel = strings.ToLower(v)
		case "type":
			l.Type = strings.ToLower(v)
		case "pri":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > metalink.LowestPriority {
				p.warn("pri %q is not 1 to %d; taken as absent", v, metalink.LowestPriority)
				continue
			}
			l.Priority = n
		case "hash":
			l.Hashes = p.hashes(v)
		case "length":
			l.Length = p.length(v)
		}
	}
	if l.Href == "" || l.Rel == "" {
		p.warn("an rs:ln without href or rel is skipped")
		return l, false
	}
	return l, true
}

// hashes reads a hash attribute: whitespace-separated "type:hex" values.
func (p *parser) hashes(v string) []metalink.Hash {
	var out []metalink.Hash
	for _, f := range strings.Fields(v) {
		name, val, ok := strings.Cut(f, ":")
		typ, known := metalink.NormalizeHash(name)
		val = strings.ToLower(val)
		if !ok || !known {
			p.warn("hash %q of an unknown type is skipped", f)
			continue
		}
		if n, ok := hashLen[typ]; ok && len(val) != 2*n {
			p.warn("%s hash %q has the wrong length; skipped", typ, val)
			continue
		}
		if _, err := hex.DecodeString(val); err != nil || val == "" {
			p.warn("%s hash %q is not hex; skipped", typ, val)
			continue
		}
		if len(out) < 16 {
			out = append(out, metalink.Hash{Type: typ, Value: val})
		}
	}
	return out
}

// hashLen is the digest size in bytes of the hashes ResourceSync uses.
var hashLen = map[string]int{"md5": 16, "sha-1": 20, "sha-256": 32, "sha-384": 48, "sha-512": 64}

func (p *parser) length(v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		p.warn("length %q is not a byte count; taken as unknown", v)
		return -1
	}
	return n
}

// w3cLayouts are the forms of a W3C Datetime, most precise first.
var w3cLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02", "2006-01", "2006"}

func (p *parser) time(what, v string) time.Time {
	if t, ok := ParseTime(v); ok {
		return t
	}
	p.warn("%s %q is not a W3C datetime; ignored", what, v)
	return time.Time{}
}

// ParseTime reads a W3C Datetime (the profile of ISO 8601 that sitemaps
// use), in UTC.
func ParseTime(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	for _, layout := range w3cLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
