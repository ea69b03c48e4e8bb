package metalink

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Limits bound what Parse accepts, so that a hostile document costs
// bounded memory and time. The zero value means the defaults. A Limits is
// a plain value: copies may be used from any number of goroutines.
type Limits struct {
	// MaxBytes is the largest document read, before any transcoding.
	// Memory use stays within a small multiple of it.
	MaxBytes int64
	// MaxDepth is the deepest element nesting accepted. Real documents
	// nest fewer than ten deep (MirrorManager's alternates, XML signatures).
	MaxDepth int
	// MaxFiles is the most <file> elements accepted. Each costs far more
	// memory than the few bytes of a nameless <file/>, so the byte limit
	// alone would let a document claim a gigabyte.
	MaxFiles int
}

const (
	// DefaultMaxBytes is 32 MiB: about three times the 10,000-file,
	// 100,000-mirror document of BenchmarkParseLarge.
	DefaultMaxBytes = 32 << 20
	// DefaultMaxDepth is the default bound on element nesting.
	DefaultMaxDepth = 32
	// DefaultMaxFiles is ten times the files of BenchmarkParseLarge.
	DefaultMaxFiles = 100000
)

// Namespaces that choose the reader.
const (
	nsMetalink4 = "urn:ietf:params:xml:ns:metalink"
	nsMetalink3 = "http://www.metalinker.org/"
)

// maxWarnings bounds Document.Warnings; a hostile document could otherwise
// earn one per element.
const maxWarnings = 100

// maxHashes bounds the whole-file hashes of one file. Real documents give
// at most a handful; a hostile one could make the duplicate check slow.
const maxHashes = 32

// Parse reads a Metalink 4 (RFC 5854) or Metalink 3.0 document, chosen by
// the namespace of its root element, into the one model, with the default
// Limits. See Limits.Parse.
func Parse(r io.Reader) (*Document, error) { return Limits{}.Parse(r) }

// ParseAt is Parse for a document read from location, the URL it was
// fetched from ("" when it has none, as a local file): see Limits.ParseAt.
func ParseAt(r io.Reader, location string) (*Document, error) {
	return Limits{}.ParseAt(r, location)
}

// Parse reads a Metalink document with no known location: see ParseAt.
func (l Limits) Parse(r io.Reader) (*Document, error) { return l.ParseAt(r, "") }

// ParseAt reads a Metalink 4 (RFC 5854) or Metalink 3.0 document from r
// into the one model. It reads at most l.MaxBytes from r and does no other
// I/O. location is where the document was read from (an http, https or
// ftp URL; "" or anything else: not known): a relative <url> or <metaurl>
// is resolved against it, else against the document's <origin>, and
// skipped with a warning when there is neither.
//
// Malformed or truncated XML, entity declarations, nesting beyond the limit
// and documents that are not Metalink fail with a *SyntaxError naming the
// line (wrapping ErrTruncated, ErrEntity, ErrTooDeep, ErrNotMetalink where
// they apply); an oversized document fails with ErrTooLarge. Problems
// inside a well-formed document do not fail it: a file with an unsafe or
// duplicate name goes to Document.Rejected, bad piece hashes, unknown hash
// types and unreadable values are dropped or repaired with a note in
// Document.Warnings, and foreign markup and XML signatures are skipped.
//
// Text is trimmed, hash names normalised (NormalizeHash), hex lower-cased,
// country codes upper-cased. Priorities: a v4 priority outside 1..999999
// or not a number counts as absent (LowestPriority); a v3 preference p
// (1..100, higher first, absent 1) becomes priority 101-p, and one outside
// 1..100 or not a number counts as absent. URLs and MetaURLs are sorted
// stably by priority. Parse is safe for concurrent use.
func (l Limits) ParseAt(r io.Reader, location string) (*Document, error) {
	maxBytes, maxDepth := l.MaxBytes, l.MaxDepth
	if maxBytes <= 0 || maxBytes == math.MaxInt64 {
		maxBytes = DefaultMaxBytes
	}
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	maxFiles := l.MaxFiles
	if maxFiles <= 0 {
		maxFiles = DefaultMaxFiles
	}
	data, err := readAtMost(r, maxBytes+1)
	if err != nil {
		return nil, fmt.Errorf("metalink: reading the document: %w", err)
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("metalink: the document is larger than %d bytes: %w", maxBytes, ErrTooLarge)
	}
	if data, err = toUTF8(data); err != nil {
		return nil, err
	}
	p := &docParser{s: newXMLScanner(data, maxDepth), maxFiles: maxFiles, location: location, doc: &Document{}, top: &fileBuilder{}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.doc, nil
}

// readAtMost reads r to its end or to n bytes. It sizes its buffer up
// front when r tells its length (bytes.Reader, strings.Reader, *os.File),
// sparing the copies of a growing buffer on large documents.
func readAtMost(r io.Reader, n int64) ([]byte, error) {
	hint := int64(0)
	switch v := r.(type) {
	case interface{ Len() int }:
		hint = int64(v.Len())
	case interface{ Stat() (fs.FileInfo, error) }:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			hint = fi.Size()
		}
	}
	if hint <= 0 {
		return io.ReadAll(io.LimitReader(r, n))
	}
	var buf bytes.Buffer
	buf.Grow(int(min(hint+bytes.MinRead, n)))
	_, err := buf.ReadFrom(io.LimitReader(r, n))
	return buf.Bytes(), err
}

