package bridge

import (
	"context"
	"fmt"
	"fyne.io/fyne/v2/lang"
	"net/url"
	"path"
	"strings"

	"braid/engine/metalink"
	"braid/queue"
)

// Open reads a source for the picker.
func (b *Backend) Open(ctx context.Context, source string) (*metalink.Document, error) {
	return b.open(ctx, source)
}

// maxOrigins bounds the origins kept of documents opened and not (yet)
// added: a picker the user closed leaves one behind.
const maxOrigins = 16

// openSource reads a source the way the window offers it, with
// queue.ResolveSource (the command line's way): a local .meta4 or
// .metalink file, the URL of one, or the plain URL of a file (read as
// Metalink/HTTP, so the server's mirrors and digests come along), keeping
// what a plain URL's server said for Add. Torrents are not supported yet.
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

// resolveSource refuses torrents, which the window cannot download yet,
// before reading a source with queue.ResolveSource.
func resolveSource(ctx context.Context, source string) (*metalink.Document, queue.Origin, error) {
	ext := strings.ToLower(path.Ext(source))
	if u, err := url.Parse(source); err == nil && u.Host != "" {
		ext = strings.ToLower(path.Ext(u.Path))
	}
	if strings.HasPrefix(source, "magnet:") || ext == ".torrent" {
		return nil, queue.Origin{}, fmt.Errorf(lang.L("%s: BitTorrent is not supported yet"), queue.Redact(source))
	}
	return queue.ResolveSource(ctx, source, nil)
}
