package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/queue"
	"braid/runner"
)

// `braid queue run --rpc-listen` takes a download behind nginx's
// cookie-guarded place with the Cookie header a browser extension hands
// over (aria2's header option): the file lands in -d, and neither the
// state folder (state.db, its WAL, braid.log) nor the command's output
// holds the cookie's value.
func TestQueueRunRPCCookieNotKept(t *testing.T) {
	data := mirrortest.Bytes(700<<10, 23)
	ng := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, "u", "p")
	state, dir := t.TempDir(), t.TempDir()
	t.Setenv("BRAID_RPC_SECRET", "rpc-s3cret")
	endpoint, done, out, errOut := startQueueRPC(t, state, dir)
	call := func(method string, params ...any) map[string]any {
		t.Helper()
		_, v := rpcCall(t, endpoint, method, append([]any{"token:rpc-s3cret"}, params...)...)
		return v
	}
	cookie := "Cookie: " + netconftest.CookieName + "=" + netconftest.CookieValue
	v := call("aria2.addUri", []string{ng.URL + "/cookie/f.bin"}, map[string]any{"out": "f.bin", "header": []string{cookie}})
	gid, _ := v["result"].(string)
	if len(gid) != 16 {
		t.Fatalf("addUri: %v", v)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		st := call("aria2.tellStatus", gid, []string{"status", "errorMessage"})
		if r, _ := st["result"].(map[string]any); r != nil && r["status"] == "complete" {
			break
		} else if r != nil && r["status"] == "error" {
			t.Fatalf("the download failed: %v", r["errorMessage"])
		}
		if time.Now().After(deadline) {
			t.Fatalf("not complete in 30 s: %v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "f.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("f.bin: %v", err)
	}
	call("aria2.shutdown")
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("queue run still serving 20 s after aria2.shutdown")
	}
	searched := 0
	_ = filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		searched++
		if bytes.Contains(raw, []byte(netconftest.CookieValue)) {
			t.Errorf("%s holds the cookie in clear", p)
		}
		return nil
	})
	if searched < 2 {
		t.Errorf("only %d files in the state folder were searched", searched)
	}
	if strings.Contains(out.String()+errOut.String(), netconftest.CookieValue) {
		t.Error("the output shows the cookie")
	}
}

// braid queue relink: a job whose link expired is "link expired" in list
// and --json, relink gives it a link serving the same size (nothing kept
// to compare) and queues it; a link of another size is refused with a
// sentence, the job as it was.
func TestQueueRelink(t *testing.T) {
	t.Parallel()
	data := mirrortest.Bytes(300<<10, 24)
	m := mirrortest.New(t, data)
	short := mirrortest.New(t, data[:1000])
	state, dest := t.TempDir(), t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	doc, origin, err := runner.ResolveSource(context.Background(), m.URL()+"?sig=old", runner.ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Source: m.URL() + "?sig=old", Dest: dest, Doc: doc, Origin: origin})
	if err != nil {
		t.Fatal(err)
	}
	reason, _ := queue.PauseReason(runner.LinkExpired(id, errors.New("GET: 410 Gone: mirror does not have the file")))
	if err := q.Pause(id, reason); err != nil {
		t.Fatal(err)
	}
	q.Close()

	code, stdout, _ := runQueue(t, "--state", state, "list", "--json")
	var jobs []queueJob
	if code != 0 || json.Unmarshal([]byte(stdout), &jobs) != nil || len(jobs) != 1 || jobs[0].State != "link expired" {
		t.Fatalf("list --json (%d): %s", code, stdout)
	}
	if _, stdout, _ := runQueue(t, "--state", state, "list"); !strings.Contains(stdout, "link expired (the server now refuses") {
		t.Errorf("list: %s", stdout)
	}
	code, _, stderr := runQueue(t, "--state", state, "relink", "1", short.URL())
	if code != 1 || !strings.Contains(stderr, "it is a different file") || !strings.Contains(stderr, "left as it was") {
		t.Errorf("relink to a shorter file (%d): %s", code, stderr)
	}
	if code, _, stderr := runQueue(t, "--state", state, "relink", "1"); code != 2 || !strings.Contains(stderr, "want a job ID and the new URL") {
		t.Errorf("relink without a URL (%d): %s", code, stderr)
	}
	code, stdout, stderr = runQueue(t, "--state", state, "relink", "1", m.URL()+"?sig=new")
	if code != 0 || !strings.Contains(stdout, "has its new link") {
		t.Fatalf("relink (%d): %s %s", code, stdout, stderr)
	}
	_, stdout, _ = runQueue(t, "--state", state, "list", "--json")
	if json.Unmarshal([]byte(stdout), &jobs) != nil || jobs[0].State != "queued" {
		t.Errorf("after relink: %s", stdout)
	}
}
