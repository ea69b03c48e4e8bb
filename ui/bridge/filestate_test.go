package bridge

import (
	"slices"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/queue"
	"braid/ui"
)

// TestFileSaysWhatTheRowSays: the Files tab and Info of a paused job say
// "Paused", of a queued one "Queued", as their rows do; never "Waiting",
// the word for a download that waits for its server.
func TestFileSaysWhatTheRowSays(t *testing.T) {
	q := openQueue(t)
	add := func(name string) int64 {
		t.Helper()
		f := metalink.File{Name: name, Size: 4 << 20, URLs: []metalink.URL{{URL: "http://127.0.0.1:9/" + name, Priority: 1}}}
		id, err := q.Add(queue.NewJob{Source: "http://127.0.0.1:9/" + name, Dest: t.TempDir(), Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	paused, queued := add("paused.bin"), add("queued.bin")
	bits, _, err := q.Pieces(paused, "paused.bin")
	if err != nil {
		t.Fatal(err)
	}
	bits.Set(0)
	if err := q.SetPieces(paused, "paused.bin", bits); err != nil {
		t.Fatal(err)
	}
	if err := q.Pause(paused, ""); err != nil {
		t.Fatal(err)
	}

	w := newWindow(t, newBackend(t, q))
	for _, c := range []struct {
		id   int64
		file string
		want string
	}{{paused, "paused.bin", "Paused"}, {queued, "queued.bin", "Queued"}} {
		w.SelectJobs(ui.JobID(c.id))
		w.Tick()
		w.Details.Tabs.Select(w.Details.FilesTab)
		w.Tick()
		texts := ui.VisibleTexts(w.Win.Canvas())
		if row := lineWith(strings.Join(texts, "\n"), c.file); !strings.Contains(row, c.want) {
			t.Errorf("%s: the row says %q, want %q", c.file, row, c.want)
		}
		if n := strings.Count(strings.Join(texts, "\n"), "\n"+c.want+"\n"); n < 2 {
			t.Errorf("%s: the Files tab does not say %q beside its row: %q", c.file, c.want, texts)
		}
		if slices.Contains(texts, "Waiting") {
			t.Errorf("%s: the Files tab says Waiting: %q", c.file, texts)
		}
		if info := infoText(w); !strings.Contains(info, "Verification\n"+c.want) {
			t.Errorf("%s: Info says\n%s\nwant Verification %q", c.file, info, c.want)
		}
	}
}
