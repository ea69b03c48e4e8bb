package metalink

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// xmlScanner is a small, strict XML 1.0 + Namespaces tokenizer over a
// document already in memory (Parse bounds its size first).
//
// Why not encoding/xml: its Decoder.Token alone needs about 0.8 s for the
// 11 MB, 10,000-file, 100,000-mirror document of BenchmarkParseLarge, and
// allocates per byte of names and attributes; this scanner works on slices
// of the buffer and does the same in a few tens of milliseconds. It checks
// what a Metalink reader must rely on: well-formed tags, matched end tags,
// quoted attributes, legal characters and UTF-8, the five predefined
// entities and character references, namespace prefixes, a bounded depth
// and attribute count. It refuses entity declarations outright (ErrEntity),
// skips comments, processing instructions and DOCTYPEs without entities,
// and stops at the end of the root element.
type xmlScanner struct {
	buf      []byte
	pos      int
	maxDepth int

	stack      []openElem
	ns         []nsBinding
	rootSeen   bool
	pendingEnd bool // a self-closing element still owes its end token

	// The current token. The slices point into buf or scratch and stay
	// valid only until the next call to next.
	space   string    // namespace URI of the element (start and end tokens)
	local   []byte    // local name of the element
	off     int       // byte offset of the element's '<'
	attrs   []xmlAttr // attributes of a start element
	text    []byte    // character data of a text token
	scratch []byte

	lineOff, lineNo int // memo for line: line lineNo starts at or before lineOff
}

type tokenKind uint8

const (
	tokStart tokenKind = iota + 1
	tokEnd
	tokText
)

// maxAttrs bounds the attributes of one element, so that a hostile
// document cannot turn its bytes into a far larger attribute table. Real
// Metalink elements carry fewer than ten.
const maxAttrs = 256

// maxBindings bounds the namespace declarations in scope at once; each
// element's name is looked up among them. Real documents declare fewer
// than ten.
const maxBindings = 64

const (
	nsXML    = "http://www.w3.org/XML/1998/namespace"
	nsXMLNS  = "http://www.w3.org/2000/xmlns/"
	nsXMLSig = "http://www.w3.org/2000/09/xmldsig#"
)

type xmlAttr struct {
	space string // namespace URI; "" for an unprefixed attribute
	local []byte
	value []byte // with entities replaced and whitespace normalised
}

type openElem struct {
	qname  []byte // as written, to match the end tag
	space  string
	local  []byte
	off    int
	nsMark int // len(ns) before this element's declarations
}

type nsBinding struct{ prefix, uri string }

func newXMLScanner(buf []byte, maxDepth int) *xmlScanner {
	return &xmlScanner{buf: buf, maxDepth: maxDepth, lineNo: 1}
}

// line returns the 1-based line of byte offset off. Offsets asked for are
// mostly increasing, so it counts forward from the last answer.
func (s *xmlScanner) line(off int) int {
	if off > len(s.buf) {
		off = len(s.buf)
	}
	if off < s.lineOff {
		s.lineOff, s.lineNo = 0, 1
	}
	s.lineNo += bytes.Count(s.buf[s.lineOff:off], []byte{'\n'})
	s.lineOff = off
	return s.lineNo
}

