package metalink

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Namespace is the XML namespace of Metalink 4 (RFC 5854 §1.2).
const Namespace = "urn:ietf:params:xml:ns:metalink"

// ExtNamespace holds what Braid keeps that RFC 5854 has no element for: a
// file's licence and connection limit (from Metalink 3), and a mirror's
// connection limit, Metalink/HTTP pref flag and depth. Write puts them in
// <braid:license name url> inside <file>, braid:maxconnections on <file>,
// and braid:maxconnections, braid:pref and braid:depth on <url>; Parse
// reads them back from a Metalink 4 document, from this namespace only,
// whatever its prefix. RFC 5854 §5 lets a document carry such foreign
// markup and requires other processors to ignore it, so a document with it
// stays a valid Metalink 4 document.
const ExtNamespace = "urn:x-braid:metalink"

// ErrNotWritable is wrapped by every error Write returns for a document it
// refuses to write, as opposed to an error from the writer.
var ErrNotWritable = errors.New("document cannot be written as Metalink 4")

// Write writes d to w as a Metalink 4 document (RFC 5854) in UTF-8, whatever
// version d was read from, so that Parse reads back the same model: every
// file with its metadata, hashes, pieces, signature, mirrors with their
// priority, location, connection limit, pref flag and depth, and metaurls.
// Rejected files and warnings are not part of a document and are not
// written. Mirrors and metaurls are written in d's order with their
// priorities, so a reader orders them the same way.
//
// RFC 5854 keeps Dynamic on <origin>, so it is written only with an Origin
// (without one it tells nothing). What RFC 5854 has no element for (a
// licence, connection limits, pref flags and depths) is written as foreign
// markup in ExtNamespace. Parse caps a mirror's connection limit at its
// file's (see File.MaxConnections): a document that Parse made comes back
// with the same limits, and one built in code with a mirror above its
// file's limit, or without one under a file that has one, comes back
// capped.
//
// Text is escaped, so no value can add markup; characters XML cannot carry
// (most C0 controls) become U+FFFD. Dates are written in UTC as
// RFC 3339. A file without any url or metaurl is written as it is (RFC 5854
// wants at least one), so a checksum-only document still works.
//
// Write refuses, with an error wrapping ErrNotWritable and naming the
// file, a document that Parse would not read back the same, and then writes
// nothing: no files, a file or metaurl name that SafeName refuses, a name
// that repeats another (ignoring case) or needs a folder where a file is, a
// hash without a type, pieces without a positive length or a type, a
// metaurl or signature without a media type, a publisher or licence with a
// URL but no name, a connection limit outside 0 to MaxConnLimit, a depth
// outside 0 to MaxMirrorDepth, a date outside years 0 to 9999. An error of
// w is returned wrapped. Write does not modify d and is safe for
// concurrent use with other readers of d.
func Write(w io.Writer, d *Document) error {
	if d == nil || len(d.Files) == 0 {
		return fmt.Errorf("metalink: %w: it has no files", ErrNotWritable)
	}
	if err := checkWritable(d); err != nil {
		return err
	}
	x := &xmlWriter{w: bufio.NewWriter(w)}
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	root := []string{"xmlns", Namespace}
	if needsExt(d) {
		root = append(root, "xmlns:braid", ExtNamespace)
	}
	x.open(0, "metalink", root...)
	x.text(1, "generator", d.Generator)
	if d.Origin != "" {
		var attrs []string
		if d.Dynamic {
			attrs = []string{"dynamic", "true"}
		}
		x.text(1, "origin", d.Origin, attrs...)
	}
	x.text(1, "published", formatDate(d.Published))
	x.text(1, "updated", formatDate(d.Updated))
	for i := range d.Files {
		writeFile(x, &d.Files[i])
	}
	x.close(0, "metalink")
	if x.err != nil {
		return fmt.Errorf("metalink: write: %w", x.err)
	}
	if err := x.w.Flush(); err != nil {
		return fmt.Errorf("metalink: write: %w", err)
	}
	return nil
}