// docParser turns the scanner's tokens into a Document.
type docParser struct {
	s        *xmlScanner
	maxFiles int
	location string // where the document was read from, as ParseAt got it
	ns       string // namespace of the root element: the document's vocabulary
	doc      *Document
	files    []*fileBuilder
	top      *fileBuilder // document-level values that files lacking their own inherit
	tbuf     []byte
	dropped  int // warnings beyond maxWarnings

	// urls collects the mirrors of the file being read; endFile copies
	// them out at their final length, sparing a growing slice per file.
	urls  []URL
	codes map[[2]byte]string // country codes, one string each
}

// fileBuilder is a file while it is read, before the safety checks.
type fileBuilder struct {
	f        File
	off      int  // offset of <file>, for line numbers
	named    bool // the name attribute is present
	has      fieldMask
	pieces   []pieceSet
	badPrio  int // priorities or preferences out of range or unreadable
	extraSig int // signatures after the first
}

type fieldMask uint16

const (
	hasIdentity fieldMask = 1 << iota
	hasVersion
	hasDescription
	hasCopyright
	hasLogo
	hasPublisher
	hasLicense
	hasLanguage
	hasOS
	hasSize
	hasSignature
)

// pieceSet is one <pieces> element as written.
type pieceSet struct {
	rawType string
	length  string
	hashes  []string
	index   []int // Metalink 3 piece="N"; -1 where absent, -2 where unreadable
	off     int
}

func (p *docParser) parse() error {
	if _, err := p.s.next(); err != nil {
		return err
	}
	s := p.s
	if string(s.local) != "metalink" {
		return s.errAt(s.off, ErrNotMetalink, "the root element is <%s>, not <metalink>: this is not a Metalink document", s.local)
	}
	version, _ := s.attr("version")
	var err error
	switch space := s.space; {
	case space == nsMetalink4:
		p.ns, p.doc.Version = space, 4
		err = p.v4Metalink()
	case isMetalink3Namespace(space):
		p.ns, p.doc.Version = space, 3
		err = p.v3Metalink()
	case space == "" && bytes.HasPrefix(bytes.TrimSpace(version), []byte("3")):
		p.ns, p.doc.Version = space, 3
		p.warnf("the <metalink> element has no namespace; read as Metalink 3.0")
		err = p.v3Metalink()
	case space == "":
		return s.errAt(s.off, ErrNotMetalink, "<metalink> has no namespace: expected xmlns=%q (Metalink 4) or xmlns=%q (Metalink 3)", nsMetalink4, nsMetalink3)
	default:
		return s.errAt(s.off, ErrNotMetalink, "<metalink> is in the unknown namespace %q: expected %q (Metalink 4) or %q (Metalink 3)", space, nsMetalink4, nsMetalink3)
	}
	if err != nil {
		return err
	}
	if len(p.files) == 0 {
		return fmt.Errorf("metalink: %w", ErrNoFiles)
	}
	p.finish()
	if p.dropped > 0 {
		p.doc.Warnings = append(p.doc.Warnings, fmt.Sprintf("... and %d more warnings", p.dropped))
	}
	return nil
}

