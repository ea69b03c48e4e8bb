package metalink

import (
	"net/url"
	"strconv"
	"strings"
)

// v3Metalink reads a Metalink 3.0 root: its attributes (origin, type,
// pubdate, refreshdate, generator) and children. Publisher, licence,
// identity, version, description, copyright, logo, language and os given
// at the top level, as the spec's own examples do, apply to every file
// that does not give its own.
func (p *docParser) v3Metalink() error {
	off := p.s.off
	p.doc.Origin, _ = p.attr("origin")
	p.doc.Generator, _ = p.attr("generator")
	typ, _ := p.attr("type")
	p.doc.Dynamic = strings.EqualFold(typ, "dynamic")
	pubdate, _ := p.attr("pubdate")
	refreshdate, _ := p.attr("refreshdate")
	p.doc.Published = p.date(pubdate, "pubdate", off)
	p.doc.Updated = p.date(refreshdate, "refreshdate", off)

	top := p.top
	return p.children(func() error {
		s := p.s
		if s.space == nsXMLSig && string(s.local) == "Signature" {
			return p.xmlSignature()
		}
		if !p.mine() {
			return p.skip()
		}
		switch string(s.local) {
		case "files":
			return p.children(func() error {
				if p.mine() && string(p.s.local) == "file" {
					return p.v3File()
				}
				return p.skip()
			})
		case "file": // a <file> without the <files> around it
			return p.v3File()
		case "license":
			return p.setParty(top, &top.f.License, hasLicense)
		}
		if ok, err := p.fileField(top); ok {
			return err
		}
		return p.skip()
	})
}

// v3File reads one <file>. Only children in the document's namespace
// count: MirrorManager's <mm0:alternates> holds older <size> and
// <verification> elements (in the Metalink namespace) that must not
// overwrite the file's own, and is skipped whole.
func (p *docParser) v3File() error {
	fb, err := p.newFile()
	if err != nil {
		return err
	}
	defer p.endFile(fb)
	return p.children(func() error {
		if !p.mine() {
			return p.skip()
		}
		f := &fb.f
		switch string(p.s.local) {
		case "resources":
			return p.v3Resources(fb)
		case "verification":
			return p.v3Verification(fb)
		case "size":
			return p.size(fb)
		case "license":
			return p.setParty(fb, &f.License, hasLicense)
		}
		if ok, err := p.fileField(fb); ok {
			return err
		}
		return p.skip()
	})
}

// v3Verification reads <hash type>, <pieces> and <signature>. It also
// takes a hash written as an element named after its type, like the
// spec's own <md5>...</md5>.
func (p *docParser) v3Verification(fb *fileBuilder) error {
	return p.children(func() error {
		if !p.mine() {
			return p.skip()
		}
		switch local := string(p.s.local); local {
		case "hash":
			typ, _ := p.attr("type")
			v, err := p.text()
			if err == nil {
				p.addHash(fb, typ, v)
			}
			return err
		case "pieces":
			return p.v3Pieces(fb)
		case "signature":
			typ, _ := p.attr("type")
			v, err := p.text()
			if err == nil {
				p.setSignature(fb, signatureMediaType(typ), v)
			}
			return err
		default:
			if _, known := NormalizeHash(local); known {
				v, err := p.text()
				if err == nil {
					p.addHash(fb, local, v)
				}
				return err
			}
		}
		return p.skip()
	})
}

// signatureMediaType maps Metalink 3's signature type ("pgp") to the media
// type Metalink 4 uses.
func signatureMediaType(typ string) string {
	switch t := strings.ToLower(typ); t {
	case "pgp", "gpg", "openpgp":
		return pgpSignature
	default:
		return t
	}
}

// v3Pieces reads <pieces length type> with <hash piece="N"> children.
func (p *docParser) v3Pieces(fb *fileBuilder) error {
	ps := pieceSet{off: p.s.off}
	ps.rawType, _ = p.attr("type")
	ps.length, _ = p.attr("length")
	err := p.children(func() error {
		if !p.mine() || string(p.s.local) != "hash" {
			return p.skip()
		}
		index := -1
		if raw, ok := p.attr("piece"); ok {
			index = -2
			if n, err := strconv.Atoi(raw); err == nil && n >= 0 {
				index = n
			}
		}
		v, err := p.text()
		ps.hashes = append(ps.hashes, cleanHex(v))
		ps.index = append(ps.index, index)
		return err
	})
	fb.pieces = append(fb.pieces, ps)
	return err
}

// v3Resources reads <resources maxconnections> and its <url>s. A url of
// type "bittorrent" or "magnet", a magnet link, and an untyped URL ending
// in .torrent (the spec's "for simplicity" form) are torrents: MetaURLs.
// Other schemes (ed2k, rsync, ...) are kept as URLs; the engine skips what
// it cannot fetch. <resources maxconnections> is the file's
// MaxConnections, a limit for all its mirrors together.
func (p *docParser) v3Resources(fb *fileBuilder) error {
	if raw, ok := p.attr("maxconnections"); ok {
		fb.f.MaxConnections = p.connLimit(fb, raw, "maxconnections", source{elem: "<resources>"})
	}
	return p.children(func() error {
		if !p.mine() || string(p.s.local) != "url" {
			return p.skip()
		}
		typ, typed := p.attr("type")
		location := p.country()
		raw, present := p.attr("preference")
		conn, limited := p.attr("maxconnections")
		v, err := p.text()
		if err != nil {
			return err
		}
		typ = strings.ToLower(typ)
		torrent := typ == "bittorrent" || typ == "magnet" ||
			(!typed && endsInTorrent(v) && !strings.HasSuffix(strings.ToLower(fb.f.Name), ".torrent"))
		u := URL{URL: v, Location: location, Priority: p.preference3(fb, raw, present)}
		if limited {
			u.MaxConnections = p.connLimit(fb, conn, "maxconnections", mirrorSource(v))
		}
		p.addURL(fb, u, torrent)
		return nil
	})
}

// endsInTorrent reports a URL whose path ends in ".torrent".
func endsInTorrent(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return strings.HasSuffix(strings.ToLower(u.Path), ".torrent")
}
