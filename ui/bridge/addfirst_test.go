package bridge

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/ui"
)

// Add first, reach later: a link whose server cannot be reached becomes a
// job at once, waits and tries again, and lands when the server comes up.
func TestUnreachableLinkIsQueued(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there until the server comes up
	source := "http://" + addr + "/pub/late.bin"
	b := newBackend(t, openQueue(t))
	ctx := context.Background()
	doc, err := b.Open(ctx, source)
	if err != nil {
		t.Fatalf("Open of an unreachable link: %v, want a document to queue", err)
	}
	if len(doc.Files) != 1 || doc.Files[0].Name != "late.bin" || doc.Files[0].Size != -1 || len(doc.Warnings) == 0 {
		t.Fatalf("document %+v", doc)
	}
	dir := t.TempDir()
	id, err := b.Add(ctx, ui.AddRequest{Source: source, Doc: doc, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(true); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the job to wait for the network", func() bool {
		j := jobByID(t, b, id)
		if j.State == ui.Failed {
			t.Fatalf("the job failed: %s", j.Err)
		}
		return j.State == ui.Waiting && !j.NextTry.IsZero()
	})
	data := mirrortest.Bytes(200<<10, 5)
	up, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "late.bin", time.Unix(0, 0), bytes.NewReader(data))
	})}
	go srv.Serve(up)
	t.Cleanup(func() { srv.Close() })
	testkit.WaitFor(t, "the download once the server is up", func() bool { return jobByID(t, b, id).State == ui.Done })
	if got, err := os.ReadFile(filepath.Join(dir, "late.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("late.bin: %v, right bytes %v", err, bytes.Equal(got, data))
	}
}
