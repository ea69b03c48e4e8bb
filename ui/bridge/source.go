package bridge

import (
	"context"

	"braid/engine/metalink"
	sourcekind "braid/engine/source"
	"braid/queue"
	"braid/runner"

	"fyne.io/fyne/v2/lang"
)

// Open reads a source for the picker.
func (b *Backend) Open(ctx context.Context, source string) (*metalink.Document, error) {
	return b.open(ctx, source)
}

// maxOrigins bounds the origins kept of documents opened and not (yet)
// added: a picker the user closed leaves one behind.
const maxOrigins = 16

// openSource reads a source the way the window offers it, with
// runner.ResolveSource (the command line's way): a local .meta4 or
// .metalink file, the URL of one, or the plain URL of a file (read as
// Metalink/HTTP, so the server's mirrors and digests come along), keeping
// what a plain URL's server said for Add; or a torrent or magnet link
// (openTorrent), keeping the torrent for Add.
func (b *Backend) openSource(ctx context.Context, source string) (*metalink.Document, error) {
	if doc, ok, err := b.openSync(ctx, source); ok {
		return doc, err
	}
	doc, origin, err := b.resolveSource(ctx, source)
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

// resolveSource reads a torrent or magnet link with engine/torrent
// (torrent.go), any other source with runner.ResolveSource.
func (b *Backend) resolveSource(ctx context.Context, source string) (*metalink.Document, queue.Origin, error) {
	if sourcekind.Of(source).IsTorrent() {
		doc, err := b.openTorrent(ctx, source)
		return doc, queue.Origin{}, err
	}
	doc, origin, err := runner.ResolveSource(ctx, source, b.sourceClient())
	if err != nil && runner.NetworkError(err) {
		if later, ok := unreached(source); ok {
			return later, queue.Origin{}, nil
		}
	}
	return doc, origin, err
}

// unreached is the document of a plain link whose server cannot be
// reached now (runner.UnreachedDoc), with a warning for the picker.
func unreached(source string) (*metalink.Document, bool) {
	doc, ok := runner.UnreachedDoc(source)
	if ok {
		doc.Warnings = []string{lang.L("the server cannot be reached now; the download waits and tries again")}
	}
	return doc, ok
}
