package main

import (
	"fmt"
	"time"

	"braid/engine"
)

// defaultRetryFor is how long `braid get` waits for the network when every
// mirror fails with temporary errors: long enough for a Wi-Fi drop, a VPN
// reconnect or a server restart, short enough that a script learns of an
// outage that is not going away.
const defaultRetryFor = 10 * time.Minute

// nextTryIn is the time until the next try of a waiting download, 0 when
// it is not waiting.
func nextTryIn(s *engine.Snapshot) time.Duration {
	if s.State != engine.StateWaiting || s.NextTry.IsZero() {
		return 0
	}
	return max(time.Until(s.NextTry), 0)
}

// specialProgress is the progress line of a download that is waiting for
// the network or of unknown size, which a percentage cannot describe.
func specialProgress(s *engine.Snapshot, name string, active, usable int) (string, bool) {
	switch {
	case s.State == engine.StateWaiting:
		return fmt.Sprintf("%s  waiting for the network, next try in %s  %s so far  mirrors %d/%d",
			name, waitText(nextTryIn(s)), byteText(s.Bytes), active, usable), true
	case s.Size < 0:
		return fmt.Sprintf("%s  %s %s (size unknown)  %s/s  mirrors %d/%d",
			name, s.State, byteText(s.Bytes), byteText(s.Speed), active, usable), true
	}
	return "", false
}

// waitText says a short wait in whole seconds, rounded up ("20 s"): a
// try due in 0.3 s is "1 s" away, not "0 s".
func waitText(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%d s", int((d+time.Second-1)/time.Second))
	}
	return durationText(d)
}

// noteWaiting says once, in a plain log, that a download began to wait
// for the network, and reports whether it is waiting now.
func (o *getOptions) noteWaiting(s *engine.Snapshot, was bool) bool {
	now := s.State == engine.StateWaiting
	if now && !was {
		fmt.Fprintf(o.stdout, "%s: waiting for the network, next try in %s\n", s.Name, waitText(nextTryIn(s)))
	}
	return now
}

// getNetworkHelp is the part of `braid get -h` about a misbehaving network.
const getNetworkHelp = `When every mirror fails with temporary errors (no network, timeouts, 5xx, 429,
503), get waits, showing "waiting for the network, next try in 20 s", and tries
again with a back-off of up to a minute; it gives up after --retry-for. A file
whose server does not tell its size is streamed on one connection and shown as
bytes and speed without a percentage; it is checked against whatever hash is
known (metalink, Digest header).
`