func (s *xmlScanner) errAt(off int, sentinel error, format string, args ...any) error {
	return &SyntaxError{Line: s.line(off), Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

// attr returns the value of the unprefixed attribute name of the current
// start element. Prefixed attributes (mm0:private, xml:lang) never match.
func (s *xmlScanner) attr(name string) ([]byte, bool) {
	for i := range s.attrs {
		if a := &s.attrs[i]; a.space == "" && string(a.local) == name {
			return a.value, true
		}
	}
	return nil, false
}

// attrNS returns the value of the attribute name in namespace space (not
// "") of the current start element, whatever prefix the document binds to
// space.
func (s *xmlScanner) attrNS(space, name string) ([]byte, bool) {
	for i := range s.attrs {
		if a := &s.attrs[i]; a.space == space && string(a.local) == name {
			return a.value, true
		}
	}
	return nil, false
}

// next reads the next start element, end element or run of text inside
// the root element. Comments, processing instructions and whitespace
// outside the root are skipped.
func (s *xmlScanner) next() (tokenKind, error) {
	if s.pendingEnd {
		s.pendingEnd = false
		s.pop()
		return tokEnd, nil
	}
	for {
		if s.pos >= len(s.buf) {
			return 0, s.eof()
		}
		if s.buf[s.pos] != '<' {
			start := s.pos
			end := bytes.IndexByte(s.buf[start:], '<')
			if end < 0 {
				end = len(s.buf)
			} else {
				end += start
			}
			s.pos = end
			raw := s.buf[start:end]
			if len(s.stack) == 0 {
				if len(bytes.Trim(raw, " \t\r\n")) != 0 {
					return 0, s.notXML(start)
				}
				continue
			}
			if i := bytes.Index(raw, []byte("]]>")); i >= 0 {
				return 0, s.errAt(start+i, nil, "']]>' outside a CDATA section")
			}
			t, err := s.decode(raw, start, modeText)
			if err != nil {
				return 0, err
			}
			s.text = t
			return tokText, nil
		}
		if s.pos+1 >= len(s.buf) {
			return 0, s.truncated(s.pos, "a tag")
		}
		switch s.buf[s.pos+1] {
		case '/':
			return s.endTag()
		case '?':
			if err := s.skipPI(); err != nil {
				return 0, err
			}
		case '!':
			isText, err := s.bang()
			if err != nil {
				return 0, err
			}
			if isText {
				return tokText, nil
			}
		default:
			return s.startTag()
		}
	}
}

func (s *xmlScanner) notXML(off int) error {
	if !s.rootSeen {
		return s.errAt(off, ErrNotMetalink, "the document does not start with XML markup")
	}
	return s.errAt(off, nil, "text after the root element")
}

func (s *xmlScanner) eof() error {
	if len(s.stack) > 0 {
		top := s.stack[len(s.stack)-1]
		return s.errAt(len(s.buf), ErrTruncated,
			"the document ends inside <%s> opened on line %d: expected </%s>",
			top.qname, s.line(top.off), top.qname)
	}
	if len(bytes.Trim(s.buf, " \t\r\n")) == 0 {
		return s.errAt(len(s.buf), ErrNotMetalink, "the document is empty")
	}
	return s.errAt(len(s.buf), ErrNotMetalink, "the document has no root element")
}

func (s *xmlScanner) truncated(off int, what string) error {
	return s.errAt(off, ErrTruncated, "the document ends inside %s", what)
}

func (s *xmlScanner) pop() {
	top := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	s.ns = s.ns[:top.nsMark]
	s.space, s.local, s.off = top.space, top.local, top.off
}

func (s *xmlScanner) startTag() (tokenKind, error) {
	off := s.pos
	if s.rootSeen && len(s.stack) == 0 {
		return 0, s.errAt(off, nil, "a second root element")
	}
	s.pos++
	qname := s.name()
	if qname == nil {
		return 0, s.errAt(off, nil, "expected an element name after '<', found %s", s.found())
	}
	if s.pos >= len(s.buf) {
		return 0, s.truncated(off, fmt.Sprintf("the start tag <%s", qname))
	}
	s.scratch = s.scratch[:0]
	attrs := s.attrs[:0]
	selfClosing := false
	for {
		spaced := s.skipSpace()
		if s.pos >= len(s.buf) {
			return 0, s.truncated(off, fmt.Sprintf("the start tag <%s", qname))
		}
		c := s.buf[s.pos]
		if c == '>' {
			s.pos++
			break
		}
		if c == '/' {
			if s.pos+1 < len(s.buf) && s.buf[s.pos+1] == '>' {
				s.pos += 2
				selfClosing = true
				break
			}
			return 0, s.errAt(s.pos, nil, "expected '>' after '/' in <%s>", qname)
		}
		if !spaced {
			return 0, s.errAt(s.pos, nil, "expected whitespace, '>' or '/>' in <%s>, found %s", qname, s.found())
		}
		aoff := s.pos
		aname := s.name()
		if aname == nil && s.pos >= len(s.buf) {
			return 0, s.truncated(off, fmt.Sprintf("the start tag <%s", qname))
		}
		if aname == nil {
			return 0, s.errAt(aoff, nil, "expected an attribute name in <%s>, found %s", qname, s.found())
		}
		s.skipSpace()
		if s.pos >= len(s.buf) {
			return 0, s.truncated(off, fmt.Sprintf("the start tag <%s", qname))
		}
		if s.buf[s.pos] != '=' {
			return 0, s.errAt(s.pos, nil, "attribute %s of <%s> has no value: expected '='", aname, qname)
		}
		s.pos++
		s.skipSpace()
		if s.pos >= len(s.buf) {
			return 0, s.truncated(off, fmt.Sprintf("the start tag <%s", qname))
		}
		if s.buf[s.pos] != '"' && s.buf[s.pos] != '\'' {
			return 0, s.errAt(s.pos, nil, "the value of attribute %s of <%s> must be in quotes", aname, qname)
		}
		quote := s.buf[s.pos]
		vstart := s.pos + 1
		n := bytes.IndexByte(s.buf[vstart:], quote)
		if n < 0 {
			return 0, s.truncated(aoff, fmt.Sprintf("the value of attribute %s of <%s>", aname, qname))
		}
		s.pos = vstart + n + 1
		v, err := s.decode(s.buf[vstart:vstart+n], vstart, modeAttr)
		if err != nil {
			return 0, err
		}
		if len(attrs) == maxAttrs {
			return 0, s.errAt(aoff, nil, "<%s> has more than %d attributes", qname, maxAttrs)
		}
		attrs = append(attrs, xmlAttr{local: aname, value: v})
	}
	if len(s.stack) >= s.maxDepth {
		return 0, s.errAt(off, ErrTooDeep, "<%s> is nested more than %d elements deep", qname, s.maxDepth)
	}

	mark := len(s.ns)
	for i := range attrs {
		a := &attrs[i]
		if bytes.HasPrefix(a.local, []byte("xmlns")) && len(s.ns) == maxBindings {
			return 0, s.errAt(off, nil, "more than %d namespace declarations in scope at <%s>", maxBindings, qname)
		}
		switch {
		case string(a.local) == "xmlns":
			s.ns = append(s.ns, nsBinding{"", string(a.value)})
			a.space = nsXMLNS
		case bytes.HasPrefix(a.local, []byte("xmlns:")):
			prefix := a.local[len("xmlns:"):]
			if len(prefix) == 0 || bytes.IndexByte(prefix, ':') >= 0 {
				return 0, s.errAt(off, nil, "malformed namespace declaration %s in <%s>", a.local, qname)
			}
			s.ns = append(s.ns, nsBinding{string(prefix), string(a.value)})
			a.space, a.local = nsXMLNS, prefix
		}
	}
	space, local, err := s.resolve(qname, true, off)
	if err != nil {
		return 0, err
	}
	for i := range attrs {
		a := &attrs[i]
		if a.space == nsXMLNS {
			continue
		}
		if a.space, a.local, err = s.resolve(a.local, false, off); err != nil {
			return 0, err
		}
	}
	s.stack = append(s.stack, openElem{qname: qname, space: space, local: local, off: off, nsMark: mark})
	s.rootSeen = true
	s.space, s.local, s.off, s.attrs = space, local, off, attrs
	s.pendingEnd = selfClosing
	return tokStart, nil
}

// resolve splits a qualified name and finds its namespace. An unprefixed
// element takes the default namespace, an unprefixed attribute none. An
// undeclared prefix gets a namespace of its own that matches nothing, so
// the element is skipped as foreign markup rather than failing the document.
func (s *xmlScanner) resolve(qname []byte, element bool, off int) (string, []byte, error) {
	i := bytes.IndexByte(qname, ':')
	if i < 0 {
		if !element {
			return "", qname, nil
		}
		for j := len(s.ns) - 1; j >= 0; j-- {
			if s.ns[j].prefix == "" {
				return s.ns[j].uri, qname, nil
			}
		}
		return "", qname, nil
	}
	prefix, local := qname[:i], qname[i+1:]
	if len(prefix) == 0 || len(local) == 0 || bytes.IndexByte(local, ':') >= 0 {
		return "", nil, s.errAt(off, nil, "malformed name %q", qname)
	}
	if string(prefix) == "xml" {
		return nsXML, local, nil
	}
	for j := len(s.ns) - 1; j >= 0; j-- {
		if s.ns[j].prefix == string(prefix) {
			return s.ns[j].uri, local, nil
		}
	}
	return "undeclared-prefix:" + string(prefix), local, nil
}

func (s *xmlScanner) endTag() (tokenKind, error) {
	off := s.pos
	s.pos += 2
	qname := s.name()
	if qname == nil {
		if s.pos >= len(s.buf) {
			return 0, s.truncated(off, "an end tag")
		}
		return 0, s.errAt(off, nil, "expected an element name after '</', found %s", s.found())
	}
	s.skipSpace()
	if s.pos >= len(s.buf) {
		return 0, s.truncated(off, fmt.Sprintf("the end tag </%s", qname))
	}
	if s.buf[s.pos] != '>' {
		return 0, s.errAt(s.pos, nil, "expected '>' to end </%s>, found %s", qname, s.found())
	}
	s.pos++
	if len(s.stack) == 0 {
		return 0, s.errAt(off, nil, "</%s> closes no element", qname)
	}
	top := s.stack[len(s.stack)-1]
	if !bytes.Equal(top.qname, qname) {
		return 0, s.errAt(off, nil, "</%s> closes <%s> opened on line %d: expected </%s>",
			qname, top.qname, s.line(top.off), top.qname)
	}
	s.pop()
	return tokEnd, nil
}

func (s *xmlScanner) skipPI() error {
	off := s.pos
	n := bytes.Index(s.buf[s.pos+2:], []byte("?>"))
	if n < 0 {
		return s.truncated(off, "a processing instruction <?...?>")
	}
	s.pos += 2 + n + 2
	return nil
}

// bang handles "<!": a comment, CDATA (returned as text) or a DOCTYPE.
func (s *xmlScanner) bang() (isText bool, err error) {
	off := s.pos
	rest := s.buf[s.pos:]
	switch {
	case bytes.HasPrefix(rest, []byte("<!--")):
		n := bytes.Index(rest[4:], []byte("-->"))
		if n < 0 {
			return false, s.truncated(off, "a comment <!--")
		}
		s.pos += 4 + n + 3
		return false, nil
	case bytes.HasPrefix(rest, []byte("<![CDATA[")):
		if len(s.stack) == 0 {
			return false, s.errAt(off, nil, "CDATA outside the root element")
		}
		n := bytes.Index(rest[9:], []byte("]]>"))
		if n < 0 {
			return false, s.truncated(off, "a CDATA section")
		}
		s.scratch = s.scratch[:0]
		t, err := s.decode(rest[9:9+n], off+9, modeCDATA)
		if err != nil {
			return false, err
		}
		s.pos += 9 + n + 3
		s.text = t
		return true, nil
	case bytes.HasPrefix(rest, []byte("<!DOCTYPE")):
		if s.rootSeen {
			return false, s.errAt(off, nil, "a DOCTYPE inside the document")
		}
		return false, s.doctype()
	}
	return false, s.errAt(off, nil, "unknown markup %s", s.found())
}

// doctype skips a DOCTYPE declaration, refusing one that declares entities.
// The internal subset may hold quoted strings and comments with any of
// '>' '[' ']' in them.
func (s *xmlScanner) doctype() error {
	off := s.pos
	depth := 0
	for i := s.pos + len("<!DOCTYPE"); i < len(s.buf); i++ {
		switch c := s.buf[i]; c {
		case '"', '\'':
			n := bytes.IndexByte(s.buf[i+1:], c)
			if n < 0 {
				return s.truncated(off, "the DOCTYPE")
			}
			i += n + 1
		case '[':
			depth++
		case ']':
			depth--
		case '<':
			if bytes.HasPrefix(s.buf[i:], []byte("<!--")) {
				n := bytes.Index(s.buf[i+4:], []byte("-->"))
				if n < 0 {
					return s.truncated(off, "a comment in the DOCTYPE")
				}
				i += 4 + n + 2
			} else if bytes.HasPrefix(s.buf[i:], []byte("<!ENTITY")) {
				return s.errAt(i, ErrEntity, "the DOCTYPE declares an XML entity; Metalink documents never need one and entity expansion is refused")
			}
		case '>':
			if depth <= 0 {
				s.pos = i + 1
				return nil
			}
		}
	}
	return s.truncated(off, "the DOCTYPE")
}

func (s *xmlScanner) skipSpace() bool {
	start := s.pos
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
			continue
		}
		break
	}
	return s.pos > start
}

