package engine

import "context"

// A download's own limit (Request.Limiter) holds on top of the Client's:
// every byte a connection of the download reads is paid to both, the
// download's first, so the download gets no more than its own rate and all
// downloads together no more than the Client's.

// Pay takes n bytes already read from l's budget and blocks until l is
// out of the debt they ran up, or ctx ends (see the Limiter's doc). For
// readers outside the engine that hold a download to a Limiter: a
// torrent's storage pays for each chunk it writes. A nil Limiter, or one
// without a rate, returns at once.
func (l *Limiter) Pay(ctx context.Context, n int) error { return l.wait(ctx, n) }

// readChunk is the largest read a connection of d should make: the
// smaller of what the Client's limit and the download's own allow.
func (d *download) readChunk(size int) int {
	return d.req.Limiter.chunk(d.c.lim.chunk(size))
}

// pay takes n bytes a connection of d read from the download's own limit,
// then from the Client's, waiting as each asks.
func (d *download) pay(ctx context.Context, n int) error {
	if err := d.req.Limiter.wait(ctx, n); err != nil {
		return err
	}
	return d.c.lim.wait(ctx, n)
}
