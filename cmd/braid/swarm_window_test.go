//go:build !headless

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anacrolix/torrent/metainfo"

	"braid/engine/explain"
	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
)

// TestWindowPeersAndTrackers runs the real binary on its own Xvfb display
// with a torrent downloading slowly (the speed limit) from a real seeder
// on loopback, its trackers opentracker and a port nobody listens on. A
// click on its row, then on the Peers tab, shows the seeder by its
// address; the Trackers tab shows opentracker working and the dead one's
// failure as a sentence, with no raw error text anywhere.
func TestWindowPeersAndTrackers(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	needXwd(t)
	tracker, err := exec.LookPath("opentracker")
	if err != nil {
		t.Skip("opentracker is not installed (Debian: opentracker); the Trackers tab needs a real tracker")
	}
	r := newWindowRig(t, "downloads")

	src := t.TempDir()
	mi := torrenttest.Make(t, src, "ubuntu-like.iso", 64<<10, []torrenttest.File{{Data: mirrortest.Bytes(16<<20, 3)}})
	seeder := torrenttest.Seed(t, src, mi)
	port := testkit.FreePort(t)
	runOpentracker(t, tracker, port, mi.HashInfoBytes())
	good := fmt.Sprintf("http://127.0.0.1:%d/announce", port)
	dead := fmt.Sprintf("http://127.0.0.1:%d/announce", testkit.FreePort(t))
	mi.AnnounceList = [][]string{{good}, {dead}}
	tf := torrenttest.WriteFile(t, mi, "ubuntu-like.iso.torrent")

	spec, doc := torrentDoc(t, tf)
	spec.Peers = []string{seeder}
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Source: tf, Dest: r.dest, Doc: doc})
	if err == nil {
		err = q.SetTorrentSpec(id, spec)
	}
	if err == nil {
		// Slow enough to be downloading while the test looks; trackers
		// on (peer discovery), on any free port, no seeding after.
		err = q.UpdateSettings(func(s *queue.Settings) { s.SpeedLimit = 48 << 10; s.StartOnLaunch = true })
	}
	if err == nil {
		err = q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{Discovery: true} })
	}
	q.Close()
	if err != nil {
		t.Fatal(err)
	}

	env := r.env()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	shots := os.Getenv("BRAID_TEST_SHOTS")
	keep := func(name string) { windowShot(ctx, t, env, name) }
	waitText := func(what string, want ...string) string {
		t.Helper()
		return waitWindowText(ctx, t, env, r.dump, &out, 60*time.Second, "swarm-", what, want...)
	}
	ids := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))
	if len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", out.String())
	}
	wid := ids[0]
	waitText("the queue", "ubuntu-like.iso")

	// The one row, and the tabs: the 1100×720 window's places at the
	// default split, right of the side panel (BRAID_TEST_AT_ROW, _PEERS,
	// _TRACKERS override).
	at := func(name, def string) (string, string) {
		v := os.Getenv("BRAID_TEST_AT_" + name)
		if v == "" {
			v = def
		}
		x, y, _ := strings.Cut(v, ",")
		return x, y
	}
	click := func(name, def string) {
		x, y := at(name, def)
		xdo("windowfocus", "--sync", wid)
		xdo("mousemove", "--sync", x, y)
		xdo("click", "1")
		time.Sleep(500 * time.Millisecond)
	}
	click("ROW", "300,172")
	waitText("the row's details", "Peers", "Trackers")
	click("PEERS", "600,471")
	texts := waitText("the peers", "Address", seeder, "downloading")
	time.Sleep(2500 * time.Millisecond) // rates measured between two readings
	keep("swarm-peers")
	click("TRACKERS", "690,471")
	texts += waitText("the trackers", good, "Working", dead, "refused")
	keep("swarm-trackers")
	if shots != "" {
		// For the eye: the Files tab of the downloading torrent, its
		// file ticked (fetched).
		click("FILES", "235,471")
		time.Sleep(time.Second)
		keep("swarm-files")
	}
	for _, line := range strings.Split(texts, "\n") {
		if f := explain.RawFragment(line); f != "" {
			t.Errorf("the window shows raw error text %q: %q", f, line)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// runOpentracker runs opentracker on 127.0.0.1:port for the one info hash
// until the test ends, chrooted as nobody into a folder of its own.
func runOpentracker(t *testing.T, bin string, port int, ih metainfo.Hash) {
	t.Helper()
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "whitelist"), []byte(ih.HexString()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := strconv.Itoa(port)
	cmd := exec.Command(bin, "-i", "127.0.0.1", "-p", p, "-P", p, "-d", root, "-u", "nobody", "-w", "/whitelist")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		c, err := net.Dial("tcp", "127.0.0.1:"+p)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(end) {
			t.Fatalf("opentracker does not listen on %s", p)
		}
	}
}
