package main

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

// Back-off of `braid get` while a source cannot be read for reasons time
// cures, as the engine's mirrors back off: doubling from resolveFirstWait
// up to resolveMaxWait, with jitter.
var (
	resolveFirstWait = time.Second
	resolveMaxWait   = time.Minute
)

// resolveWaiting reads a source like queue.ResolveSource, but waits for the
// network, within --retry-for, when the source's server cannot be reached
// (no network yet, a refused or reset connection, a timeout, a 429 or
// 503): a download started while the Wi-Fi is down begins when it is back
// instead of failing. Evidence about the source (404, refused credentials,
// a document that does not parse) fails at once.
func (o *getOptions) resolveWaiting(ctx context.Context, src string) (*metalink.Document, queue.Origin, error) {
	start := time.Now()
	wait := resolveFirstWait
	for {
		doc, origin, err := queue.ResolveSource(ctx, src, o.client.HTTP)
		if err == nil || !strings.Contains(src, "://") || !networkError(err) || ctx.Err() != nil {
			return doc, origin, err
		}
		if o.retryFor > 0 {
			left := o.retryFor - time.Since(start)
			if left <= 0 {
				return nil, origin, fmt.Errorf("%w (gave up after waiting %s for the network, --retry-for)", err, durationText(o.retryFor))
			}
			wait = min(wait, left)
		}
		if o.json {
			writeJSON(o.stdout, map[string]any{"type": "waiting", "source": src, "next_try_seconds": wait.Seconds(), "reason": err.Error()})
		} else {
			fmt.Fprintf(o.stderr, "%s: waiting for the network, next try in %s (%v)\n", src, waitText(wait), err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, origin, err
		case <-t.C:
		}
		// Doubling with up to a quarter of jitter, so that many waiting
		// clients do not all come back in the same second.
		wait = min(2*wait, resolveMaxWait)
		wait += time.Duration(rand.Int64N(int64(wait/4) + 1))
		wait = min(wait, resolveMaxWait)
	}
}

// networkError reports whether reading a source failed for a reason the
// network or a busy server caused, which trying again later can cure.
func networkError(err error) bool {
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