// checkWritable finds what Write refuses before anything is written.
func checkWritable(d *Document) error {
	for _, t := range []struct {
		what string
		at   time.Time
	}{{"published", d.Published}, {"updated", d.Updated}} {
		if !t.at.IsZero() && (t.at.UTC().Year() < 0 || t.at.UTC().Year() > 9999) {
			return fmt.Errorf("metalink: %w: %s date %v is outside years 0 to 9999", ErrNotWritable, t.what, t.at)
		}
	}
	// The same name checks as Parse, so nothing written is refused there.
	taken, dirs := make(map[string]string, len(d.Files)), make(map[string]string)
	for i := range d.Files {
		f := &d.Files[i]
		fail := func(format string, args ...any) error {
			return fmt.Errorf("metalink: %w: file %q: %s", ErrNotWritable, f.Name, fmt.Sprintf(format, args...))
		}
		if err := SafeName(f.Name); err != nil {
			return fail("%v", err)
		}
		if reason := clash(f.Name, taken, dirs); reason != "" {
			return fail("%s", reason)
		}
		for _, h := range f.Hashes {
			if strings.TrimSpace(h.Type) == "" {
				return fail("hash %s has no type", h.Value)
			}
		}
		if p := f.Pieces; p != nil && len(p.Hashes) > 0 {
			if p.Length <= 0 {
				return fail("piece length %d is not positive", p.Length)
			}
			if strings.TrimSpace(p.Type) == "" {
				return fail("pieces have no hash type")
			}
		}
		if s := f.Signature; s != nil && strings.TrimSpace(s.MediaType) == "" {
			return fail("signature has no media type")
		}
		if f.Publisher.Name == "" && f.Publisher.URL != "" {
			return fail("publisher %s has no name", f.Publisher.URL)
		}
		if f.License.Name == "" && f.License.URL != "" {
			return fail("licence %s has no name", f.License.URL)
		}
		if f.MaxConnections < 0 || f.MaxConnections > MaxConnLimit {
			return fail("connection limit %d is outside 0 to %d", f.MaxConnections, MaxConnLimit)
		}
		for _, u := range f.URLs {
			if u.MaxConnections < 0 || u.MaxConnections > MaxConnLimit {
				return fail("mirror %s: connection limit %d is outside 0 to %d", u.URL, u.MaxConnections, MaxConnLimit)
			}
			if u.Depth < 0 || u.Depth > MaxMirrorDepth {
				return fail("mirror %s: depth %d is outside 0 to %d", u.URL, u.Depth, MaxMirrorDepth)
			}
		}
		for _, m := range f.MetaURLs {
			if strings.TrimSpace(m.MediaType) == "" {
				return fail("metaurl %s has no media type", m.URL)
			}
			if m.Name != "" {
				if err := SafeName(m.Name); err != nil {
					return fail("metaurl %s: %v", m.URL, err)
				}
			}
		}
	}
	return nil
}

// needsExt reports whether d holds anything written in ExtNamespace.
func needsExt(d *Document) bool {
	for i := range d.Files {
		f := &d.Files[i]
		if f.License.Name != "" || f.MaxConnections > 0 {
			return true
		}
		for _, u := range f.URLs {
			if u.MaxConnections > 0 || u.Pref || u.Depth > 0 {
				return true
			}
		}
	}
	return false
}

func writeFile(x *xmlWriter, f *File) {
	var limit string
	if f.MaxConnections > 0 {
		limit = strconv.Itoa(f.MaxConnections)
	}
	x.open(1, "file", "name", f.Name, "braid:maxconnections", limit)
	if f.Size >= 0 {
		x.text(2, "size", strconv.FormatInt(f.Size, 10))
	}
	x.text(2, "identity", f.Identity)
	x.text(2, "version", f.Version)
	x.text(2, "description", f.Description)
	x.text(2, "copyright", f.Copyright)
	x.text(2, "logo", f.Logo)
	for _, l := range f.Languages {
		x.text(2, "language", l)
	}
	for _, o := range f.OS {
		x.text(2, "os", o)
	}
	if f.Publisher.Name != "" {
		x.empty(2, "publisher", "name", f.Publisher.Name, "url", f.Publisher.URL)
	}
	if f.License.Name != "" {
		x.empty(2, "braid:license", "name", f.License.Name, "url", f.License.URL)
	}
	for _, h := range f.Hashes {
		x.text(2, "hash", strings.ToLower(h.Value), "type", strings.ToLower(h.Type))
	}
	if p := f.Pieces; p != nil && len(p.Hashes) > 0 {
		x.open(2, "pieces", "length", strconv.FormatInt(p.Length, 10), "type", strings.ToLower(p.Type))
		for _, h := range p.Hashes {
			x.text(3, "hash", strings.ToLower(h))
		}
		x.close(2, "pieces")
	}
	if s := f.Signature; s != nil {
		x.text(2, "signature", s.Value, "mediatype", s.MediaType)
	}
	for _, u := range f.URLs {
		attrs := []string{"location", locationAttr(u.Location), "priority", priorityAttr(u.Priority)}
		if u.MaxConnections > 0 {
			attrs = append(attrs, "braid:maxconnections", strconv.Itoa(u.MaxConnections))
		}
		if u.Pref {
			attrs = append(attrs, "braid:pref", "true")
		}
		if u.Depth > 0 {
			attrs = append(attrs, "braid:depth", strconv.Itoa(u.Depth))
		}
		x.text(2, "url", u.URL, attrs...)
	}
	for _, m := range f.MetaURLs {
		x.text(2, "metaurl", m.URL, "priority", priorityAttr(m.Priority), "mediatype", m.MediaType, "name", m.Name)
	}
	x.close(1, "file")
}