// found describes the bytes at the current position for an error message.
func (s *xmlScanner) found() string {
	if s.pos >= len(s.buf) {
		return "the end of the document"
	}
	r, _ := utf8.DecodeRune(s.buf[s.pos:])
	return fmt.Sprintf("%q", r)
}

// name scans an XML Name (letters, digits and . - _ : and the non-ASCII
// ranges of XML 1.0 fifth edition) and returns nil if there is none.
func (s *xmlScanner) name() []byte {
	start := s.pos
	for s.pos < len(s.buf) {
		c := s.buf[s.pos]
		if c < utf8.RuneSelf {
			if !nameByte[c] || (s.pos == start && !nameStartByte(c)) {
				break
			}
			s.pos++
			continue
		}
		r, n := utf8.DecodeRune(s.buf[s.pos:])
		if !isNameRune(r, s.pos == start) {
			break
		}
		s.pos += n
	}
	if s.pos == start {
		return nil
	}
	return s.buf[start:s.pos]
}

var nameByte = func() (t [utf8.RuneSelf]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			c == '-' || c == '.' || c == '_' || c == ':'
	}
	return t
}()

func nameStartByte(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'
}

func isNameRune(r rune, first bool) bool {
	switch {
	case r == utf8.RuneError:
		return false
	case r >= 0xC0 && r <= 0xD6, r >= 0xD8 && r <= 0xF6, r >= 0xF8 && r <= 0x2FF,
		r >= 0x370 && r <= 0x37D, r >= 0x37F && r <= 0x1FFF, r >= 0x200C && r <= 0x200D,
		r >= 0x2070 && r <= 0x218F, r >= 0x2C00 && r <= 0x2FEF, r >= 0x3001 && r <= 0xD7FF,
		r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFFD, r >= 0x10000 && r <= 0xEFFFF:
		return true
	case r == 0xB7, r >= 0x300 && r <= 0x36F, r >= 0x203F && r <= 0x2040:
		return !first
	}
	return false
}

