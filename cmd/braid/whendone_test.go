package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/queue"
)

// whenDoneArgvEnv makes this test binary the command a job runs when
// done: it writes the arguments it received to that file, as JSON, and
// exits.
const whenDoneArgvEnv = "BRAID_TEST_WHEN_DONE_ARGV"

func init() {
	if out := os.Getenv(whenDoneArgvEnv); out != "" {
		b, _ := json.Marshal(os.Args[1:])
		if os.WriteFile(out, b, 0o644) != nil {
			os.Exit(99)
		}
		os.Exit(0)
	}
}

// TestQueueRunWhenDone: `braid queue run` runs a job's action when it is
// done, the command without a shell, the file's path (spaces, quotes and
// $(…) in it) one argument of its own.
func TestQueueRunWhenDone(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "argv.json")
	t.Setenv(whenDoneArgvEnv, out)
	const name = `my 'notes' $(touch PWNED) ; x.txt`
	data := bytes.Repeat([]byte("when done "), 1<<14)
	m := mirrortest.New(t, data)
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), name, 64<<10, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.URLs = []metalink.URL{{URL: m.URL(), Priority: 1}}
	state, dest := t.TempDir(), t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Source: "notes.meta4", Dest: dest, Doc: &metalink.Document{Files: []metalink.File{f}}})
	if err == nil {
		err = q.SetJob(id, queue.DoWhenDone(queue.WhenDone{Action: queue.ActionCommand, Command: "'" + strings.ReplaceAll(self, "'", `'\''`) + "' --from-braid"}))
	}
	q.Close()
	if err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runQueue(t, "--state", state, "run"); code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the command did not run: %v", err)
	}
	var argv []string
	if err := json.Unmarshal(b, &argv); err != nil {
		t.Fatal(err)
	}
	if want := []string{"--from-braid", filepath.Join(dest, name)}; !reflect.DeepEqual(argv, want) {
		t.Errorf("the command got %q, want %q", argv, want)
	}
	if _, err := os.Stat(filepath.Join(dest, "PWNED")); err == nil {
		t.Error("the file name ran as a shell command")
	}
}
