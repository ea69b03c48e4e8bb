package bridge

import (
	"bytes"
	"context"
	"io"
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

// A link added before its server answered learns its file's size from the
// first mirror that says it: the row shows it while the file downloads
// (not an unknown size, without a percentage). Once done, the row and the queue (what `braid
// queue list` reads) say that size and that many bytes, not the whole
// 1 MiB piece the journal counted while the size was unknown.
func TestLateSizeIsRecorded(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there until the server comes up
	source := "http://" + addr + "/pub/late.bin"
	q := openQueue(t)
	b := newBackend(t, q)
	ctx := context.Background()
	doc, err := b.Open(ctx, source)
	if err != nil {
		t.Fatalf("Open of an unreachable link: %v, want a document to queue", err)
	}
	if len(doc.Files) != 1 || doc.Files[0].Size != -1 {
		t.Fatalf("document %+v, want one file of unknown size", doc)
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
	const size = 200 << 10
	data := mirrortest.Bytes(size, 5)
	up, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	// The server sends the first 64 KiB of any request, then holds the
	// rest until the row has been read mid-download.
	gate := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "late.bin", time.Unix(0, 0), &gatedReader{Reader: bytes.NewReader(data), after: 64 << 10, gate: gate})
	})}
	go srv.Serve(up)
	t.Cleanup(func() { srv.Close() })
	testkit.WaitFor(t, "the row to say the size the server gave, while it downloads", func() bool {
		j := jobByID(t, b, id)
		return j.State == ui.Running && j.Size == size && j.Done < size
	})
	close(gate)
	testkit.WaitFor(t, "the download once the server is up", func() bool { return jobByID(t, b, id).State == ui.Done })
	if got, err := os.ReadFile(filepath.Join(dir, "late.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("late.bin: %v, right bytes %v", err, bytes.Equal(got, data))
	}
	// The row while the bridge still holds the run, and once it let go.
	if j := jobByID(t, b, id); j.Size != size || j.Done != size {
		t.Errorf("the done row says %d of %d bytes, want %d of %d", j.Done, j.Size, size, size)
	}
	testkit.WaitFor(t, "the bridge to let go of the run", func() bool {
		b.Active()
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.live[int64(id)] == nil
	})
	if j := jobByID(t, b, id); j.Size != size || j.Done != size {
		t.Errorf("the done row, from the queue alone, says %d of %d bytes, want %d of %d", j.Done, j.Size, size, size)
	}
	qj, err := q.Get(int64(id))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, done, total := qj.Progress(); done != size || total != size {
		t.Errorf("the queue says %d of %d bytes, want %d of %d", done, total, size, size)
	}
	if f := qj.Files[0]; f.Size != size || f.Layout.Count() != f.Pieces {
		t.Errorf("the queue's file: size %d, %d pieces in its bitfield for a layout of %d; want size %d", f.Size, f.Pieces, f.Layout.Count(), size)
	}
}

// gatedReader reads as its Reader does up to offset after, then waits
// for gate to close.
type gatedReader struct {
	*bytes.Reader
	after int64
	gate  chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	pos, _ := g.Seek(0, io.SeekCurrent)
	if pos >= g.after {
		<-g.gate
	} else if pos+int64(len(p)) > g.after {
		p = p[:g.after-pos]
	}
	return g.Reader.Read(p)
}
