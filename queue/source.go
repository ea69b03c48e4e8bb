package queue

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"braid/engine/metalink"
	"braid/engine/redact"
	"braid/engine/resolve"
)

// ResolveSource reads a source, a local .meta4 or .metalink file or a URL
// (a metalink's, or a plain file's with its Metalink/HTTP headers), into
// the document to download and, for a plain URL, what its server said
// (zero otherwise). It is the one way the command line and the window read
// a source. client nil uses the transport's default.
func ResolveSource(ctx context.Context, source string, client *http.Client) (*metalink.Document, Origin, error) {
	res, err := resolve.Resolve(ctx, source, resolve.Options{HTTPClient: client})
	if err != nil {
		return nil, Origin{}, err
	}
	doc := res.Document
	if doc.Origin == "" {
		doc.Origin = redact.URL(source)
	}
	var origin Origin
	if res.Origin != nil {
		origin = Origin{ETag: res.Origin.ETag, Referer: res.Origin.URL}
	}
	return doc, origin, nil
}

// defaultPorts are the ports a URL need not name.
var defaultPorts = map[string]string{"http": "80", "https": "443", "ftp": "21"}

// canonical is the one spelling of a source, so that a source is one job
// however it was written: a file's absolute path with symlinks resolved
// ("f.meta4", "./f.meta4" and "/home/ann/f.meta4" are one), and a URL
// without credentials or fragment, its scheme and host in lower case and
// without the scheme's default port. A magnet link stays as it is.
func canonical(source string) string {
	if strings.HasPrefix(source, "magnet:") {
		return source
	}
	if strings.Contains(source, "://") {
		u, err := url.Parse(redact.URL(source))
		if err != nil || u.Host == "" {
			return redact.Text(source)
		}
		u.Fragment, u.RawFragment = "", ""
		u.Scheme = strings.ToLower(u.Scheme)
		host, port := strings.ToLower(u.Hostname()), u.Port()
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		if port != "" && port != defaultPorts[u.Scheme] {
			host += ":" + port
		}
		u.Host = host
		if u.Path == "" && u.RawQuery == "" {
			u.Path = "/"
		}
		return u.String()
	}
	abs, err := filepath.Abs(source)
	if err != nil {
		return source
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs
}