type decodeMode uint8

const (
	modeText  decodeMode = iota // character data: entities, line ends
	modeAttr                    // attribute value: also whitespace to spaces, no '<'
	modeCDATA                   // CDATA section: line ends only
)

// plainByte[mode][c] is true when byte c needs no work in that mode.
var plainByte = func() (t [3][256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[modeText][c], t[modeAttr][c], t[modeCDATA][c] = true, true, true
	}
	t[modeText]['&'], t[modeAttr]['&'], t[modeAttr]['<'] = false, false, false
	t[modeText]['\n'], t[modeText]['\t'] = true, true
	t[modeCDATA]['\n'], t[modeCDATA]['\t'] = true, true
	return t
}()

// decode checks that raw holds only legal XML characters in valid UTF-8
// and returns it with references replaced and line ends normalised; raw
// itself when nothing needs changing, else a slice of scratch.
func (s *xmlScanner) decode(raw []byte, off int, mode decodeMode) ([]byte, error) {
	plain := &plainByte[mode]
	i := 0
	for i < len(raw) && plain[raw[i]] {
		i++
	}
	if i == len(raw) {
		return raw, nil
	}
	start := len(s.scratch)
	out := append(s.scratch, raw[:i]...)
	for i < len(raw) {
		c := raw[i]
		switch {
		case plain[c]:
			out = append(out, c)
			i++
		case c == '&':
			r, n, err := s.reference(raw[i:], off+i)
			if err != nil {
				return nil, err
			}
			out = utf8.AppendRune(out, r)
			i += n
		case c == '<':
			return nil, s.errAt(off+i, nil, "'<' in an attribute value: write &lt;")
		case c == '\r':
			if mode == modeAttr {
				out = append(out, ' ')
			} else {
				out = append(out, '\n')
			}
			i++
			if i < len(raw) && raw[i] == '\n' {
				i++
			}
		case c == '\n' || c == '\t':
			out = append(out, ' ')
			i++
		case c < utf8.RuneSelf:
			return nil, s.errAt(off+i, nil, "the control character %U is not allowed in XML", rune(c))
		default:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n <= 1 {
				return nil, s.errAt(off+i, nil, "invalid UTF-8 (if the document is in another encoding, its <?xml?> declaration must name it)")
			}
			if !isXMLChar(r) {
				return nil, s.errAt(off+i, nil, "the character %U is not allowed in XML", r)
			}
			out = append(out, raw[i:i+n]...)
			i += n
		}
	}
	s.scratch = out
	return out[start:], nil
}

