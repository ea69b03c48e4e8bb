package rpc

import (
	"strconv"
	"testing"
	"time"

	"braid/engine/mirrortest"
)

// limitBurst is what a limit may let through at once beyond its rate:
// the engine's bucket holds at most 128 KiB at such rates.
const limitBurst = 128 << 10

// inFlight is what loopback sockets may hold between what the mirror
// wrote and what Braid read, which the mirror counts as served: Linux
// lets a sender's buffer grow to 4 MiB (net.ipv4.tcp_wmem) and the
// receiver's window adds to it.
const inFlight = 8 << 20

// number reads one of tellStatus's numbers, which aria2 sends as strings.
func number(t *testing.T, st map[string]any, key string) int64 {
	t.Helper()
	s, _ := st[key].(string)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%s is %v, not a number: %v", key, st[key], err)
	}
	return n
}

// A global limit changed over the RPC holds for a download added after
// it from its first byte: the mirror serves no more than the limit over
// the time since the add, plus one burst and what sockets hold. It held
// only after the runner's next look at the settings (up to a second
// later), and a daemon whose queue had run empty (braid queue run
// --rpc-listen, idle) never applied it to that run at all: the whole
// 40 MB came at full speed.
func TestGlobalLimitHoldsFromTheFirstByte(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		start func(testing.TB, Options) *braid
	}{{"runner", newBraid}, {"daemon", newDaemon}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := tc.start(t, Options{})
			m := mirrortest.New(t, mirrortest.Bytes(40<<20, 5))
			const limit = 256 << 10
			if res := b.call(t, "aria2.changeGlobalOption", map[string]any{"max-overall-download-limit": "256K"}); res != "OK" {
				t.Fatalf("changeGlobalOption: %v", res)
			}
			start := time.Now()
			gid := b.call(t, "aria2.addUri", []string{m.URL()}).(string)
			var st map[string]any
			for time.Since(start) < 2*time.Second {
				st = b.call(t, "aria2.tellStatus", gid, []string{"status", "completedLength"}).(map[string]any)
				time.Sleep(100 * time.Millisecond)
			}
			served, elapsed := m.BytesServed(), time.Since(start)
			if most := int64(limit*elapsed.Seconds()) + limitBurst + inFlight; served > most {
				t.Errorf("the mirror served %d bytes in %s under a limit of %d B/s, at most %d expected (Braid has %v)", served, elapsed, limit, most, st)
			}
			if got, most := number(t, st, "completedLength"), int64(limit*elapsed.Seconds())+limitBurst; got > most {
				t.Errorf("%d bytes done in %s under a limit of %d B/s, at most %d expected", got, elapsed, limit, most)
			}
			if served == 0 {
				t.Errorf("nothing was served in %s: the download did not run (%v)", elapsed, st)
			}
		})
	}
}

// downloadSpeed follows the real rate within about a second: after a
// download slows from megabytes a second to a limit, the speed it reports
// a second later is the limit's, as the bytes it completes say, not an
// average still fading from the faster rate (it took over four seconds
// to come near it).
func TestDownloadSpeedFollowsTheRealRate(t *testing.T) {
	t.Parallel()
	b := newDaemon(t, Options{})
	m := mirrortest.New(t, mirrortest.Bytes(64<<20, 6), mirrortest.Rate(8<<20))
	const limit = 128 << 10
	gid := b.call(t, "aria2.addUri", []string{m.URL()}).(string)
	keys := []string{"status", "completedLength", "downloadSpeed"}
	fast := b.waitFor(t, gid, "a speed of megabytes a second", func(st map[string]any) bool {
		return number(t, st, "downloadSpeed") >= 3<<20
	})
	b.call(t, "aria2.changeGlobalOption", map[string]any{"max-overall-download-limit": strconv.Itoa(limit)})
	changed := time.Now()
	type reading struct {
		at          time.Duration
		done, speed int64
	}
	var rs []reading
	for time.Since(changed) < 3*time.Second {
		st := b.call(t, "aria2.tellStatus", gid, keys).(map[string]any)
		if st["status"] != "active" {
			t.Fatalf("the download is %v before the test is over", st)
		}
		at := time.Since(changed)
		if at >= 2*time.Second {
			rs = append(rs, reading{at, number(t, st, "completedLength"), number(t, st, "downloadSpeed")})
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(rs) < 2 {
		t.Fatalf("%d readings in the third second", len(rs))
	}
	first, last := rs[0], rs[len(rs)-1]
	real := float64(last.done-first.done) / (last.at - first.at).Seconds()
	t.Logf("before: %v B/s; real rate in the third second %.0f B/s under a limit of %d", fast["downloadSpeed"], real, limit)
	for _, r := range rs {
		// The limit lets a burst through (limitBurst); the speed is
		// never far above it, and never far below what arrives.
		if most := int64(real)*2 + limitBurst; r.speed > most {
			t.Errorf("%s after the limit: downloadSpeed %d B/s while %.0f B/s arrive (at most %d expected)", r.at.Round(time.Millisecond), r.speed, real, most)
		}
		if least := int64(real) / 2; r.speed < least {
			t.Errorf("%s after the limit: downloadSpeed %d B/s while %.0f B/s arrive (at least %d expected)", r.at.Round(time.Millisecond), r.speed, real, least)
		}
	}
	if most := float64(limit + limitBurst); real > most {
		t.Errorf("%.0f B/s arrived under a limit of %d B/s", real, limit)
	}
}

// Paused means no more bytes: once aria2.pause (or forcePause) has
// answered, tellStatus says paused and completedLength stays where it is,
// and the mirror soon sends nothing more. The status said paused at once
// while the runner went on downloading until its next look at the queue
// (up to a second), and completedLength went from the queue's last
// record to what had arrived meanwhile.
func TestPausedMeansNoMoreBytes(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"aria2.pause", "aria2.forcePause"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			b := newDaemon(t, Options{})
			m := mirrortest.New(t, mirrortest.Bytes(48<<20, 7), mirrortest.Rate(4<<20))
			gid := b.call(t, "aria2.addUri", []string{m.URL()}).(string)
			before := b.waitFor(t, gid, "a megabyte", func(st map[string]any) bool {
				return number(t, st, "completedLength") >= 1<<20
			})
			asked := time.Now()
			if res := b.call(t, method, gid); res != gid {
				t.Fatalf("%s answered %v", method, res)
			}
			paused := time.Now()
			var first map[string]any
			var served int64
			for time.Since(paused) < 1500*time.Millisecond {
				st := b.call(t, "aria2.tellStatus", gid, []string{"status", "completedLength"}).(map[string]any)
				if first == nil {
					first = st
				}
				if st["status"] != "paused" || st["completedLength"] != first["completedLength"] {
					t.Errorf("%s after %s: %v; the first answer was %v", time.Since(paused).Round(time.Millisecond), method, st, first)
				}
				if served == 0 && time.Since(paused) > 500*time.Millisecond {
					served = m.BytesServed()
				}
				time.Sleep(50 * time.Millisecond)
			}
			if now := m.BytesServed(); now != served {
				t.Errorf("the mirror served %d bytes from half a second after the pause to a second later", now-served)
			}
			t.Logf("%v bytes before the pause, %v after it; it answered in %s", before["completedLength"], first, paused.Sub(asked).Round(time.Millisecond))
		})
	}
}
