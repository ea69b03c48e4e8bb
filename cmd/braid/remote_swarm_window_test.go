//go:build !headless

package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
)

// The window on a braid queue run that downloads a magnet link from a
// real seeder named in it, held to 256 KiB/s: a click on the row and on
// its Peers tab shows the seeder by its address, with its program; the
// Trackers tab lists the magnet's tracker, its status not known.
// Screenshots: remote-swarm-peers, remote-swarm-trackers.
func TestRemoteSwarmWindow(t *testing.T) {
	r := newWindowRig(t, "dest")
	xdotool := needXdotool(t)
	d := braidDaemon(t)
	b := remoteBackend(t, d)
	s, err := b.Settings()
	if err != nil {
		t.Fatal(err)
	}
	s.SpeedLimit = 256 << 10
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "remote-swarm.bin", 64<<10, []torrenttest.File{{Data: mirrortest.Bytes(64<<20, 5)}})
	seeder := torrenttest.Seed(t, src, mi)
	dead := "http://127.0.0.1:" + fmt.Sprint(testkit.FreePort(t)) + "/announce"
	addLink(t, b, fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=remote-swarm.bin&x.pe=%s&tr=%s", mi.HashInfoBytes().HexString(), seeder, dead))

	env := r.env("BRAID_REMOTE_SECRET=" + d.secret)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out syncBuffer
	win := exec.CommandContext(ctx, r.bin, "--remote", d.endpoint)
	win.Env = env
	win.Stdout, win.Stderr = &out, &out
	if err := win.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = win.Process.Kill(); _ = win.Wait() })
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid — http://127.0.0.1"))[0]
	waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "remote-swarm-", "the row", "remote-swarm.bin", "Downloading")
	click := func(x, y string) {
		xdo("windowfocus", "--sync", wid)
		xdo("mousemove", "--sync", x, y)
		xdo("click", "1")
		time.Sleep(500 * time.Millisecond)
	}
	// The first row, then the pane's Peers and Trackers tabs, where the
	// screenshots show them.
	click("300", "172")
	waitWindowText(ctx, t, env, r.dump, &out, 30*time.Second, "remote-swarm-", "the row's details", "Peers", "Trackers")
	click("597", "452")
	// The seeder's row: its address (also in the magnet link shown in
	// Info), seed, found by the link, its flags not known.
	waitWindowText(ctx, t, env, r.dump, &out, 30*time.Second, "remote-swarm-", "the peers", "Address", seeder, "seed", "the link", "not known yet")
	time.Sleep(2500 * time.Millisecond)
	windowShot(ctx, t, env, "remote-swarm-peers")
	click("690", "452")
	// The magnet's tracker, from the daemon's announce list; how its
	// announces went, aria2's JSON-RPC does not say.
	waitWindowText(ctx, t, env, r.dump, &out, 30*time.Second, "remote-swarm-", "the trackers", dead, "Status not known")
	windowShot(ctx, t, env, "remote-swarm-trackers")
}