// reference reads an entity or character reference at the start of b.
func (s *xmlScanner) reference(b []byte, off int) (rune, int, error) {
	const longest = 12 // "&#x0010FFFF;"
	semi := bytes.IndexByte(b[:min(len(b), longest)], ';')
	if semi < 2 {
		return 0, 0, s.errAt(off, nil, "'&' must start a reference such as &amp;")
	}
	ref := b[1:semi]
	switch string(ref) {
	case "lt":
		return '<', semi + 1, nil
	case "gt":
		return '>', semi + 1, nil
	case "amp":
		return '&', semi + 1, nil
	case "apos":
		return '\'', semi + 1, nil
	case "quot":
		return '"', semi + 1, nil
	}
	if ref[0] != '#' {
		return 0, 0, s.errAt(off, nil, "undefined entity &%s; (XML knows only &lt; &gt; &amp; &apos; &quot;)", ref)
	}
	digits, base := ref[1:], rune(10)
	if len(digits) > 0 && digits[0] == 'x' {
		digits, base = digits[1:], 16
	}
	var r rune
	for _, c := range digits {
		var d rune
		switch {
		case c >= '0' && c <= '9':
			d = rune(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = rune(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = rune(c-'A') + 10
		default:
			return 0, 0, s.errAt(off, nil, "malformed character reference &%s;", ref)
		}
		r = r*base + d
		if r > utf8.MaxRune {
			break
		}
	}
	if len(digits) == 0 || !isXMLChar(r) {
		return 0, 0, s.errAt(off, nil, "&%s; is not a legal XML character", ref)
	}
	return r, semi + 1, nil
}

func isXMLChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD ||
		(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}
