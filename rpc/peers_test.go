package rpc

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/torrent"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
	"braid/runner"
)

// aria2.getPeers through the real server, over a real queue and runner
// downloading (held to 64 KiB/s) from a real seeder: the seeder is
// listed in aria2's shape, by its address, as a seeder with every piece.
func TestGetPeersLists(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := mirrortest.Bytes(4<<20, 7)
	mi := torrenttest.Make(t, src, "peers.bin", 32<<10, []torrenttest.File{{Data: data}})
	seeder := torrenttest.Seed(t, src, mi)

	q, err := queue.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	c := torrent.NewClient(torrent.Config{ListenHost: "127.0.0.1", Logger: slog.New(slog.DiscardHandler), DownloadLimit: 64 << 10})
	t.Cleanup(func() { c.Close() })
	r := &runner.Runner{Queue: q, Torrent: c}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	wake := make(chan struct{}, 1)
	go func() {
		defer close(done)
		for {
			_ = r.Run(ctx)
			select {
			case <-ctx.Done():
				return
			case <-wake:
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	b := &braid{q: q, dir: t.TempDir(), secret: "s3cret-for-tests"}
	b.dl = &QueueDownloads{Queue: q, Live: r, Wake: func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}}
	b.dl.SetDir(b.dir)
	if b.srv, err = New(b.dl, Options{Secret: b.secret, Activity: r.Activity}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.srv.Close() })
	b.http = httptest.NewServer(b.srv)
	t.Cleanup(b.http.Close)

	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=peers.bin&x.pe=%s", mi.HashInfoBytes().HexString(), seeder)
	gid := b.call(t, "aria2.addUri", []string{magnet}).(string)
	var peer map[string]any
	deadline := time.Now().Add(time.Minute)
	for peer == nil || peer["downloadSpeed"] == "0" {
		if time.Now().After(deadline) {
			t.Fatalf("no peer sending in a minute: %v", peer)
		}
		time.Sleep(100 * time.Millisecond)
		if ps := b.call(t, "aria2.getPeers", gid).([]any); len(ps) == 1 {
			peer = ps[0].(map[string]any)
		}
	}
	t.Logf("getPeers: %v", peer)
	host, port, _ := strings.Cut(seeder, ":")
	if peer["ip"] != host || peer["port"] != port {
		t.Errorf("peer %v:%v, the seeder is %s", peer["ip"], peer["port"], seeder)
	}
	if peer["seeder"] != "true" || peer["bitfield"] != strings.Repeat("f", len(data)/(32<<10)/4) {
		t.Errorf("the seeder: seeder %v, bitfield %v", peer["seeder"], peer["bitfield"])
	}
	if peer["peerChoking"] != "false" || peer["braidFlagsKnown"] != "true" {
		t.Errorf("a seeder sending to us: peerChoking %v (flags known %v)", peer["peerChoking"], peer["braidFlagsKnown"])
	}
	// anacrolix/torrent's peer IDs start "-GT0003-": unreserved bytes stay.
	if id, _ := peer["peerId"].(string); !strings.HasPrefix(id, "-GT0003-") {
		t.Errorf("peerId %q", id)
	}
	for _, k := range []string{"peerId", "ip", "port", "bitfield", "amChoking", "peerChoking", "downloadSpeed", "uploadSpeed", "seeder"} {
		if _, ok := peer[k].(string); !ok {
			t.Errorf("%s is %T, aria2 sends a string", k, peer[k])
		}
	}
	if msg := b.callErr(t, "aria2.getPeers", "0123456789abcdef"); !strings.Contains(msg, "GID") && !strings.Contains(msg, "0123456789abcdef") {
		t.Errorf("getPeers of an unknown GID: %q", msg)
	}
}

func TestPercentEncode(t *testing.T) {
	t.Parallel()
	if got := percentEncode([]byte("-A2-1.37~_z\x00\xff %")); got != "-A2-1.37~_z%00%FF%20%25" {
		t.Errorf("percentEncode: %q", got)
	}
}
