package resourcesync

import (
	"bytes"
	"encoding/xml"
)

// Sniff reports whether b, the start of a document, looks like a
// ResourceSync document: a sitemap <urlset> or <sitemapindex> root that
// declares the ResourceSync namespace. It reads no more than the first
// 4 KiB, so a caller that fetched a URL can tell a ResourceSync source
// from a metalink or a plain file before parsing it.
func Sniff(b []byte) bool {
	dec := xml.NewDecoder(bytes.NewReader(b[:min(len(b), 4096)]))
	dec.Strict = false
	for {
		tok, err := dec.RawToken()
		if err != nil {
			return false
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if start.Name.Local != "urlset" && start.Name.Local != "sitemapindex" {
			return false
		}
		for _, a := range start.Attr {
			if (a.Name.Space == "xmlns" || a.Name.Local == "xmlns") && a.Value == NSRS {
				return true
			}
		}
		return false
	}
}
