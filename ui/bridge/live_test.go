package bridge

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/ui"
)

// TestLiveProgressIsTheEngines reads a rate-limited download through the
// bridge while it runs: what Active and Detail report is what the
// engine's snapshot says at that moment. The bridge's read is bracketed
// by two engine snapshots taken just before and just after it; when the
// engine did not move in between, the two must agree exactly. Each sample
// is taken right after the engine's byte count moved, so a bridge that
// showed an older reading (the runner's once-a-second callback) fails.
func TestLiveProgressIsTheEngines(t *testing.T) {
	t.Parallel()
	data := payload(48 * pieceLen)
	m := mirrortest.New(t, data, mirrortest.Rate(256<<10))
	f := describeData(t, "live.bin", data, m.URL())
	q := openQueue(t)
	b := newBackend(t, q)
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	id, err := b.Add(context.Background(), ui.AddRequest{Source: "live.meta4", Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var dl *engine.Download
	testkit.WaitFor(t, "the download to start", func() bool {
		b.mu.Lock()
		r := b.runner
		b.mu.Unlock()
		if r == nil {
			return false
		}
		var ok bool
		dl, ok = r.Live(int64(id))
		return ok && dl.Snapshot().Bytes > 0
	})

	const samples = 8
	exact := 0
	last := int64(-1)
	for i := 0; i < samples; {
		if dl.Snapshot().Bytes == last {
			testkit.WaitFor(t, "the engine to move on", func() bool { return dl.Snapshot().Bytes != last })
		}
		before := dl.Snapshot()
		var job ui.Job
		for _, j := range b.Active() {
			if j.ID == id {
				job = j
			}
		}
		d, err := b.Detail(id, true)
		after := dl.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if before.State != engine.StateDownloading || after.State != engine.StateDownloading {
			break // the end came before all samples; what was taken counts
		}
		i++
		last = after.Bytes
		fd := d.Files[0]
		for what, got := range map[string]int64{"Active's Done": job.Done, "Detail's Done": d.Done, "the file's Done": fd.Done} {
			if got < before.Bytes || got > after.Bytes {
				t.Errorf("sample %d: %s is %d; the engine said %d just before and %d just after", i, what, got, before.Bytes, after.Bytes)
			}
		}
		if before.Bytes != after.Bytes || !slices.Equal(before.Pieces, after.Pieces) || before.Speed != after.Speed {
			continue // the engine moved during the read
		}
		exact++
		if job.Speed != float64(before.Speed) || fd.Speed != float64(before.Speed) {
			t.Errorf("sample %d: speed %v (file %v), the engine says %d", i, job.Speed, fd.Speed, before.Speed)
		}
		if len(fd.Pieces.State) != len(before.Pieces) {
			t.Fatalf("sample %d: %d pieces shown, the engine has %d", i, len(fd.Pieces.State), len(before.Pieces))
		}
		for p, s := range before.Pieces {
			if fd.Pieces.State[p] != ui.PieceState(s) || fd.Pieces.Mirror[p] != before.Filler[p] {
				t.Errorf("sample %d: piece %d shown %v by %d, the engine says %v by %d", i, p, fd.Pieces.State[p], fd.Pieces.Mirror[p], s, before.Filler[p])
				break
			}
		}
		for k, ms := range before.Mirrors {
			if md := fd.Mirrors[k]; md.Bytes != ms.Bytes || md.Speed != float64(ms.Speed) {
				t.Errorf("sample %d: mirror %s shown %d bytes at %v/s, the engine says %d at %d/s", i, ms.Host, md.Bytes, md.Speed, ms.Bytes, ms.Speed)
			}
		}
	}
	if exact == 0 {
		t.Error("the engine moved during every read; nothing was compared exactly")
	}
	t.Logf("%d samples compared exactly", exact)
}

// TestMismatchIsTheFlag: the window's red mark follows the queue's flag,
// not the words of an error.
func TestMismatchIsTheFlag(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	doc := &metalink.Document{Version: 4, Files: []metalink.File{describeData(t, "a.bin", payload(1000), "https://a.example/a.bin")}}
	id, err := b.Add(context.Background(), ui.AddRequest{Source: "a.meta4", Doc: doc, Dir: t.TempDir(), Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	show := func() (bool, ui.FileState) {
		t.Helper()
		d, err := b.Detail(id, false)
		if err != nil {
			t.Fatal(err)
		}
		if j := jobByID(t, b, id); j.Mismatch != d.Mismatch {
			t.Fatalf("Jobs says mismatch %v, Detail %v", j.Mismatch, d.Mismatch)
		}
		return d.Mismatch, d.Files[0].State
	}
	if err := q.Fail(int64(id), errors.New("a.bin: file does not match its hash, in words only")); err != nil {
		t.Fatal(err)
	}
	if mark, st := show(); mark || st != ui.FileFailed {
		t.Errorf("an error's words alone: mismatch %v, file %v; want no mark, failed", mark, st)
	}
	if err := q.SetFile(int64(id), "a.bin", queue.Mismatched); err != nil {
		t.Fatal(err)
	}
	if mark, st := show(); !mark || st != ui.FileMismatch {
		t.Errorf("flagged: mismatch %v, file %v", mark, st)
	}
	if err := q.SetFile(int64(id), "a.bin", queue.VerifiedBy("")); err != nil {
		t.Fatal(err)
	}
	if mark, st := show(); mark || st != ui.FileVerified {
		t.Errorf("verified since: mismatch %v, file %v", mark, st)
	}
}

// TestPlainURLThroughTheWindow opens a plain URL that needs a password and
// sends an ETag, adds it, and runs it: the job keeps the origin's ETag and
// Referer for the runner, the download uses the credentials, and nothing
// the window shows carries the password.
func TestPlainURLThroughTheWindow(t *testing.T) {
	t.Parallel()
	data := payload(8 * pieceLen)
	m := mirrortest.New(t, data, mirrortest.Path("/pub/file.iso"), mirrortest.BasicAuth("me", "s3cret"),
		mirrortest.Header("ETag", `"e1"`))
	u, err := url.Parse(m.URL())
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("me", "s3cret")
	source := u.String()
	q := openQueue(t)
	b := newBackend(t, q)
	ctx := context.Background()
	doc, err := b.Open(ctx, source)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	id, err := b.Add(ctx, ui.AddRequest{Source: source, Doc: doc, Dir: dir, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(int64(id))
	if err != nil {
		t.Fatal(err)
	}
	if want := (queue.Origin{ETag: `"e1"`, Referer: m.URL()}); j.Origin != want {
		t.Errorf("stored origin %+v, want %+v", j.Origin, want)
	}
	if got := j.Files[0].Mirrors[0].URL; got != m.URL() {
		t.Errorf("the stored mirror is %q, want %q without its credentials (the queue keeps none)", got, m.URL())
	}
	shown := func(when string) {
		t.Helper()
		d, err := b.Detail(id, true)
		if err != nil {
			t.Fatal(err)
		}
		texts := []string{d.Source, d.Origin, d.Name, d.Err, jobByID(t, b, id).Source}
		for _, f := range d.Files {
			texts = append(texts, f.Err, f.Name)
			for _, md := range f.Mirrors {
				texts = append(texts, md.URL, md.Host, md.Err)
			}
		}
		for _, s := range texts {
			if strings.Contains(s, "s3cret") {
				t.Errorf("%s: the window shows %q", when, s)
			}
		}
		if d.Source != m.URL() {
			t.Errorf("%s: source shown as %q, want %q", when, d.Source, m.URL())
		}
	}
	shown("added")

	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	if err := b.Resume(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the download", func() bool {
		if s := jobByID(t, b, id).State; s == ui.Failed {
			t.Fatalf("the download failed: %s", jobByID(t, b, id).Err)
		}
		return jobByID(t, b, id).State == ui.Done
	})
	shown("done")
	if got, err := os.ReadFile(filepath.Join(dir, "file.iso")); err != nil || len(got) != len(data) {
		t.Fatalf("downloaded %d bytes, %v", len(got), err)
	}
	for _, r := range m.Ranges() {
		if r.Method == "GET" && r.User != "me" {
			t.Errorf("a GET without the credentials: %+v", r)
		}
	}
}