// isMetalink3Namespace accepts the namespace as the 3.0 spec writes it and
// as producers vary it: https, and without the trailing slash (the spec's
// own schema writes it so).
func isMetalink3Namespace(space string) bool {
	rest, ok := strings.CutPrefix(space, "http://")
	if !ok {
		rest, ok = strings.CutPrefix(space, "https://")
	}
	rest = strings.TrimSuffix(rest, "/")
	return ok && (rest == "www.metalinker.org" || rest == "metalinker.org")
}

func (p *docParser) warnf(format string, args ...any) {
	if len(p.doc.Warnings) >= maxWarnings {
		p.dropped++
		return
	}
	p.doc.Warnings = append(p.doc.Warnings, fmt.Sprintf(format, args...))
}

// fileWarnf records a warning about one file, naming it and its line.
func (p *docParser) fileWarnf(fb *fileBuilder, format string, args ...any) {
	if len(p.doc.Warnings) >= maxWarnings {
		p.dropped++
		return
	}
	p.warnf("file %q (line %d): %s", fb.f.Name, p.s.line(fb.off), fmt.Sprintf(format, args...))
}

// children calls fn for each child element of the element just started,
// with the scanner on the child's start token; fn must consume the child
// (text, skip, or children of its own). Text between children is ignored.
func (p *docParser) children(fn func() error) error {
	for {
		k, err := p.s.next()
		if err != nil {
			return err
		}
		switch k {
		case tokStart:
			if err := fn(); err != nil {
				return err
			}
		case tokEnd:
			return nil
		}
	}
}

// skip consumes the element just started, whatever it holds.
func (p *docParser) skip() error {
	for depth := 1; depth > 0; {
		k, err := p.s.next()
		if err != nil {
			return err
		}
		switch k {
		case tokStart:
			depth++
		case tokEnd:
			depth--
		}
	}
	return nil
}

// text consumes the element just started and returns its own character
// data, trimmed. Child elements (not allowed in text, but seen) are skipped.
func (p *docParser) text() (string, error) {
	p.tbuf = p.tbuf[:0]
	for depth := 0; ; {
		k, err := p.s.next()
		if err != nil {
			return "", err
		}
		switch k {
		case tokText:
			if depth == 0 {
				p.tbuf = append(p.tbuf, p.s.text...)
			}
		case tokStart:
			depth++
		case tokEnd:
			if depth == 0 {
				return string(bytes.TrimSpace(p.tbuf)), nil
			}
			depth--
		}
	}
}

// attr returns an unprefixed attribute of the current start element, trimmed.
func (p *docParser) attr(name string) (string, bool) {
	v, ok := p.s.attr(name)
	if !ok {
		return "", false
	}
	return string(bytes.TrimSpace(v)), true
}

// extAttr returns the attribute name in ExtNamespace (braid:name, however
// the document spells the prefix) of the current start element, trimmed.
func (p *docParser) extAttr(name string) (string, bool) {
	v, ok := p.s.attrNS(ExtNamespace, name)
	if !ok {
		return "", false
	}
	return string(bytes.TrimSpace(v)), true
}

func (p *docParser) mine() bool { return p.s.space == p.ns }

// newFile starts a file from the <file name="..."> the scanner is on.
func (p *docParser) newFile() (*fileBuilder, error) {
	if len(p.files) == p.maxFiles {
		return nil, p.s.errAt(p.s.off, ErrTooLarge, "the document lists more than %d files", p.maxFiles)
	}
	fb := &fileBuilder{off: p.s.off, f: File{Size: -1}}
	fb.f.Name, fb.named = p.attr("name")
	p.files = append(p.files, fb)
	p.urls = p.urls[:0]
	return fb, nil
}

// endFile ends the file newFile started.
func (p *docParser) endFile(fb *fileBuilder) {
	if len(p.urls) > 0 {
		fb.f.URLs = slices.Clone(p.urls)
	}
}

