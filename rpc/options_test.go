package rpc

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/queue"
)

// getGlobalOption answers every option Braid honours with its real
// value in aria2's form: max-connection-per-server within aria2's 1–16
// (Braid's default of one connection per server per download, not "0").
func TestGlobalOptionsAreReal(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	g := b.call(t, "aria2.getGlobalOption").(map[string]any)
	want := map[string]string{
		"dir": b.dir, "max-concurrent-downloads": "3", "max-overall-download-limit": "0",
		"max-overall-upload-limit": "0", "max-connection-per-server": "1", "seed-ratio": "1.0",
		"enable-dht": "true", "enable-peer-exchange": "true", "continue": "true", "max-download-result": "1000",
	}
	for k, v := range want {
		if g[k] != v {
			t.Errorf("getGlobalOption %s = %v, want %q", k, g[k], v)
		}
	}
	for k := range g {
		if _, ok := want[k]; !ok {
			t.Errorf("getGlobalOption has %s = %v, which the test does not know to be honoured", k, g[k])
		}
	}
	// Settings made in the window show as they are.
	if err := b.q.UpdateSettings(func(s *queue.Settings) { s.MaxConnsPerMirror, s.Jobs = 4, 7 }); err != nil {
		t.Fatal(err)
	}
	g = b.call(t, "aria2.getGlobalOption").(map[string]any)
	if g["max-connection-per-server"] != "4" || g["max-concurrent-downloads"] != "7" {
		t.Errorf("after the window's change: %v", g)
	}
}

// changeGlobalOption changes what Braid honours, in the settings the
// runner follows, and refuses, with a sentence naming it and changing
// nothing, an option Braid does not honour (split), one it cannot change
// while it runs (enable-dht) or a value out of aria2's range.
func TestChangeGlobalOptionRefusesNoOps(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	before, err := b.q.Settings()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts map[string]any
		want []string
	}{
		{map[string]any{"split": "8"}, []string{"does not honour the option split", "Nothing was changed."}},
		{map[string]any{"max-concurrent-downloads": "5", "split": "8", "min-split-size": "1M"},
			[]string{"options min-split-size, split", "Nothing was changed."}},
		{map[string]any{"enable-dht": "false"}, []string{"cannot change the option enable-dht"}},
		{map[string]any{"max-connection-per-server": "0"}, []string{"max-connection-per-server takes a number from 1 to 16"}},
		{map[string]any{"max-connection-per-server": "17"}, []string{"from 1 to 16"}},
		{map[string]any{"max-concurrent-downloads": "5", "max-overall-download-limit": "fast"},
			[]string{"max-overall-download-limit", "is not a size", "Nothing was changed."}},
		{map[string]any{"seed-ratio": "-1"}, []string{"seed-ratio takes a ratio"}},
	} {
		msg := b.callErr(t, "aria2.changeGlobalOption", tc.opts)
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("changeGlobalOption %v: %q, want %q in it", tc.opts, msg, w)
			}
		}
		if !strings.HasSuffix(msg, ".") {
			t.Errorf("changeGlobalOption %v: %q is not a sentence", tc.opts, msg)
		}
	}
	if after, err := b.q.Settings(); err != nil || after.Jobs != before.Jobs || after.SpeedLimit != before.SpeedLimit || after.MaxConnsPerMirror != before.MaxConnsPerMirror {
		t.Errorf("refused changes changed the settings: %+v, was %+v (%v)", after, before, err)
	}

	// A value it already has is no change: OK (a front end saving its form).
	b.call(t, "aria2.changeGlobalOption", map[string]any{"enable-dht": "true", "continue": "true"})
	b.call(t, "aria2.changeGlobalOption", map[string]any{"max-connection-per-server": "8", "seed-ratio": "2.5",
		"seed-time": "30", "max-overall-upload-limit": "64K"})
	s, err := b.q.Settings()
	if err != nil || s.MaxConnsPerMirror != 8 || s.MaxConnsPerHost < 8 {
		t.Errorf("max-connection-per-server 8: per mirror %d, per host %d (%v)", s.MaxConnsPerMirror, s.MaxConnsPerHost, err)
	}
	if ts := s.Torrent; err != nil || ts.SeedRatio != 2.5 || ts.SeedTime != 30*time.Minute || ts.UploadLimit != 64<<10 {
		t.Errorf("torrent settings %+v (%v)", ts, err)
	}
	g := b.call(t, "aria2.getGlobalOption").(map[string]any)
	if g["max-connection-per-server"] != "8" || g["seed-ratio"] != "2.5" || g["seed-time"] != "30" || g["max-overall-upload-limit"] != "65536" {
		t.Errorf("getGlobalOption after the change: %v", g)
	}
}

// getOption answers a download's options with their real values, and
// changeOption changes its speed limit and refuses any other change.
func TestChangeOptionRefusesNoOps(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	gid := b.call(t, "aria2.addUri", []string{"http://127.0.0.1:1/opt.bin"}, map[string]any{"pause": "true", "referer": "https://page.test/"}).(string)
	o := b.call(t, "aria2.getOption", gid).(map[string]any)
	for k, v := range map[string]string{"dir": b.dir, "out": "opt.bin", "max-download-limit": "0",
		"max-connection-per-server": "1", "referer": "https://page.test/", "continue": "true"} {
		if o[k] != v {
			t.Errorf("getOption %s = %v, want %q", k, o[k], v)
		}
	}
	if msg := b.callErr(t, "aria2.changeOption", gid, map[string]any{"split": "8"}); !strings.Contains(msg, "does not honour the option split") {
		t.Errorf("changeOption split: %q", msg)
	}
	if msg := b.callErr(t, "aria2.changeOption", gid, map[string]any{"max-download-limit": "1K", "out": "other.bin"}); !strings.Contains(msg, "cannot change the option out") {
		t.Errorf("changeOption out: %q", msg)
	}
	if got := b.call(t, "aria2.getOption", gid).(map[string]any)["max-download-limit"]; got != "0" {
		t.Errorf("a refused changeOption changed the limit to %v", got)
	}
	b.call(t, "aria2.changeOption", gid, map[string]any{"max-download-limit": "1K", "out": "opt.bin", "dir": b.dir})
	if got := b.call(t, "aria2.getOption", gid).(map[string]any)["max-download-limit"]; got != "1024" {
		t.Errorf("max-download-limit after the change: %v", got)
	}
}

// max-connection-per-server is honoured: a download from one server
// opens that many connections to it (one by default, as in aria2).
func TestMaxConnectionPerServerHonoured(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 4} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			b := newBraid(t, Options{})
			data := mirrortest.Bytes(8<<20, 6)
			m := mirrortest.New(t, data, mirrortest.Rate(2<<20))
			b.call(t, "aria2.changeGlobalOption", map[string]any{"max-connection-per-server": strconv.Itoa(n)})
			gid := b.call(t, "aria2.addUri", []string{m.URL()}).(string)
			b.waitStatus(t, gid, "complete")
			if peak := m.InFlight().Peak(); peak != n {
				t.Errorf("max-connection-per-server %d: the server saw %d requests at once", n, peak)
			}
		})
	}
}
