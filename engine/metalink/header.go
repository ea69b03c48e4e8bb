package metalink

import (
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
)

// MaxLinks bounds how many links ParseLinks returns, so a hostile server
// cannot turn a large header into a huge mirror list.
const MaxLinks = 1024

// ParseLinks reads the values of HTTP Link header fields (RFC 8288, the
// successor of RFC 5988 that RFC 6249 uses) into links, in header order.
// Each value may hold several comma-separated links, and commas inside the
// <URI> or inside quoted parameters do not split. A link with several
// relation types (rel="duplicate describedby") yields one Link per type.
// Parameter names and rel and type values are case-insensitive; the first
// occurrence of a parameter wins. URLs are returned as written (relative
// ones are not resolved). Links without rel and malformed link values are
// skipped; the rest of the header still counts. It never panics and
// returns at most MaxLinks links.
func ParseLinks(values []string) []Link {
	var out []Link
	for _, v := range values {
		p := linkParser{s: v}
		for len(out) < MaxLinks {
			l, ok, more := p.next()
			if ok {
				out = appendRels(out, l)
			}
			if !more {
				break
			}
		}
	}
	if len(out) > MaxLinks {
		out = out[:MaxLinks]
	}
	return out
}

// rawLink is one link value before its rel is split.
type rawLink struct {
	url    string
	params map[string]string // lower-case names; valueless params map to ""
}

func appendRels(out []Link, l rawLink) []Link {
	rel, ok := l.params["rel"]
	if !ok {
		return out
	}
	base := Link{
		URL:      l.url,
		Type:     mediaType(l.params["type"]),
		Priority: LowestPriority,
	}
	if v, ok := l.params["pri"]; ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 1 && n <= LowestPriority {
			base.Priority = n
		}
	}
	if g := l.params["geo"]; len(g) == 2 && geoLetter(g[0]) && geoLetter(g[1]) {
		base.Geo = strings.ToUpper(g)
	}
	_, base.Pref = l.params["pref"]
	if v, ok := l.params["depth"]; ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n <= MaxMirrorDepth {
			base.Depth = n
		}
	}
	for _, r := range strings.Fields(rel) {
		l := base
		l.Rel = strings.ToLower(r)
		out = append(out, l)
	}
	return out
}

// mediaType is the type/subtype of a media type parameter, lower case,
// without parameters.
func mediaType(v string) string {
	v, _, _ = strings.Cut(v, ";")
	return strings.ToLower(strings.TrimSpace(v))
}

func geoLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// linkParser scans one Link header value.
type linkParser struct {
	s string
	i int
}

// next reads one link value. ok reports whether it was well formed; more
// whether anything may follow.
func (p *linkParser) next() (l rawLink, ok, more bool) {
	p.skip(" \t,")
	if p.i >= len(p.s) {
		return l, false, false
	}
	if p.s[p.i] != '<' {
		p.skipValue()
		return l, false, p.i < len(p.s)
	}
	end := strings.IndexByte(p.s[p.i+1:], '>')
	if end < 0 {
		return l, false, false
	}
	l.url = strings.TrimSpace(p.s[p.i+1 : p.i+1+end])
	p.i += end + 2
	l.params = map[string]string{}
	for {
		p.skip(" \t")
		if p.i >= len(p.s) {
			return l, true, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			return l, true, true
		case ';':
			p.i++
			p.param(l.params)
		default: // junk after the URI or a parameter: drop this link
			p.skipValue()
			return l, false, p.i < len(p.s)
		}
	}
}

// param reads `name [= value]` after a ';' into params, keeping the first
// occurrence of a name.
func (p *linkParser) param(params map[string]string) {
	p.skip(" \t")
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune("=;, \t\"", rune(p.s[p.i])) {
		p.i++
	}
	name := strings.ToLower(p.s[start:p.i])
	p.skip(" \t")
	value := ""
	if p.i < len(p.s) && p.s[p.i] == '=' {
		p.i++
		p.skip(" \t")
		if p.i < len(p.s) && p.s[p.i] == '"' {
			value = p.quoted()
		} else {
			start := p.i
			for p.i < len(p.s) && !strings.ContainsRune(";, \t", rune(p.s[p.i])) {
				p.i++
			}
			value = p.s[start:p.i]
		}
	}
	if name == "" {
		return
	}
	if _, seen := params[name]; !seen {
		params[name] = strings.TrimSpace(value)
	}
}

// quoted reads a quoted-string starting at '"', undoing backslash escapes;
// an unterminated string runs to the end of the value.
func (p *linkParser) quoted() string {
	p.i++ // opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '"':
			return b.String()
		case c == '\\' && p.i < len(p.s):
			b.WriteByte(p.s[p.i])
			p.i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// skipValue moves past the rest of a malformed link value: to the next
// comma outside quotes and angle brackets.
func (p *linkParser) skipValue() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ',':
			p.i++
			return
		case '"':
			p.quoted()
			continue
		case '<':
			if end := strings.IndexByte(p.s[p.i:], '>'); end >= 0 {
				p.i += end + 1
				continue
			}
		}
		p.i++
	}
}

func (p *linkParser) skip(set string) {
	for p.i < len(p.s) && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// digestAlgorithms maps RFC 3230 digest algorithm names (upper-cased) to
// IANA hash names and digest lengths in bytes.
var digestAlgorithms = map[string]struct {
	name string
	size int
}{
	"SHA-512": {"sha-512", 64},
	"SHA-384": {"sha-384", 48},
	"SHA-256": {"sha-256", 32},
	"SHA":     {"sha-1", 20}, // RFC 3230 "SHA" is SHA-1
	"SHA-1":   {"sha-1", 20},
	"MD5":     {"md5", 16},
}

// ParseDigests reads the values of HTTP Digest header fields (RFC 3230
// instance digests: "SHA-256=base64, MD5=base64") into hashes with IANA
// names and lower-case hex values, in header order, one per algorithm (the
// first wins). Unknown algorithms (UNIXsum, ADLER32, ...) and values that
// are not base64 of the algorithm's length are skipped. A value that is
// base64 of the hex digest — the mistake in RFC 6249's own examples — is
// accepted as that hex. It never panics.
func ParseDigests(values []string) []Hash {
	var out []Hash
	seen := map[string]bool{}
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			alg, val, ok := strings.Cut(strings.TrimSpace(item), "=")
			if !ok {
				continue
			}
			a, known := digestAlgorithms[strings.ToUpper(strings.TrimSpace(alg))]
			if !known || seen[a.name] {
				continue
			}
			h, ok := decodeDigest(strings.TrimSpace(val), a.size)
			if !ok {
				continue
			}
			seen[a.name] = true
			out = append(out, Hash{Type: a.name, Value: h})
		}
	}
	return out
}

// decodeDigest turns a base64 digest of size bytes into lower-case hex.
func decodeDigest(v string, size int) (string, bool) {
	// RFC 9530 structured fields wrap the base64 in colons; accept that too.
	if len(v) >= 2 && v[0] == ':' && v[len(v)-1] == ':' {
		v = v[1 : len(v)-1]
	}
	var b []byte
	var err error
	if strings.HasSuffix(v, "=") {
		b, err = base64.StdEncoding.DecodeString(v)
	} else {
		b, err = base64.RawStdEncoding.DecodeString(v)
	}
	if err != nil {
		return "", false
	}
	switch len(b) {
	case size:
		return hex.EncodeToString(b), true
	case 2 * size:
		if _, err := hex.DecodeString(string(b)); err == nil {
			return strings.ToLower(string(b)), true
		}
	}
	return "", false
}
