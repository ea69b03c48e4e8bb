package bridge

import (
	"context"
	"net/url"
	"path"
	"strings"

	"braid/engine/metalink"
	"braid/engine/resolve"
	"braid/engine/torrent"
	"braid/queue"
)

// Open reads a source for the picker.
func (b *Backend) Open(ctx context.Context, source string) (*metalink.Document, error) {
	return b.open(ctx, source)
}

// OpenSource reads a source the way the window offers it, with
// engine/resolve: a local .meta4 or .metalink file, the URL of one, or the
// plain URL of a file (read as Metalink/HTTP, so the server's mirrors and
// digests come along), or a .torrent file or URL or a magnet link.
func OpenSource(ctx context.Context, source string) (*metalink.Document, error) {
	doc, _, err := resolveSource(ctx, source)
	return doc, err
}

// maxOrigins bounds the origins kept of documents opened and not (yet)
// added: a picker the user closed leaves one behind.
const maxOrigins = 16

// openSource is OpenSource keeping what a plain URL's server said, for Add.
func (b *Backend) openSource(ctx context.Context, source string) (*metalink.Document, error) {
	if doc, ok, err := b.openSync(ctx, source); ok {
		return doc, err
	}
	doc, origin, err := resolveSource(ctx, source)
	if err != nil || origin == (queue.Origin{}) {
		return doc, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.origins[doc] = origin
	b.originOrder = append(b.originOrder, doc)
	if len(b.originOrder) > maxOrigins {
		delete(b.origins, b.originOrder[0])
		b.originOrder = b.originOrder[1:]
	}
	return doc, nil
}

// resolveSource reads a source and, for a plain URL, what its server said.
func resolveSource(ctx context.Context, source string) (*metalink.Document, queue.Origin, error) {
	ext := strings.ToLower(path.Ext(source))
	if u, err := url.Parse(source); err == nil && u.Host != "" {
		ext = strings.ToLower(path.Ext(u.Path))
	}
	if torrent.IsSource(source) || ext == ".torrent" {
		doc, err := openTorrent(ctx, source)
		return doc, queue.Origin{}, err
	}
	res, err := resolve.Resolve(ctx, source, resolve.Options{})
	if err != nil {
		return nil, queue.Origin{}, err
	}
	doc := res.Document
	if doc.Origin == "" {
		doc.Origin = source
	}
	var origin queue.Origin
	if res.Origin != nil {
		origin = queue.Origin{ETag: res.Origin.ETag, Referer: res.Origin.URL}
	}
	return doc, origin, nil
}
