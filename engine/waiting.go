package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrGaveUp: the download waited for the network longer than
// Request.RetryFor allows, every mirror failing with temporary errors.
var ErrGaveUp = errors.New("gave up waiting for the network")

// startWaiting enters StateWaiting: no connection is open and every mirror
// left is backing off after temporary errors. Called with d.mu held.
func (d *download) startWaiting(now time.Time) {
	if d.state == StateWaiting {
		return
	}
	d.state = StateWaiting
	d.waitSince = now
}

// checkWaiting leaves StateWaiting once a byte has arrived since it began,
// and returns ErrGaveUp when it has lasted longer than the request
// allows. A try that connects but receives nothing does not end the wait,
// so the state does not flicker with every try. Called with d.mu held.
func (d *download) checkWaiting(now time.Time) error {
	if d.state != StateWaiting {
		return nil
	}
	if d.lastByte.Load() > d.waitSince.UnixNano() {
		d.state = StateDownloading
		return nil
	}
	if lim := d.req.RetryFor; lim > 0 && now.Sub(d.waitSince) >= lim {
		return fmt.Errorf("%w after %s (%s)", ErrGaveUp, lim, d.waitReasons())
	}
	return nil
}

// waitReasons says why each mirror is dropped or backing off, for the
// error of a download that gave up.
func (d *download) waitReasons() string {
	var b strings.Builder
	for _, m := range d.mirrors {
		if m.reason == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(ofMirror(m.name, m.reason))
	}
	return b.String()
}

// nextTry is when the first mirror's back-off ends, or zero when none is
// backing off. Called with d.mu held.
func (d *download) nextTry(now time.Time) time.Time {
	var next time.Time
	for _, m := range d.mirrors {
		if m.state == MirrorDropped || m.src == nil || !m.retryAt.After(now) {
			continue
		}
		if next.IsZero() || m.retryAt.Before(next) {
			next = m.retryAt
		}
	}
	return next
}

// maxBackoff is the longest a mirror waits between tries.
func (c *Client) maxBackoff() time.Duration {
	if c.MaxBackoff > 0 {
		return c.MaxBackoff
	}
	return DefaultMaxBackoff
}
