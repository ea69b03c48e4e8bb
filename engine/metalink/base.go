package metalink

import (
	"net/url"
	"strings"
)

// A <url> or <metaurl> may be a relative reference ("example.ext"), as
// aria2's base_uri.xml is: RFC 5854 §4.2.16 asks for a file IRI, and a
// relative one means something only against the document's own address.
// Parse resolves it against the location the caller read the document
// from (ParseAt), else against the <origin> the document names (§4.2.9:
// where it was published); with neither, the mirror leads nowhere and is
// skipped with a warning rather than handed to the engine as a URL.

// docBase is the URL relative references of the document resolve
// against: location when it is an absolute network URL, else the
// document's origin when that is; nil when there is none. Credentials in
// it are dropped, so a login used to fetch the document is never copied
// into its mirrors (and from there into the queue or a log).
func docBase(location, origin string) *url.URL {
	for _, raw := range []string{location, origin} {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || u.Host == "" {
			continue
		}
		switch strings.ToLower(u.Scheme) {
		case "http", "https", "ftp":
			u.User = nil
			u.Fragment, u.RawFragment = "", ""
			return u
		}
	}
	return nil
}

// relativeRef reports whether raw is a relative reference: it parses as
// a URL and names no scheme ("dir/f.iso", "/pub/f.iso", "//host/f.iso").
func relativeRef(raw string) (*url.URL, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" {
		return nil, false
	}
	return u, true
}

// resolveRelative makes the file's relative mirror and metadata URLs
// absolute against base, or drops them with a warning when base is nil.
func (p *docParser) resolveRelative(fb *fileBuilder, base *url.URL) {
	f := &fb.f
	resolved := 0
	urls := f.URLs[:0]
	for _, u := range f.URLs {
		ref, rel := relativeRef(u.URL)
		switch {
		case !rel:
		case base == nil:
			p.fileWarnf(fb, "the mirror %q is a relative URL and the document's location is not known; skipped", u.URL)
			continue
		default:
			u.URL = base.ResolveReference(ref).String()
			resolved++
		}
		urls = append(urls, u)
	}
	f.URLs = urls
	metas := f.MetaURLs[:0]
	for _, m := range f.MetaURLs {
		ref, rel := relativeRef(m.URL)
		switch {
		case !rel:
		case base == nil:
			p.fileWarnf(fb, "the metadata URL %q is relative and the document's location is not known; skipped", m.URL)
			continue
		default:
			m.URL = base.ResolveReference(ref).String()
			resolved++
		}
		metas = append(metas, m)
	}
	f.MetaURLs = metas
	switch {
	case resolved == 1:
		p.fileWarnf(fb, "1 relative URL resolved against the document's location")
	case resolved > 1:
		p.fileWarnf(fb, "%d relative URLs resolved against the document's location", resolved)
	}
}
