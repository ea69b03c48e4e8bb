package engine

import (
	"errors"
	"math"
	"math/rand/v2"
	"net/url"
	"sync/atomic"
	"time"

	"braid/engine/metalink"
	"braid/engine/redact"
	"braid/engine/transport"
)

// Limits on how much a mirror may get wrong before it is dropped for the
// file.
//
// Only evidence about the mirror drops it: bad data, a size, ETag or
// digest that disagrees, a file it does not have, credentials it refuses.
// Everything the network can cause (timeouts, refused and reset
// connections, DNS failures, 5xx, 429 and 503) is temporary: the mirror
// backs off, capped at Client.MaxBackoff, and comes back, however often.
const (
	maxStrikes = 3 // pieces that failed their hash
	// retryBase is the first back-off after a temporary error; it doubles
	// with each failure in a row, up to the Client's cap.
	retryBase = time.Second
	// defaultLatency is the guessed cost of a new request, in seconds,
	// before a mirror has answered one.
	defaultLatency = 0.05
	// rateTau is the time constant of the speed averages.
	rateTau = 1500 * time.Millisecond
)

// mirror is one source of the file and what the engine has learnt about it.
// Fields without a comment saying otherwise are guarded by download.mu.
type mirror struct {
	idx  int // index in download.mirrors and in snapshots
	url  metalink.URL
	host string
	name string           // URL without credentials, for messages
	src  transport.Source // nil when it could not be opened (then dropped)

	state   MirrorState
	reason  string
	conns   int // open connections
	limit   int // most connections at once; lowered when it answers 503
	retryAt time.Time
	fails   int // temporary errors in a row without a byte received
	strikes int
	// blamed counts its strikes on pieces no other mirror had sent bad
	// before: the ones that are its own fault, which decide its drop (a
	// piece every mirror sends bad is the source's fault, for parity).
	blamed  int
	stalls  int  // connections in a row cut for sending nothing
	probed  bool // Stat has been asked (or the source cannot Stat)
	probing bool // a connection is asking it about the file
	// probedAt is when its first answer about the file came; zero before.
	probedAt time.Time
	// cursor is the piece after the last segment it completed, -1 when
	// none: where a Continuer's running transfer would go on.
	cursor int
	// banned: its pieces are being fetched from the other mirrors to find
	// out whether its bytes are the ones that fail the whole-file hash.
	banned bool
	// noRanges: it serves the whole file only (it answered a range with
	// the whole file, or its Stat said it takes no ranges). Its segments
	// are then fetched as one stream from the start of the file that
	// skips the pieces it does not hold, so it still delivers the file.
	noRanges bool
	// streaming: a connection streams from it (noRanges), so another
	// connection it had started before that was known gives up its
	// pieces to the stream instead of reading the file from the start too.
	streaming bool

	// rate is the mirror's speed in bytes per second while it has a
	// connection open, averaged over about rateTau; 0 until measured.
	rate float64
	// sampled is bytes at the last sample, owned by the dispatcher.
	sampled int64

	// bytes counts the body bytes read from the mirror's answers to range
	// requests, each once, whether they went into the file or not: what
	// it delivered over the wire.
	bytes atomic.Int64
	// useful is the bytes of the pieces it filled that are done in the
	// current attempt: what of its delivery the file kept.
	useful int64
	// ttfb is the time from asking for a range to its first byte, in
	// nanoseconds, at the last request: what handing the mirror new work
	// costs.
	ttfb atomic.Int64
}

// latency is what starting a new request on m costs, in seconds: its
// last time to first byte, or a guess before it has answered.
func (m *mirror) latency() float64 {
	if t := m.ttfb.Load(); t > 0 {
		return max(time.Duration(t).Seconds(), 0.002)
	}
	return defaultLatency
}

// mirrorName is the URL without user information, for display and blame.
func mirrorName(raw string) (name, host string) {
	u, err := url.Parse(raw)
	if err != nil {
		return redact.URL(raw), ""
	}
	return redact.Parsed(u), u.Host
}

// markNoRanges records that m serves the file only from its start. One
// connection is then all it gets: a second stream from the start would
// re-read the bytes of the first. Called with download.mu held.
func (m *mirror) markNoRanges() {
	m.noRanges = true
	m.limit = 1
}

// usable reports whether the mirror may be given work now.
func (m *mirror) usable(now time.Time) bool {
	if m.state == MirrorDropped || m.src == nil || m.banned {
		return false
	}
	if m.retryAt.After(now) {
		return false
	}
	return m.conns < m.limit
}

// drop stops using the mirror for this file.
func (m *mirror) drop(why string) {
	m.state = MirrorDropped
	m.reason = why
}

// backoff makes the mirror wait before its next try: the time the mirror
// asked for, or a delay that doubles after each failure in a row up to
// limit, with jitter so that mirrors behind one broken link do not all
// come back in the same instant.
func (m *mirror) backoff(now time.Time, after, limit time.Duration, why string) {
	if after <= 0 {
		n := max(m.fails+m.stalls-1, 0)
		after = min(retryBase<<min(n, 10), limit)
		// Full jitter over the upper half: never less than half the delay.
		after = after/2 + rand.N(after/2+1)
	}
	m.retryAt = now.Add(after)
	m.reason = why
	if m.conns == 0 {
		m.state = MirrorRetrying
	}
}

// sample folds the bytes received since the last sample into the mirror's
// speed. A mirror is only measured while it has connections open, so idle
// time does not make a fast mirror look slow.
func (m *mirror) sample(dt time.Duration, busy bool) {
	b := m.bytes.Load()
	delta := b - m.sampled
	m.sampled = b
	if !busy || dt <= 0 {
		return
	}
	inst := float64(delta) / dt.Seconds()
	if m.rate == 0 {
		m.rate = inst
		return
	}
	a := 1 - math.Exp(-dt.Seconds()/rateTau.Seconds())
	m.rate += a * (inst - m.rate)
}

// errKind is how an error from a mirror is handled.
type errKind int

const (
	errTemporary  errKind = iota // back off and try again
	errRetryAfter                // the mirror said when to come back
	errNoRanges                  // it can only serve from the start
	errPermanent                 // drop it for this file: evidence against it
)

// classify tells what a mirror's error means for the mirror.
func classify(err error) (errKind, time.Duration) {
	var re *transport.RetryError
	switch {
	case errors.As(err, &re):
		return errRetryAfter, max(re.After, 100*time.Millisecond)
	case errors.Is(err, transport.ErrNoRanges):
		return errNoRanges, 0
	case errors.Is(err, transport.ErrMismatch), errors.Is(err, transport.ErrNotFound),
		errors.Is(err, transport.ErrDenied), errors.Is(err, errPermanentMirror):
		return errPermanent, 0
	}
	// Timeouts, refused or reset connections, DNS failures, 5xx: what
	// the network or an overloaded server causes, and what time cures.
	return errTemporary, 0
}

// errPermanentMirror marks mirror errors that trying again cannot fix,
// found by the engine itself (a size or digest that disagrees).
var errPermanentMirror = errors.New("mirror unusable")