// setText reads a text element into *dst unless the file already has one.
func (p *docParser) setText(fb *fileBuilder, dst *string, bit fieldMask) error {
	v, err := p.text()
	if err != nil {
		return err
	}
	if fb.has&bit == 0 && v != "" {
		*dst = v
		fb.has |= bit
	}
	return nil
}

// addText reads a repeatable text element (language, os).
func (p *docParser) addText(fb *fileBuilder, dst *[]string, bit fieldMask) error {
	v, err := p.text()
	if err != nil {
		return err
	}
	if v != "" {
		*dst = append(*dst, v)
		fb.has |= bit
	}
	return nil
}

func (p *docParser) size(fb *fileBuilder) error {
	v, err := p.text()
	if err != nil || fb.has&hasSize != 0 {
		return err
	}
	n, perr := strconv.ParseInt(v, 10, 64)
	if perr != nil || n < 0 {
		p.fileWarnf(fb, "the size %q is not a byte count; ignored", v)
		return nil
	}
	fb.f.Size = n
	fb.has |= hasSize
	return nil
}

// party reads a publisher or licence: Metalink 4 writes name and url as
// attributes, Metalink 3 (and MirrorBrain's and MirrorCache's Metalink 4)
// as child elements. Either is accepted.
func (p *docParser) party() (Party, error) {
	var pt Party
	pt.Name, _ = p.attr("name")
	pt.URL, _ = p.attr("url")
	err := p.children(func() error {
		if !p.mine() {
			return p.skip()
		}
		switch string(p.s.local) {
		case "name":
			v, err := p.text()
			if pt.Name == "" {
				pt.Name = v
			}
			return err
		case "url":
			v, err := p.text()
			if pt.URL == "" {
				pt.URL = v
			}
			return err
		}
		return p.skip()
	})
	return pt, err
}

func (p *docParser) setParty(fb *fileBuilder, dst *Party, bit fieldMask) error {
	pt, err := p.party()
	if err != nil {
		return err
	}
	if fb.has&bit == 0 && pt != (Party{}) {
		*dst = pt
		fb.has |= bit
	}
	return nil
}

// addHash records a whole-file hash, dropping values that cannot be a hash
// of their type and keeping unknown types as data.
func (p *docParser) addHash(fb *fileBuilder, rawType, value string) {
	if strings.TrimSpace(rawType) == "" {
		p.fileWarnf(fb, "a <hash> without a type outside <pieces>; ignored")
		return
	}
	typ, known := NormalizeHash(rawType)
	v := cleanHex(value)
	if known && !validHex(typ, v) {
		p.fileWarnf(fb, "the %s hash is not %d hexadecimal digits; ignored", typ, hexDigits[typ])
		return
	}
	if v == "" {
		p.fileWarnf(fb, "the %s hash is empty; ignored", typ)
		return
	}
	if len(fb.f.Hashes) == maxHashes {
		p.fileWarnf(fb, "more than %d whole-file hashes; the rest are ignored", maxHashes)
		return
	}
	for _, h := range fb.f.Hashes {
		if h.Type == typ {
			if h.Value != v {
				p.fileWarnf(fb, "two different %s hashes; the first is kept", typ)
			}
			return
		}
	}
	if !known {
		p.fileWarnf(fb, "the hash type %q is unknown; kept, but not checked", typ)
	}
	fb.f.Hashes = append(fb.f.Hashes, Hash{Type: typ, Value: v})
}

// setSignature keeps the first signature of a file. An empty one is no
// signature: nothing could be checked against it, and Write would leave
// it out. One without a media type (RFC 5854 §4.2.13.1: it MUST have
// one) or of a type other than OpenPGP's is kept, so a caller can say what
// it could not check, with a warning: the file is judged by its hashes.
func (p *docParser) setSignature(fb *fileBuilder, mediaType, value string) {
	if value == "" {
		p.fileWarnf(fb, "an empty signature; ignored")
		return
	}
	if fb.has&hasSignature != 0 {
		fb.extraSig++
		return
	}
	mediaType = strings.TrimSpace(mediaType)
	switch base, _, _ := strings.Cut(mediaType, ";"); strings.TrimSpace(base) {
	case "":
		p.fileWarnf(fb, "the signature has no media type (a Metalink must give one); it cannot be checked, so the file is judged by its hashes")
	case pgpSignature:
	default:
		p.fileWarnf(fb, "the signature is of type %q, which Braid cannot check (only %s); the file is judged by its hashes", mediaType, pgpSignature)
	}
	fb.f.Signature = &Signature{MediaType: mediaType, Value: value}
	fb.has |= hasSignature
}

