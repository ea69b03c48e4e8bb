package bridge

import (
	"context"
	"errors"
	"fmt"

	"braid/engine/metalink"
	"braid/engine/torrent"
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
// runner.Resolve (every face's way): a local .meta4 or .metalink file,
// the URL of one, or the plain URL of a file (read as Metalink/HTTP, so
// the server's mirrors and digests come along), keeping what a plain
// URL's server said for Add; or a torrent or magnet link, whose metadata
// is fetched from its peers through the session's client until it
// arrives or ctx ends (the window shows "fetching metadata" meanwhile and
// can cancel), keeping the torrent for Add. A plain link whose server
// cannot be reached now is its placeholder, with a warning.
func (b *Backend) openSource(ctx context.Context, source string) (*metalink.Document, error) {
	if doc, ok, err := b.openSync(ctx, source); ok {
		return doc, err
	}
	o := b.readOptions()
	o.Unread = runner.WaitUnreached
	return b.resolve(ctx, source, o)
}

// resolve reads source with runner.Resolve and o, and keeps what Add
// needs of it: its torrent, or what a plain URL's server said.
func (b *Backend) resolve(ctx context.Context, source string, o runner.ResolveOptions) (*metalink.Document, error) {
	r, err := runner.Resolve(ctx, source, o)
	if re := (*runner.ResolveError)(nil); errors.As(err, &re) {
		return nil, fmt.Errorf(lang.L(re.Format), re.Source, re.Err)
	}
	if err != nil {
		return nil, err
	}
	if r.Unread != nil {
		r.Doc.Warnings = []string{unreachedWarning()}
	}
	if r.Spec != nil {
		b.keepSpec(r.Doc, r.Spec) // torrent.go
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.keepOriginLocked(r.Doc, r.Origin)
	return r.Doc, nil
}

// keepOriginLocked keeps what a plain URL's server said of doc, if
// anything, for its Add.
func (b *Backend) keepOriginLocked(doc *metalink.Document, origin queue.Origin) {
	if origin == (queue.Origin{}) {
		return
	}
	b.origins[doc] = origin
	b.originOrder = append(b.originOrder, doc)
	if len(b.originOrder) > maxOrigins {
		delete(b.origins, b.originOrder[0])
		b.originOrder = b.originOrder[1:]
	}
}

// unreachedWarning is the picker's word on a placeholder.
func unreachedWarning() string {
	return lang.L("the server cannot be reached now; the download waits and tries again")
}

// fetchMetadata fetches a magnet link's metadata through the session's
// BitTorrent client.
func (b *Backend) fetchMetadata(ctx context.Context, spec *torrent.Spec) (*torrent.Spec, error) {
	c, err := b.runner.TorrentClient()
	if err != nil {
		return nil, err
	}
	return c.FetchMetadata(ctx, spec)
}
