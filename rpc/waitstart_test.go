package rpc

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"braid/engine/mirrortest"
)

// notesOf reads the WebSocket's notifications for gid, in order, into the
// channel it returns, until the connection ends. (A read that times out
// leaves a gorilla WebSocket unusable, so one goroutine reads them all.)
func notesOf(ws *websocket.Conn, gid string) <-chan string {
	notes := make(chan string, 64)
	go func() {
		defer close(notes)
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var n struct {
				Method string           `json:"method"`
				Params []map[string]any `json:"params"`
			}
			if json.Unmarshal(msg, &n) == nil && n.Method != "" && len(n.Params) > 0 && n.Params[0]["gid"] == gid {
				notes <- n.Method
			}
		}
	}()
	return notes
}

// A download added over the RPC whose server cannot be reached waits (it
// is listed as waiting); when the server is back and it starts, the
// clients get aria2.onDownloadStart then, and aria2.onDownloadComplete
// when it is done, as aria2's do for a download that starts. While it
// waits nothing more is said: no start each time it tries again, no
// error. Both wirings: the window's runner, and braid queue run's service.
func TestStartNotifiedAfterNetworkWait(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		start func(testing.TB, Options) *braid
	}{{"runner", newBraid}, {"daemon", newDaemon}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := tc.start(t, Options{})
			ws := dial(t, b)
			data := mirrortest.Bytes(2<<20, 13)
			m := mirrortest.New(t, data, mirrortest.Path("/pub/later.bin"))
			m.Pause() // off the network: connections are refused
			gid := b.call(t, "aria2.addUri", []string{m.URL()}).(string)
			notes := notesOf(ws, gid)
			b.waitFor(t, gid, "waiting for the network", func(st map[string]any) bool { return st["status"] == "waiting" })
			// What is said until it waits, and while it tries again for
			// a few seconds.
			var before []string
			quiet := time.After(4 * time.Second)
		drain:
			for {
				select {
				case n := <-notes:
					before = append(before, n)
				case <-quiet:
					break drain
				}
			}
			if len(before) > 1 || len(before) == 1 && before[0] != "aria2.onDownloadStart" {
				t.Errorf("until and while it waited: %v; want at most the one aria2.onDownloadStart of its first try", before)
			}

			m.Resume()
			var after []string
			deadline := time.After(60 * time.Second)
		collect:
			for {
				select {
				case n, ok := <-notes:
					if !ok {
						t.Fatal("the WebSocket closed")
					}
					after = append(after, n)
					if n == "aria2.onDownloadComplete" || n == "aria2.onDownloadError" {
						break collect
					}
				case <-deadline:
					break collect
				}
			}
			t.Logf("until it waited: %v; once the server was back: %v", before, after)
			if len(after) != 2 || after[0] != "aria2.onDownloadStart" || after[1] != "aria2.onDownloadComplete" {
				st := b.call(t, "aria2.tellStatus", gid, []string{"status", "errorMessage", "completedLength"})
				t.Errorf("notifications once the server was back: %v; want aria2.onDownloadStart, then aria2.onDownloadComplete (now %v)", after, st)
			}
		})
	}
}
