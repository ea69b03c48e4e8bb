package metalink

import (
	"bytes"
	"strconv"
	"strings"
)

// v4Metalink reads the children of a Metalink 4 root (RFC 5854 §4.1.1).
// Besides the RFC's elements it takes a top-level <publisher>, which
// MirrorBrain and MirrorCache write there with <name> and <url> children,
// as the publisher of every file that names none.
func (p *docParser) v4Metalink() error {
	return p.children(func() error {
		s := p.s
		if s.space == nsXMLSig && string(s.local) == "Signature" {
			return p.xmlSignature()
		}
		if !p.mine() {
			return p.skip()
		}
		off := s.off
		switch string(s.local) {
		case "file":
			return p.v4File()
		case "generator":
			v, err := p.text()
			if p.doc.Generator == "" {
				p.doc.Generator = v
			}
			return err
		case "origin":
			dynamic, _ := p.attr("dynamic")
			v, err := p.text()
			if p.doc.Origin == "" {
				p.doc.Origin = v
				p.doc.Dynamic = dynamic == "true" || dynamic == "1"
			}
			return err
		case "published":
			v, err := p.text()
			if err == nil && p.doc.Published.IsZero() {
				p.doc.Published = p.date(v, "published", off)
			}
			return err
		case "updated":
			v, err := p.text()
			if err == nil && p.doc.Updated.IsZero() {
				p.doc.Updated = p.date(v, "updated", off)
			}
			return err
		case "publisher":
			return p.setParty(p.top, &p.top.f.Publisher, hasPublisher)
		}
		return p.skip()
	})
}

// v4File reads one <file> (RFC 5854 §4.1.2). Elements of other namespaces,
// and Metalink elements this revision does not define, are skipped, except
// what Braid's Write keeps in ExtNamespace: the file's connection limit
// (<file braid:maxconnections>) and licence (<braid:license name url>).
func (p *docParser) v4File() error {
	fb, err := p.newFile()
	if err != nil {
		return err
	}
	defer p.endFile(fb)
	if raw, ok := p.extAttr("maxconnections"); ok {
		fb.f.MaxConnections = p.connLimit(fb, raw, "braid:maxconnections", source{elem: "the file"})
	}
	return p.children(func() error {
		f := &fb.f
		if p.s.space == ExtNamespace && string(p.s.local) == "license" {
			return p.setParty(fb, &f.License, hasLicense)
		}
		if !p.mine() {
			return p.skip()
		}
		switch string(p.s.local) {
		case "url":
			return p.v4URL(fb)
		case "metaurl":
			return p.v4MetaURL(fb)
		case "hash":
			typ, _ := p.attr("type")
			v, err := p.text()
			if err == nil {
				p.addHash(fb, typ, v)
			}
			return err
		case "pieces":
			return p.v4Pieces(fb)
		case "size":
			return p.size(fb)
		case "signature":
			mediaType, _ := p.attr("mediatype")
			v, err := p.text()
			if err == nil {
				p.setSignature(fb, strings.ToLower(mediaType), v)
			}
			return err
		}
		if ok, err := p.fileField(fb); ok {
			return err
		}
		return p.skip()
	})
}

// v4URL reads a <url>, with the braid:maxconnections, braid:pref and
// braid:depth that Write keeps in ExtNamespace. MirrorBrain also writes its
// v3-style <url type="bittorrent"> into Metalink 4; that, like a magnet
// link, is a torrent and becomes a MetaURL.
func (p *docParser) v4URL(fb *fileBuilder) error {
	location := p.country()
	raw, present := p.attr("priority")
	typ, _ := p.s.attr("type")
	torrent := bytes.EqualFold(typ, []byte("bittorrent"))
	conn, limited := p.extAttr("maxconnections")
	pref, preferred := p.extAttr("pref")
	depth, deep := p.extAttr("depth")
	v, err := p.text()
	if err != nil {
		return err
	}
	u := URL{URL: v, Location: location, Priority: p.priority4(fb, raw, present)}
	of := mirrorSource(v)
	if limited {
		u.MaxConnections = p.connLimit(fb, conn, "braid:maxconnections", of)
	}
	if preferred {
		switch pref {
		case "true", "1":
			u.Pref = true
		case "false", "0":
		default:
			p.fileWarnf(fb, "the braid:pref %q of %s is not true or false; ignored", pref, of)
		}
	}
	if deep {
		n, err := strconv.Atoi(depth)
		if err != nil || n < 0 || n > MaxMirrorDepth {
			p.fileWarnf(fb, "the braid:depth %q of %s is not a whole number from 0 to %d; ignored", depth, of, MaxMirrorDepth)
		} else {
			u.Depth = n
		}
	}
	p.addURL(fb, u, torrent)
	return nil
}

// v4MetaURL reads a <metaurl>. The media types that mean a torrent
// ("torrent", "application/x-bittorrent", "bittorrent", "magnet", or a
// magnet link of any type) all become "torrent".
func (p *docParser) v4MetaURL(fb *fileBuilder) error {
	mediaType, _ := p.attr("mediatype")
	name, _ := p.attr("name")
	raw, present := p.attr("priority")
	v, err := p.text()
	if err != nil || v == "" {
		return err
	}
	mediaType = strings.ToLower(mediaType)
	switch {
	case isMagnet(v), mediaType == "application/x-bittorrent", mediaType == "bittorrent", mediaType == "magnet":
		mediaType = "torrent"
	case mediaType == "":
		p.fileWarnf(fb, "a <metaurl> without a media type: %q", v)
	}
	fb.f.MetaURLs = append(fb.f.MetaURLs, MetaURL{URL: v, MediaType: mediaType, Name: name, Priority: p.priority4(fb, raw, present)})
	return nil
}

// v4Pieces reads a <pieces>; its hashes are checked once the file's size
// is known (settlePieces).
func (p *docParser) v4Pieces(fb *fileBuilder) error {
	ps := pieceSet{off: p.s.off}
	ps.rawType, _ = p.attr("type")
	ps.length, _ = p.attr("length")
	err := p.children(func() error {
		if !p.mine() || string(p.s.local) != "hash" {
			return p.skip()
		}
		v, err := p.text()
		ps.hashes = append(ps.hashes, cleanHex(v))
		return err
	})
	fb.pieces = append(fb.pieces, ps)
	return err
}