// pgpSignature is the media type of a detached OpenPGP signature, the
// one kind of signature Braid checks (see engine/signature).
const pgpSignature = "application/pgp-signature"

// addURL records a mirror. Magnet links and BitTorrent URLs become
// MetaURLs of media type "torrent", which is how the engine finds them,
// and keep only their priority. The location is a country code from
// p.country.
func (p *docParser) addURL(fb *fileBuilder, u URL, torrent bool) {
	if u.URL == "" {
		return
	}
	if torrent || isMagnet(u.URL) {
		fb.f.MetaURLs = append(fb.f.MetaURLs, MetaURL{URL: u.URL, MediaType: "torrent", Priority: u.Priority})
		return
	}
	p.urls = append(p.urls, u)
}

// country reads the location attribute of the current element as an
// upper-case two-letter code; anything else ("", "--", "eu") means the
// location is unknown.
func (p *docParser) country() string {
	loc, _ := p.s.attr("location")
	loc = bytes.TrimSpace(loc)
	if len(loc) != 2 || !isASCIILetter(loc[0]) || !isASCIILetter(loc[1]) {
		return ""
	}
	key := [2]byte{loc[0] &^ 0x20, loc[1] &^ 0x20} // ASCII upper case
	code, ok := p.codes[key]
	if !ok {
		if p.codes == nil {
			p.codes = make(map[[2]byte]string)
		}
		code = string(key[:])
		p.codes[key] = code
	}
	return code
}

func isMagnet(u string) bool {
	return len(u) >= len("magnet:") && strings.EqualFold(u[:len("magnet:")], "magnet:")
}

// priority4 reads a Metalink 4 priority: absent is LowestPriority, and so
// is anything RFC 5854 §4.2.16.1 does not allow (not a whole number from 1
// to LowestPriority: 0, negative, too large, not a number), counted for a
// warning. An invalid priority counts as none: it must never put a mirror
// before those that state a valid one.
func (p *docParser) priority4(fb *fileBuilder, raw string, present bool) int {
	if !present {
		return LowestPriority
	}
	n, ok := intIn(raw, 1, LowestPriority)
	if !ok {
		fb.badPrio++
		return LowestPriority
	}
	return n
}

// preference3 turns a Metalink 3 preference (1..100, higher first,
// absent 1) into a priority (lower first): 101-p. A preference outside
// 1..100 or not a number counts as absent (the lowest, priority 100),
// counted for a warning.
func (p *docParser) preference3(fb *fileBuilder, raw string, present bool) int {
	if !present {
		return 100
	}
	n, ok := intIn(raw, 1, 100)
	if !ok {
		fb.badPrio++
		return 100
	}
	return 101 - n
}

// intIn reads a decimal integer (of any length, optionally signed) that
// lies in lo..hi; ok is false for anything else.
func intIn(raw string, lo, hi int) (n int, ok bool) {
	if !isInteger(raw) {
		return 0, false
	}
	v, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || v < int64(lo) || v > int64(hi) {
		return 0, false
	}
	return int(v), true
}

