package engine

import (
	"fmt"
	"io"
	"math"

	"braid/engine/metalink"
	"braid/engine/redact"
	"braid/engine/transport"
)

// openMirrors makes a mirror for each of the file's URLs, in the order to
// try them (priority, then the user's locations). A URL no transport can
// open is kept, dropped, so the user sees why.
func (d *download) openMirrors() {
	urls := metalink.OrderURLs(d.file.URLs, d.req.Locations)
	// Snapshots name the mirror of a piece in an int16.
	urls = urls[:min(len(urls), math.MaxInt16)]
	d.mirrors = make([]*mirror, 0, len(urls))
	for i, u := range urls {
		name, host := mirrorName(u.URL)
		limit := d.c.perMirror()
		if u.MaxConnections > 0 {
			limit = min(limit, u.MaxConnections)
		}
		m := &mirror{idx: i, url: u, name: name, host: host, limit: limit, cursor: -1}
		src, err := transport.New(u.URL, d.sourceOptions(u))
		if err != nil {
			d.dropMirror(m, fmt.Errorf("cannot use it: %w", err))
		} else {
			m.src = src
		}
		d.mirrors = append(d.mirrors, m)
	}
}

// sourceOptions are what a transport needs to know to fetch this file from
// u and to refuse a mirror that disagrees with it.
func (d *download) sourceOptions(u metalink.URL) transport.Options {
	o := transport.Options{
		Size:       d.size,
		UserAgent:  d.c.UserAgent,
		Referer:    redact.Referer(d.req.Referer),
		HTTPClient: d.c.HTTP,
		Network:    d.c.Network,
		Session:    d.req.Net,
	}
	if u.Pref {
		o.IfMatch = d.req.OriginETag
	}
	return o
}

// closeMirrors releases the sources that hold connections of their own
// (FTP control connections).
func (d *download) closeMirrors() {
	for _, m := range d.mirrors {
		if c, ok := m.src.(io.Closer); ok {
			c.Close()
		}
	}
}
