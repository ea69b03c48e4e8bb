package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"braid/engine/mirrortest"
	"braid/queue"
)

// `braid native-host` speaks the browsers' native messaging protocol on
// stdin and stdout, with the browser's own arguments after the flags: a
// ping is answered, and a link handed over becomes a job of the queue.
func TestNativeHostCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds braid")
	}
	if runtime.GOOS == "windows" {
		// The host's hand-over over the pipe runs under Wine in
		// TestQueueRunTakesBrowserLinks and nativehost's tests.
		t.Skip("builds braid with go, and a test binary under Wine has no Go toolchain (Linux's is not a Windows program)")
	}
	bin := buildBraid(t)
	m := mirrortest.New(t, mirrortest.Bytes(10<<10, 3))
	state, dir := t.TempDir(), t.TempDir()
	var in bytes.Buffer
	for _, msg := range []map[string]any{
		{"id": 1, "type": "ping"},
		{"id": 2, "type": "add", "url": m.URL(), "referrer": "http://example.org/page"},
	} {
		b, _ := json.Marshal(msg)
		binary.Write(&in, binary.NativeEndian, uint32(len(b)))
		in.Write(b)
	}
	cmd := exec.Command(bin, "native-host", "--state", state, "chrome-extension://peaildmplidnbblnghpfijaccoekpnpk/")
	// No Braid runs and no display is there to start the window on:
	// the host queues the link itself.
	cmd.Env = append(cmd.Environ(), "XDG_RUNTIME_DIR="+t.TempDir(), "XDG_DOWNLOAD_DIR="+dir, "DISPLAY=", "WAYLAND_DISPLAY=")
	cmd.Stdin = &in
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("native-host: %v: %s", err, errOut.String())
	}
	var answers []map[string]any
	for out.Len() > 0 {
		var n uint32
		if err := binary.Read(&out, binary.NativeEndian, &n); err != nil {
			t.Fatal(err)
		}
		var a map[string]any
		if err := json.Unmarshal(out.Next(int(n)), &a); err != nil {
			t.Fatalf("answer not JSON: %v", err)
		}
		answers = append(answers, a)
	}
	if len(answers) != 2 || answers[0]["ok"] != true || answers[1]["ok"] != true {
		t.Fatalf("answers %v (stderr %q)", answers, errOut.String())
	}
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	jobs, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || !strings.HasPrefix(jobs[0].Source, m.URL()) || jobs[0].Origin.Referer != "http://example.org/page" {
		t.Fatalf("queue after the hand-over: %+v", jobs)
	}
}
