package rpc

import (
	"fmt"
	"testing"

	"braid/engine/metalink"
	"braid/queue"
)

// ariaNGKeys are the keys AriaNg asks for in its lists, every second.
var ariaNGKeys = []string{"gid", "totalLength", "completedLength", "uploadSpeed", "downloadSpeed", "connections",
	"numSeeders", "seeder", "status", "errorCode", "verifiedLength", "verifyIntegrityPending", "files", "bittorrent", "infoHash"}

// BenchmarkTellWaiting is one of AriaNg's list calls over a queue of 200
// paused downloads: with the files (and so each job's mirrors, one read
// of the queue per job) and without.
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
