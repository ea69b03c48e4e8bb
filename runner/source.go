package runner

import (
	"context"

	"braid/engine/metalink"
	"braid/engine/redact"
	"braid/engine/resolve"
	"braid/queue"
)

// ResolveSource reads a source, a local .meta4 or .metalink file or a URL
// (a metalink's, or a plain file's with its Metalink/HTTP headers), into
// the document to download and, for a plain URL, what its server said
// (zero otherwise), as the queue stores it with the job. It is the one
// way the command line, the window and the RPC server read a source.
// Of o, only how the source is reached counts (its client, network and
// session).
func ResolveSource(ctx context.Context, source string, o ResolveOptions) (*metalink.Document, queue.Origin, error) {
	res, err := resolve.Resolve(ctx, source, resolve.Options{HTTPClient: o.HTTPClient, Network: o.Network, Session: o.Session})
	if err != nil {
		return nil, queue.Origin{}, err
	}
	doc := res.Document
	if doc.Origin == "" {
		doc.Origin = redact.URL(source)
	}
	var origin queue.Origin
	if res.Origin != nil {
		origin = queue.Origin{ETag: res.Origin.ETag, Referer: res.Origin.URL}
	}
	return doc, origin, nil
}
