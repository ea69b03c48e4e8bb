package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"syscall"
	"time"

	"braid/engine/metalink"
	"braid/engine/transport"
	"braid/queue"
)

// Back-off of Get while a source cannot be read for reasons time cures,
// as the engine's mirrors back off: doubling from ResolveFirstWait up to
// ResolveMaxWait, with jitter. Tests shorten them.
var (
	ResolveFirstWait = time.Second
	ResolveMaxWait   = time.Minute
)

// resolveWaiting reads a source like ResolveSource, but waits for the
// network, within --retry-for, when the source's server cannot be reached
// (no network yet, a refused or reset connection, a timeout, a 429 or
// 503): a download started while the Wi-Fi is down begins when it is back
// instead of failing. Evidence about the source (404, refused credentials,
// a document that does not parse) fails at once.
//
// A plain link waited for is a job in the queue at once (getwait.go).
func (g *Get) resolveWaiting(ctx context.Context, src string) (doc *metalink.Document, origin queue.Origin, err error) {
	var w waitingJob
	defer func() {
		if ctx.Err() == nil {
			g.reached(src, w, doc, err)
		}
	}()
	start := time.Now()
	wait := ResolveFirstWait
	for {
		doc, origin, err = ResolveSource(ctx, src, g.httpClient())
		if err == nil || !strings.Contains(src, "://") || !NetworkError(err) || ctx.Err() != nil {
			return doc, origin, err
		}
		if g.RetryFor > 0 {
			left := g.RetryFor - time.Since(start)
			if left <= 0 {
				return nil, origin, fmt.Errorf("%w (gave up after waiting %s for the network, --retry-for)", err, g.RetryFor)
			}
			wait = min(wait, left)
		}
		w = g.noteUnreached(ctx, src, w, time.Now().Add(wait))
		g.Observer.Note(Note{Kind: NoteWaiting, Source: src, Err: err, Wait: wait})
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, origin, err
		case <-t.C:
		}
		// Doubling with up to a quarter of jitter, so that many waiting
		// clients do not all come back in the same second.
		wait = min(2*wait, ResolveMaxWait)
		wait += time.Duration(rand.Int64N(int64(wait/4) + 1))
		wait = min(wait, ResolveMaxWait)
	}
}

// NetworkError reports whether reading a source failed for a reason the
// network or a busy server caused, which trying again later can cure.
func NetworkError(err error) bool {
	var re *transport.RetryError
	var op *net.OpError
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, transport.ErrNotFound), errors.Is(err, transport.ErrDenied),
		errors.Is(err, transport.ErrMismatch), errors.Is(err, transport.ErrUnsupportedScheme):
		return false
	case errors.As(err, &re), errors.As(err, &op), errors.As(err, &dns):
		return true
	case errors.As(err, &ne) && ne.Timeout():
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH)
}
