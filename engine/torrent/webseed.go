package torrent

import (
	"reflect"
	"time"
	"unsafe"

	"github.com/anacrolix/torrent"
)

// anacrolix v1.59.1 plans web seed requests for the whole client from
// one timer (Client.webseedRequestTimer) that fires every 5 s
// (webseedRequestUpdateTimerInterval, client.go:56) and early only when a
// web seed request ends (webseed-peer.go:244): adding web seeds, or a
// torrent with them, starts nothing. A torrent whose only source was its
// web seed waited up to 5 s before the first byte, and between requests:
// 5.3 s for 64 MiB from a loopback mirror against aria2c's 2.2 s. No
// exported call plans them, so nudgeWebSeeds fires that timer now, the way
// the library's own scheduleImmediateWebseedRequestUpdate does
// (webseed-requesting.go:464): Stop, and only if it was waiting, Reset(0).
// A timer that already fired is running its planning and re-arms itself.
// The field is found by name and type; a library without it leaves the
// nudge a no-op (web seeds then start on the library's timer).

// webseedTimer returns the library's web seed planning timer, or nil.
func webseedTimer(cl *torrent.Client) *time.Timer {
	v := reflect.ValueOf(cl).Elem().FieldByName("webseedRequestTimer")
	if !v.IsValid() || v.Type() != reflect.TypeFor[*time.Timer]() {
		return nil
	}
	// Set once in NewClient, before cl was returned: reading it races
	// with nothing.
	return *(**time.Timer)(unsafe.Pointer(v.UnsafeAddr()))
}

// nudgeWebSeeds makes the library plan web seed requests now, on cl's
// timer (webseedTimer).
//
// The timer's function reads Client.webseedUpdateReason before it takes
// the client's lock (webseed-requesting.go:482): it counts on whoever
// armed the timer having done so under that lock, after the library's
// last write of the field. The library's own Reset does; one from here,
// without the lock, did not, and under -race a planning the nudge
// started was reported racing the one before it. So the lock is taken
// once between Stop and Reset (Torrents takes it): while the timer is
// stopped no planning starts, and the one that ran last has let go of
// it, so the planning Reset starts comes after it.
func nudgeWebSeeds(cl *torrent.Client) {
	if tm := webseedTimer(cl); tm != nil && tm.Stop() {
		cl.Torrents()
		tm.Reset(0)
	}
}
