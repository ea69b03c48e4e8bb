package main

import (
	"net/http"
	"testing"

	"braid/queue"
)

// `braid queue run --rpc-listen` with --jobs, --limit and
// --max-conn-per-host answers getGlobalOption with the values those flags
// hold for the run, not the saved settings under them (3 at once, no
// limit, 4 connections per server).
func TestQueueRunRPCShowsItsFlags(t *testing.T) {
	t.Setenv("BRAID_RPC_SECRET", "rpc-s3cret")
	state := t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.UpdateSettings(func(s *queue.Settings) { s.MaxConnsPerMirror = 4 }); err != nil {
		t.Fatal(err)
	}
	q.Close()
	endpoint, done, _, errOut := startQueueRPC(t, state, t.TempDir(), "--jobs", "2", "--limit", "300K", "--max-conn-per-host", "2")
	code, v := rpcCall(t, endpoint, "aria2.getGlobalOption", "token:rpc-s3cret")
	g, _ := v["result"].(map[string]any)
	if code != http.StatusOK || g == nil {
		t.Fatalf("getGlobalOption: HTTP %d, %v", code, v)
	}
	for key, want := range map[string]string{
		"max-concurrent-downloads":   "2",
		"max-overall-download-limit": "307200",
		"max-connection-per-server":  "2", // 4 per mirror saved, 2 per host held
	} {
		if g[key] != want {
			t.Errorf("getGlobalOption %s = %v, want %q (the flag's)", key, g[key], want)
		}
	}
	stopQueueRPC(t, endpoint, "token:rpc-s3cret", done, errOut)
}
