package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/engine/transport"
	"braid/engine/ziprange"
	"braid/engine/ziprange/ziptest"
	"braid/queue"
	"braid/runner"
)

// TestQueueRunMember: braid queue run runs a member job like any other:
// the member of a metalink's ZIP archive is fetched from both mirrors by
// the archive's checked pieces, and lands at its name; the run and queue
// list name both checks.
func TestQueueRunMember(t *testing.T) {
	t.Parallel()
	inner := ziptest.Text(2<<20, 21)
	archive := ziptest.Make(t,
		ziptest.Entry{Name: "notes.txt", Data: []byte("notes\n"), Method: zip.Store},
		ziptest.Entry{Name: "set/inner.csv", Data: inner, Method: zip.Deflate},
		ziptest.Entry{Name: "tail.bin", Data: mirrortest.Bytes(1<<20, 22), Method: zip.Store},
	)
	a := mirrortest.New(t, archive, mirrortest.Addr("127.0.0.2"))
	b := mirrortest.New(t, archive, mirrortest.Addr("127.0.0.3"))
	f, err := piece.Describe(context.Background(), bytes.NewReader(archive), int64(len(archive)), "set.zip", 64<<10, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.URLs = []metalink.URL{{URL: a.URL(), Priority: 1}, {URL: b.URL(), Priority: 2}}
	src, err := transport.NewHTTP(a.URL(), transport.Options{Size: -1})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := ziprange.Open(context.Background(), src, -1)
	if err != nil {
		t.Fatal(err)
	}
	m := dir.Member("set/inner.csv")
	if m == nil {
		t.Fatal("the test archive has no set/inner.csv")
	}
	listed := a.BytesServed()

	state, dest := t.TempDir(), t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Add(queue.NewJob{Source: "set.meta4", Dest: dest, Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}, Member: runner.MemberRecord(m, dir.Size)}); err != nil {
		t.Fatal(err)
	}
	q.Close()

	code, out, errOut := runQueue(t, "--state", state, "run")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	t.Logf("queue run said:\n%s%s", out, errOut)
	got, err := os.ReadFile(filepath.Join(dest, "set", "inner.csv"))
	if err != nil || !bytes.Equal(got, inner) {
		t.Fatalf("queue run extracted %d bytes, %v", len(got), err)
	}
	if !strings.Contains(out, "verified (CRC-32 and sha-256 piece hashes)") {
		t.Errorf("queue run does not name both checks:\n%s", out)
	}
	if sent := a.BytesServed() + b.BytesServed() - listed; sent >= int64(len(archive)) || b.BytesServed() == 0 {
		t.Errorf("the mirrors sent %d bytes (b %d) of a %d-byte archive", sent, b.BytesServed(), len(archive))
	}
	code, out, _ = runQueue(t, "--state", state, "list", "--json")
	var js []queueJob
	if code != 0 || json.Unmarshal([]byte(out), &js) != nil || len(js) != 1 {
		t.Fatalf("list (exit %d):\n%s", code, out)
	}
	if j := js[0]; j.State != "done" || j.Name != "set/inner.csv" || j.Checked != "verified (CRC-32 and sha-256 piece hashes)" || j.Bytes != int64(len(inner)) {
		t.Errorf("the listed job: %+v", j)
	}
}
