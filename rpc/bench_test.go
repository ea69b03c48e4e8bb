package rpc

import (
	"fmt"
	"sync/atomic"
	"testing"

	"braid/engine/metalink"
	"braid/queue"
)

// ariaNGKeys are the keys AriaNg asks for in its lists, every second.
var ariaNGKeys = []string{"gid", "totalLength", "completedLength", "uploadSpeed", "downloadSpeed", "connections",
	"numSeeders", "seeder", "status", "errorCode", "verifiedLength", "verifyIntegrityPending", "files", "bittorrent", "infoHash"}

// BenchmarkTellWaiting is one of AriaNg's list calls over a queue of 200
// paused downloads: with the files (and so each job's mirrors) and
// without. Over an idle queue the list is read once and kept
// (Server.read): what is left is the answer's shaping.
func BenchmarkTellWaiting(b *testing.B) {
	state := b.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 200 {
		name := fmt.Sprintf("f%03d.bin", i)
		doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: name, Size: 1 << 20,
			URLs: []metalink.URL{{URL: "http://127.0.0.1:9/" + name, Priority: 1}, {URL: "http://127.0.0.2:9/" + name, Priority: 2}}}}}
		id, err := q.Add(queue.NewJob{Source: "http://127.0.0.1:9/" + name, Dest: b.TempDir(), Doc: doc})
		if err != nil {
			b.Fatal(err)
		}
		if err := q.Pause(id, ""); err != nil {
			b.Fatal(err)
		}
	}
	q.Close()
	br := openBraid(b, state, b.TempDir(), Options{})
	for _, tc := range []struct {
		name string
		keys []string
	}{{"ariang-keys", ariaNGKeys}, {"no-files", []string{"gid", "status", "totalLength", "completedLength", "downloadSpeed"}}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				res, err := br.srv.call(b.Context(), "aria2.tellWaiting", rawParams(b, "token:"+br.secret, 0, 1000, tc.keys), false)
				if err != nil || len(res.([]map[string]any)) != 200 {
					b.Fatalf("%v %v", err, res)
				}
			}
		})
	}
}

// BenchmarkAriaNgRound is one second of AriaNg over a queue of 10,000
// downloads, 9,000 done and 1,000 paused, as BenchmarkWindow10000Jobs: tellActive, tellWaiting and tellStopped with its
// keys, and getGlobalStat. "kept" is a round over an idle queue that
// nothing changed since the round before (AriaNg's second, fourth...
// round: the list is kept two seconds); "changed" follows a change the
// server is told of, so the queue is read again; "working" is a round
// while a download runs, begun after the list kept from the last one
// is too old.
func BenchmarkAriaNgRound(b *testing.B) {
	state := b.TempDir()
	q, err := queue.OpenOptions(state, queue.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	dest := b.TempDir()
	for i := range 10000 {
		name := fmt.Sprintf("f%05d.bin", i)
		src := "http://127.0.0.1:9/" + name
		doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: name, Size: 1 << 20,
			URLs: []metalink.URL{{URL: src, Priority: 1}}}}}
		if i%10 == 9 {
			_, err = q.Add(queue.NewJob{Source: src, Dest: dest, Doc: doc, Paused: true})
		} else {
			var id int64
			if id, err = q.Add(queue.NewJob{Source: src, Dest: dest, Doc: doc}); err == nil {
				_, err = q.Finish(id)
			}
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	q.Close()
	// busy says a download is under way, as the runner's Activity would.
	var busy atomic.Bool
	br := openBraid(b, state, b.TempDir(), Options{Activity: func() (bool, uint64) { return busy.Load(), 0 }})
	round := func(b *testing.B) {
		for _, c := range []struct {
			method string
			args   []any
		}{
			{"aria2.tellActive", []any{ariaNGKeys}},
			{"aria2.tellWaiting", []any{0, 1000, ariaNGKeys}},
			{"aria2.tellStopped", []any{-1, 1000, ariaNGKeys}},
			{"aria2.getGlobalStat", nil},
		} {
			args := append([]any{"token:" + br.secret}, c.args...)
			if _, err := br.srv.call(b.Context(), c.method, rawParams(b, args...), false); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("kept", func(b *testing.B) {
		round(b)
		for b.Loop() {
			round(b)
		}
	})
	b.Run("changed", func(b *testing.B) {
		for b.Loop() {
			br.srv.Changed()
			round(b)
		}
	})
	b.Run("working", func(b *testing.B) {
		busy.Store(true)
		defer busy.Store(false)
		for b.Loop() {
			br.srv.Changed()
			round(b)
		}
	})
}
