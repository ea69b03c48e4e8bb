package rpc

import (
	"context"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/queue"
	"braid/runner"
)

// heldRunner is serveRunner with braid queue run's flags over the
// settings: --jobs, --limit and --max-conn-per-host.
func heldRunner(o RunOptions) runs {
	return func(ctx context.Context, r *runner.Runner) (func(), <-chan struct{}) {
		r.Jobs = o.MaxConcurrent
		svc := runner.NewService(r)
		svc.Limit, svc.MaxConnsPerHost = o.MaxOverallDownload, o.MaxConnsPerHost
		done := make(chan struct{})
		go func() {
			defer close(done)
			svc.Serve(ctx, true)
		}()
		return svc.Wake, done
	}
}

// getGlobalOption answers the values braid queue run's flags hold for the
// run (--jobs 1, --limit 256K, --max-conn-per-host 2), not the saved
// settings under them; it answered the saved ones (3 at once, no limit,
// 4 connections per server) while the run went at 256K. Other changes
// leave the flags out of the saved settings; a change of the limit ends
// its hold and holds from then on, even to the value the settings had
// (no limit: the rest of the download comes at once); a change of
// max-concurrent-downloads, which --jobs holds, is refused in words.
func TestGlobalOptionsShowRunFlags(t *testing.T) {
	t.Parallel()
	flags := RunOptions{MaxConcurrent: 1, MaxOverallDownload: 256 << 10, MaxConnsPerHost: 2}
	state := t.TempDir()
	q0, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := q0.UpdateSettings(func(s *queue.Settings) { s.MaxConnsPerMirror = 4 }); err != nil {
		t.Fatal(err)
	}
	q0.Close()
	b := startBraid(t, state, t.TempDir(), Options{}, heldRunner(flags))
	b.dl.HoldRunOptions(flags)
	global := func() map[string]any { return b.call(t, "aria2.getGlobalOption").(map[string]any) }
	want := func(g map[string]any, key, value string) {
		t.Helper()
		if g[key] != value {
			t.Errorf("getGlobalOption %s = %v, want %q", key, g[key], value)
		}
	}
	g := global()
	want(g, "max-concurrent-downloads", "1")
	want(g, "max-overall-download-limit", "262144")
	want(g, "max-connection-per-server", "2")

	// Another option's change writes the flags into nothing.
	if res := b.call(t, "aria2.changeGlobalOption", map[string]any{"seed-ratio": "2.0", "max-concurrent-downloads": "1"}); res != "OK" {
		t.Fatalf("changeGlobalOption seed-ratio: %v", res)
	}
	if s, err := b.q.Settings(); err != nil || s.Jobs != queue.DefaultJobs || s.SpeedLimit != 0 || s.MaxConnsPerHost != 0 {
		t.Errorf("the saved settings after changing seed-ratio: jobs %d, limit %d, per host %d (%v); the flags are not to be saved",
			s.Jobs, s.SpeedLimit, s.MaxConnsPerHost, err)
	}
	if msg := b.callErr(t, "aria2.changeGlobalOption", map[string]any{"max-concurrent-downloads": "2"}); !strings.Contains(msg, "--jobs") || !strings.HasSuffix(msg, "Nothing was changed.") {
		t.Errorf("max-concurrent-downloads held by --jobs: %q", msg)
	}

	// The flag's limit is in force...
	data := mirrortest.Bytes(24<<20, 3)
	m := mirrortest.New(t, data)
	gid := b.call(t, "aria2.addUri", []string{m.URL()}).(string)
	b.waitFor(t, gid, "the download to start", func(st map[string]any) bool { return st["status"] == "active" })
	time.Sleep(1500 * time.Millisecond)
	st := b.call(t, "aria2.tellStatus", gid, []string{"completedLength"}).(map[string]any)
	if got := number(t, st, "completedLength"); got > 1<<20 {
		t.Fatalf("under --limit 256K the download had %d bytes after 1.5 s", got)
	}
	// ...until a change, to the saved value, ends its hold.
	if res := b.call(t, "aria2.changeGlobalOption", map[string]any{"max-overall-download-limit": "0"}); res != "OK" {
		t.Fatalf("changeGlobalOption max-overall-download-limit: %v", res)
	}
	want(global(), "max-overall-download-limit", "0")
	changed := time.Now()
	b.waitFor(t, gid, "the download", func(st map[string]any) bool { return st["status"] == "complete" })
	if took := time.Since(changed); took > 15*time.Second {
		t.Errorf("with no limit the rest of 24 MiB took %s: the flag's 256K held on", took.Round(time.Millisecond))
	}

	// More connections per server than --max-conn-per-host lets: the
	// connections to one host are raised to as many, and the hold ends.
	if res := b.call(t, "aria2.changeGlobalOption", map[string]any{"max-connection-per-server": "4"}); res != "OK" {
		t.Fatalf("changeGlobalOption max-connection-per-server: %v", res)
	}
	g = global()
	want(g, "max-connection-per-server", "4")
	want(g, "max-concurrent-downloads", "1")
	if s, err := b.q.Settings(); err != nil || s.MaxConnsPerHost != 4 || s.MaxConnsPerMirror != 4 || s.SpeedLimit != 0 || s.Jobs != queue.DefaultJobs {
		t.Errorf("saved settings: %+v, %v; want 4 per host and per mirror, no limit, jobs as they were", s, err)
	}
}
