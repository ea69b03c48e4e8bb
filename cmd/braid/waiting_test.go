package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"braid/engine"
	"braid/runner"
)

// A waiting download says so, with the time to its next try, in the
// terminal line, in --json and once in a plain log; a download of unknown
// size shows bytes without a percentage.
func TestWaitingAndUnknownSizeProgress(t *testing.T) {
	t.Parallel()
	waiting := engine.Snapshot{Name: "f.bin", Size: 100, Bytes: 40, State: engine.StateWaiting,
		NextTry: time.Now().Add(19500 * time.Millisecond)}
	if line := progressLine(&waiting); !strings.Contains(line, "waiting for the network, next try in 20 s") {
		t.Errorf("terminal line %q", line)
	}
	// Tries under way (connections open, no answer yet): no next try to
	// count down to.
	trying := waiting
	trying.NextTry = time.Time{}
	if line := progressLine(&trying); !strings.Contains(line, "waiting for the network, trying again now") {
		t.Errorf("terminal line while trying %q", line)
	}
	var out bytes.Buffer
	run := &runner.FileRun{Source: "f.meta4", Name: "f.bin", Size: 100}
	newPrinter(&getOptions{stdout: &out, json: true}).Progress(run, runner.Progress{Snapshot: &waiting})
	var p struct {
		State   string  `json:"state"`
		NextTry float64 `json:"next_try_seconds"`
	}
	if err := json.Unmarshal(out.Bytes(), &p); err != nil || p.State != "waiting" || p.NextTry < 18 || p.NextTry > 20 {
		t.Errorf("--json line %q: %+v, %v", out.String(), p, err)
	}
	out.Reset()
	log := newPrinter(&getOptions{stdout: &out})
	log.Progress(run, runner.Progress{Snapshot: &waiting})
	log.Progress(run, runner.Progress{Snapshot: &waiting})
	if n := strings.Count(out.String(), "waiting for the network"); n != 1 {
		t.Errorf("plain log said it %d times: %q", n, out.String())
	}
	unknown := engine.Snapshot{Name: "f.bin", Size: -1, Bytes: 3 << 20, Speed: 1 << 20, State: engine.StateDownloading}
	line := progressLine(&unknown)
	if strings.Contains(line, "%") || !strings.Contains(line, "size unknown") {
		t.Errorf("unknown-size line %q, want bytes and no percentage", line)
	}
}

func TestRetryForFlag(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	o, code := parseGet([]string{"--retry-for", "90s", "x.meta4"}, &bytes.Buffer{}, &stderr)
	if code >= 0 || o.retryFor != 90*time.Second {
		t.Fatalf("--retry-for 90s: code %d, %v (%s)", code, o, stderr.String())
	}
	if o, _ := parseGet([]string{"x.meta4"}, &bytes.Buffer{}, &stderr); o.retryFor != defaultRetryFor {
		t.Fatalf("default retry-for %v, want %v", o.retryFor, defaultRetryFor)
	}
	if _, code := parseGet([]string{"--retry-for", "soon", "x.meta4"}, &bytes.Buffer{}, &stderr); code != 2 {
		t.Fatalf("a bad duration gave code %d, want 2", code)
	}
}

// TestHeldFileProgress: a file another program holds open (Windows) says
// so on the terminal line, in --json and in a plain log, not "waiting for
// the network".
func TestHeldFileProgress(t *testing.T) {
	t.Parallel()
	why := "f.bin.part is open in another program; Braid renames it to f.bin when that program closes it"
	held := engine.Snapshot{Name: "f.bin", Size: 100, Bytes: 100, State: engine.StateWaiting, Held: why}
	if line := progressLine(&held); !strings.Contains(line, why) || strings.Contains(line, "network") {
		t.Errorf("terminal line %q", line)
	}
	var out bytes.Buffer
	run := &runner.FileRun{Source: "f.meta4", Name: "f.bin", Size: 100}
	newPrinter(&getOptions{stdout: &out, json: true}).Progress(run, runner.Progress{Snapshot: &held})
	var p struct {
		State string `json:"state"`
		Held  string `json:"held"`
	}
	if err := json.Unmarshal(out.Bytes(), &p); err != nil || p.State != "waiting" || p.Held != why {
		t.Errorf("--json line %s: %+v, %v", out.Bytes(), p, err)
	}
	out.Reset()
	log := newPrinter(&getOptions{stdout: &out})
	log.Progress(run, runner.Progress{Snapshot: &held})
	log.Progress(run, runner.Progress{Snapshot: &held})
	if got := out.String(); strings.Count(got, why) != 1 || strings.Contains(got, "network") {
		t.Errorf("plain log %q, want the reason once", got)
	}
}