// isInteger reports an optionally signed string of digits, of any length.
func isInteger(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// source names, in a warning, the element an attribute was read from: a
// mirror by its URL, or another element by elem. It is formatted only when
// a warning is, sparing the well-formed mirrors of a large document.
type source struct{ elem, mirror string }

func mirrorSource(u string) source { return source{elem: "a mirror without a URL", mirror: u} }

func (s source) String() string {
	if s.mirror != "" {
		return "mirror " + strconv.Quote(s.mirror)
	}
	return s.elem
}

// connLimit reads a connection limit (Metalink 3 maxconnections, Braid's
// braid:maxconnections) given as attribute what of of. Anything but a
// whole number from 1 to MaxConnLimit is read as not given (0), with a
// warning.
func (p *docParser) connLimit(fb *fileBuilder, raw, what string, of source) int {
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > MaxConnLimit {
		p.fileWarnf(fb, "the %s %q of %s is not a whole number from 1 to %d; ignored", what, raw, of, MaxConnLimit)
		return 0
	}
	return n
}

// lenientDates are the forms real documents use besides RFC 3339: RFC 822
// and its relatives (Metalink 3, MirrorBrain, MirrorManager), the 3.0
// spec's own "2006-06-09-18:56:57", and MirrorCache's "2024-03-01 12:00:00 UTC".
var lenientDates = []string{
	time.RFC1123, time.RFC1123Z, time.RFC850, time.ANSIC, time.RFC822, time.RFC822Z,
	"Mon, 2 Jan 2006 15:04:05 MST", "Mon, 2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04:05 MST", "2 Jan 2006 15:04:05 -0700",
	"Mon, 02 Jan 06 15:04:05 MST", "Mon, 02 Jan 06 15:04:05 -0700",
	"2006-01-02-15:04:05", "2006-01-02 15:04:05 MST", "2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02",
}

// date reads a date in UTC. Metalink 4 requires RFC 3339 and gets a warning
// for anything else that still reads; Metalink 3 dates are read leniently.
func (p *docParser) date(raw, what string, off int) time.Time {
	if raw == "" {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339, raw); err == nil {
		return t.UTC()
	}
	for _, layout := range lenientDates {
		if t, err := time.Parse(layout, raw); err == nil {
			if p.doc.Version == 4 {
				p.warnf("line %d: the %s date %q is not RFC 3339; read as %s", p.s.line(off), what, raw, t.UTC().Format(time.RFC3339))
			}
			return t.UTC()
		}
	}
	if t, err := mail.ParseDate(raw); err == nil {
		if p.doc.Version == 4 {
			p.warnf("line %d: the %s date %q is not RFC 3339; read as %s", p.s.line(off), what, raw, t.UTC().Format(time.RFC3339))
		}
		return t.UTC()
	}
	p.warnf("line %d: the %s date %q is not a date; ignored", p.s.line(off), what, raw)
	return time.Time{}
}

// xmlSignature notes an enveloped XML signature, which Braid does not verify
// and which must never stop processing (RFC 5854 §7.1).
func (p *docParser) xmlSignature() error {
	p.warnf("line %d: the document carries an XML signature, which Braid does not verify", p.s.line(p.s.off))
	return p.skip()
}

// finish applies document-level defaults, runs the safety checks, settles
// piece hashes and orders mirrors.
func (p *docParser) finish() {
	var names nameTree
	base := docBase(p.location, p.doc.Origin)
	p.doc.Files = make([]File, 0, len(p.files))
	for _, fb := range p.files {
		p.inherit(fb)
		f := &fb.f
		if !fb.named || f.Name == "" {
			p.reject(f.Name, fmt.Sprintf("the <file> on line %d has no name", p.s.line(fb.off)))
			continue
		}
		if err := SafeName(f.Name); err != nil {
			p.reject(f.Name, err.Error())
			continue
		}
		if reason := unsafeMetaURL(f.MetaURLs); reason != "" {
			p.reject(f.Name, reason)
			continue
		}
		if reason := names.claim(f.Name); reason != "" {
			p.reject(f.Name, reason)
			continue
		}
		p.resolveRelative(fb, base)
		p.settlePieces(fb)
		if limit := f.MaxConnections; limit > 0 {
			for i := range f.URLs {
				if u := &f.URLs[i]; u.MaxConnections == 0 || u.MaxConnections > limit {
					u.MaxConnections = limit
				}
			}
		}
		byPriority := func(a, b URL) int { return cmp.Compare(a.Priority, b.Priority) }
		if !slices.IsSortedFunc(f.URLs, byPriority) {
			slices.SortStableFunc(f.URLs, byPriority)
		}
		slices.SortStableFunc(f.MetaURLs, func(a, b MetaURL) int { return cmp.Compare(a.Priority, b.Priority) })
		if fb.badPrio > 0 {
			if p.doc.Version == 3 {
				p.fileWarnf(fb, "%d mirror preferences were outside 1..100 or not numbers; those mirrors count as having none (tried last)", fb.badPrio)
			} else {
				p.fileWarnf(fb, "%d mirror priorities were outside 1..%d or not numbers; those mirrors count as having none (tried last)", fb.badPrio, LowestPriority)
			}
		}
		if fb.extraSig > 0 {
			p.fileWarnf(fb, "only the first signature is kept; %d more ignored", fb.extraSig)
		}
		if len(f.URLs) == 0 && len(f.MetaURLs) == 0 {
			p.fileWarnf(fb, "no mirror or metadata URL to download it from")
		}
		p.doc.Files = append(p.doc.Files, *f)
	}
}

func (p *docParser) reject(name, reason string) {
	p.doc.Rejected = append(p.doc.Rejected, Rejected{Name: name, Reason: reason})
}

// inherit gives a file the document-level values it lacks (Metalink 3's
// top-level publisher, licence, identity...; MirrorBrain's top-level
// publisher in Metalink 4).
func (p *docParser) inherit(fb *fileBuilder) {
	top, f := p.top, &fb.f
	missing := top.has &^ fb.has
	if missing&hasIdentity != 0 {
		f.Identity = top.f.Identity
	}
	if missing&hasVersion != 0 {
		f.Version = top.f.Version
	}
	if missing&hasDescription != 0 {
		f.Description = top.f.Description
	}
	if missing&hasCopyright != 0 {
		f.Copyright = top.f.Copyright
	}
	if missing&hasLogo != 0 {
		f.Logo = top.f.Logo
	}
	if missing&hasPublisher != 0 {
		f.Publisher = top.f.Publisher
	}
	if missing&hasLicense != 0 {
		f.License = top.f.License
	}
	if missing&hasLanguage != 0 {
		f.Languages = slices.Clone(top.f.Languages)
	}
	if missing&hasOS != 0 {
		f.OS = slices.Clone(top.f.OS)
	}
}

func unsafeMetaURL(mus []MetaURL) string {
	for _, mu := range mus {
		if mu.Name == "" {
			continue
		}
		if err := SafeName(mu.Name); err != nil {
			return "its metaurl names an unsafe path inside the torrent: " + err.Error()
		}
	}
	return ""
}

// nameTree holds the names of the files accepted so far, folded to lower
// case, one node per path element, so that checking a name costs its
// length however deep it is.
type nameTree struct {
	file     string // the accepted file ending here, as the document spells it
	under    string // the first accepted file below here, when this is a folder
	children map[string]*nameTree
}

// claim adds name unless another accepted file already has it, ignoring
// case (Windows and macOS would write both to one file), or it needs a
// folder where a file is, or a file where a folder is; then it returns why.
func (t *nameTree) claim(name string) string {
	n := t
	rest := strings.ToLower(name)
	for rest != "" {
		elem, tail, _ := strings.Cut(rest, "/")
		rest = tail
		next := n.children[elem]
		if next == nil {
			break
		}
		n = next
		if n.file != "" && rest != "" {
			return fmt.Sprintf("name clash: the earlier file %q is where this file needs a folder", n.file)
		}
		if rest == "" {
			switch {
			case n.file == name:
				return fmt.Sprintf("duplicate name: an earlier file of the document is also called %q", n.file)
			case n.file != "":
				return fmt.Sprintf("duplicate name: an earlier file is called %q, which differs only in case and is the same file on Windows and macOS", n.file)
			default:
				return fmt.Sprintf("name clash: the earlier file %q needs a folder with this name", n.under)
			}
		}
	}
	n = t
	for elem := range strings.SplitSeq(strings.ToLower(name), "/") {
		if n.children == nil {
			n.children = make(map[string]*nameTree)
		}
		next := n.children[elem]
		if next == nil {
			next = &nameTree{}
			n.children[elem] = next
		}
		if n != t && n.under == "" {
			n.under = name
		}
		n = next
	}
	n.file = name
	return ""
}

// clash is claim for callers that keep their names in two maps (folded
// name -> name, folded folder -> the first file in it); write.go checks
// documents before writing them with it. It costs the square of a name's
// depth, which is fine for documents Braid writes itself; Parse uses
// nameTree. TestClashAgreesWithClaim keeps the two in step.
func clash(name string, taken, dirs map[string]string) string {
	key := strings.ToLower(name)
	if other, ok := taken[key]; ok {
		if other == name {
			return fmt.Sprintf("duplicate name: an earlier file of the document is also called %q", other)
		}
		return fmt.Sprintf("duplicate name: an earlier file is called %q, which differs only in case and is the same file on Windows and macOS", other)
	}
	if other, ok := dirs[key]; ok {
		return fmt.Sprintf("name clash: the earlier file %q needs a folder with this name", other)
	}
	for i := strings.IndexByte(key, '/'); i >= 0; i = nextSlash(key, i) {
		if other, ok := taken[key[:i]]; ok {
			return fmt.Sprintf("name clash: the earlier file %q is where this file needs a folder", other)
		}
	}
	taken[key] = name
	for i := strings.IndexByte(key, '/'); i >= 0; i = nextSlash(key, i) {
		if _, ok := dirs[key[:i]]; !ok {
			dirs[key[:i]] = name
		}
	}
	return ""
}

func nextSlash(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// settlePieces validates every <pieces> of a file and keeps the strongest
// usable set. A set whose length is not positive, whose hashes are not hex
// of their type, whose Metalink 3 piece numbers are missing or repeated, or
// whose count is not ceil(size/length) when the size is known, is dropped
// with a warning: the whole-file hash still decides. A set of a hash type
// Braid cannot compute is kept as data, with a warning, when nothing better
// is there; the engine checks piece types before use.
func (p *docParser) settlePieces(fb *fileBuilder) {
	var best *Pieces
	for i := range fb.pieces {
		ps := &fb.pieces[i]
		pc, reason := ps.validate(fb.f.Size)
		if reason != "" {
			p.fileWarnf(fb, "the %s piece hashes (line %d) are dropped: %s; the whole-file hash still decides",
				ps.label(), p.s.line(ps.off), reason)
			continue
		}
		if best == nil || hashStrength[pc.Type] > hashStrength[best.Type] {
			best = pc
		}
	}
	if best != nil && hashStrength[best.Type] == 0 {
		p.fileWarnf(fb, "the piece hashes are of type %q, which Braid cannot check; kept as data", best.Type)
	}
	fb.f.Pieces = best
}

func (ps *pieceSet) label() string {
	if t := strings.TrimSpace(ps.rawType); t != "" {
		typ, _ := NormalizeHash(t)
		return typ
	}
	return "untyped"
}

func (ps *pieceSet) validate(size int64) (*Pieces, string) {
	typ, _ := NormalizeHash(ps.rawType)
	if typ == "" {
		return nil, "they have no type"
	}
	length, err := strconv.ParseInt(ps.length, 10, 64)
	if err != nil || length <= 0 {
		return nil, fmt.Sprintf("the piece length %q is not a positive number", ps.length)
	}
	if len(ps.hashes) == 0 {
		return nil, "there are no piece hashes"
	}
	hashes := ps.hashes
	if numbered := slices.ContainsFunc(ps.index, func(i int) bool { return i != -1 }); numbered {
		ordered := make([]string, len(hashes))
		seen := make([]bool, len(hashes))
		for k, i := range ps.index {
			if i < 0 || i >= len(hashes) || seen[i] {
				return nil, "the piece numbers are missing, repeated or out of range"
			}
			seen[i] = true
			ordered[i] = hashes[k]
		}
		hashes = ordered
	}
	for i, h := range hashes {
		if !validHex(typ, h) {
			if n, ok := hexDigits[typ]; ok {
				return nil, fmt.Sprintf("the hash of piece %d is not %d hexadecimal digits", i, n)
			}
			return nil, fmt.Sprintf("the hash of piece %d is not hexadecimal", i)
		}
	}
	if size >= 0 {
		want := size / length
		if size%length != 0 {
			want++
		}
		if int64(len(hashes)) != want {
			return nil, fmt.Sprintf("%d hashes for a %d-byte file in %d-byte pieces, which needs %d", len(hashes), size, length, want)
		}
	}
	return &Pieces{Type: typ, Length: length, Hashes: hashes}, ""
}