// priorityAttr is a priority as RFC 5854 allows it (1 to 999999), or "" to
// leave it out: a priority outside that range, such as the zero of a URL
// built in code, means none, which readers take as the lowest.
func priorityAttr(p int) string {
	if p < 1 || p > LowestPriority {
		return ""
	}
	return strconv.Itoa(p)
}

// locationAttr is a location as written, in upper case, when it is two
// letters (uk stays UK: mapping it to GB is for comparing, not for
// rewriting what the publisher said), or "" to leave it out.
func locationAttr(loc string) string {
	if NormalizeCountry(loc) == "" {
		return ""
	}
	return strings.ToUpper(strings.TrimSpace(loc))
}

// formatDate is t as an RFC 5854 Date construct (RFC 3339, upper-case T and
// Z, in UTC), or "" for the zero time.
func formatDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// xmlWriter writes indented Metalink markup. The first error sticks and
// turns the later calls into no-ops, so the writing code reads straight.
type xmlWriter struct {
	w   *bufio.Writer
	err error
}

func (x *xmlWriter) raw(s string) {
	if x.err == nil {
		_, x.err = x.w.WriteString(s)
	}
}

// escape writes s with every character that could end a text node or an
// attribute value escaped (<, >, &, quotes, and tab, CR and LF so attribute
// values keep them); characters XML cannot hold become U+FFFD.
func (x *xmlWriter) escape(s string) {
	if x.err != nil {
		return
	}
	if !needsEscape(s) { // most values: URLs, hashes, names
		_, x.err = x.w.WriteString(s)
		return
	}
	x.err = xml.EscapeText(x.w, []byte(s))
}

// needsEscape reports whether s holds a byte that xml.EscapeText would
// change: markup, quotes, whitespace other than space, control characters,
// or anything beyond ASCII (which it checks for validity).
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c >= 0x7f, c == '<', c == '>', c == '&', c == '"', c == '\'':
			return true
		}
	}
	return false
}

// indent returns the leading spaces for depth, without allocating.
func indent(depth int) string {
	const spaces = "                "
	return spaces[:min(2*depth, len(spaces))]
}

// start writes an indented start tag without its closing '>'; attrs are
// name, value pairs, and pairs with an empty value are left out.
func (x *xmlWriter) start(depth int, name string, attrs []string) {
	x.raw(indent(depth))
	x.raw("<")
	x.raw(name)
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i+1] == "" {
			continue
		}
		x.raw(" ")
		x.raw(attrs[i])
		x.raw(`="`)
		x.escape(attrs[i+1])
		x.raw(`"`)
	}
}

func (x *xmlWriter) open(depth int, name string, attrs ...string) {
	x.start(depth, name, attrs)
	x.raw(">\n")
}

func (x *xmlWriter) close(depth int, name string) {
	x.raw(indent(depth))
	x.raw("</")
	x.raw(name)
	x.raw(">\n")
}

func (x *xmlWriter) empty(depth int, name string, attrs ...string) {
	x.start(depth, name, attrs)
	x.raw("/>\n")
}

// text writes <name attrs>value</name> on one line, with no whitespace
// around the value (RFC 5854 §2 makes it part of the content), or nothing
// when value is empty.
func (x *xmlWriter) text(depth int, name, value string, attrs ...string) {
	if value == "" {
		return
	}
	x.start(depth, name, attrs)
	x.raw(">")
	x.escape(value)
	x.raw("</")
	x.raw(name)
	x.raw(">\n")
}
