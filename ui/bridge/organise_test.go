package bridge

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/ui"
)

// TestCategoriesAndCounts adds downloads through the bridge over a real
// queue and real mirrors: a video sent to the download folder is saved
// in its category's folder, chosen at add time; one sent to a folder the
// user chose stays there; a failed and a paused job join them; and the
// window's side panel counts each state and category from the bridge.
func TestCategoriesAndCounts(t *testing.T) {
	q := openQueue(t)
	dl := t.TempDir()
	if err := q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = dl }); err != nil {
		t.Fatal(err)
	}
	film, doc, bad := payload(300<<10), payload(200<<10), payload(100<<10)
	mFilm := mirrortest.New(t, film, mirrortest.Addr("127.0.0.2"))
	mDoc := mirrortest.New(t, doc, mirrortest.Addr("127.0.0.3"))
	// This mirror sends other bytes than the hashes say: the job fails.
	mBad := mirrortest.New(t, payload(100<<10 + 1)[1:], mirrortest.Addr("127.0.0.4"))
	b := newBackend(t, q)
	if err := b.Start(true); err != nil {
		t.Fatal(err)
	}
	chosen := t.TempDir()
	add := func(name string, data []byte, m *mirrortest.Mirror, dir string, paused bool) ui.JobID {
		t.Helper()
		d := &metalink.Document{Version: 4, Files: []metalink.File{describeData(t, name, data, m.URL())}}
		id, err := b.Add(context.Background(), ui.AddRequest{Source: name + ".meta4", Doc: d, Dir: dir, Paused: paused})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	video := add("film.mkv", film, mFilm, dl, false)
	paper := add("paper.pdf", doc, mDoc, chosen, false)
	broken := add("broken.iso", bad, mBad, dl, false)
	later := add("later.mp3", doc, mDoc, dl, true)
	testkit.WaitFor(t, "the downloads to end", func() bool {
		return jobByID(t, b, video).State == ui.Done && jobByID(t, b, paper).State == ui.Done && jobByID(t, b, broken).State == ui.Failed
	})
	if got, err := os.ReadFile(filepath.Join(dl, "Video", "film.mkv")); err != nil || !bytes.Equal(got, film) {
		t.Errorf("the video in its category's folder: %d bytes, %v", len(got), err)
	}
	if _, err := os.Stat(filepath.Join(dl, "film.mkv")); err == nil {
		t.Error("the video is in the download folder too")
	}
	if got, err := os.ReadFile(filepath.Join(chosen, "paper.pdf")); err != nil || !bytes.Equal(got, doc) {
		t.Errorf("the document in the folder the user chose: %d bytes, %v", len(got), err)
	}
	for id, want := range map[ui.JobID]string{video: "Video", paper: "Documents", broken: "Archives", later: "Audio"} {
		if j := jobByID(t, b, id); j.Category != want {
			t.Errorf("job %s: category %q, want %q", j.Name, j.Category, want)
		}
	}
	if j := jobByID(t, b, later); j.Dir != filepath.Join(dl, "Audio") || j.State != ui.Paused {
		t.Errorf("the paused job: %s in %s", j.State, j.Dir)
	}

	w := newWindow(t, b)
	w.Tick()
	for label, want := range map[string]int{"All": 4, "Done": 2, "Failed": 1, "Paused": 1, "Downloading": 0, "Queued": 0,
		"Video": 1, "Audio": 1, "Archives": 1, "Documents": 1, "Programs": 0} {
		if n, ok := w.Side.Count(label); !ok || n != want {
			t.Errorf("side panel %s: %d (%v), want %d", label, n, ok, want)
		}
	}
	if !w.Side.Choose("Failed") {
		t.Fatal("no Failed entry")
	}
	if jobs := shownJobs(w); len(jobs) != 1 || jobs[0] != broken {
		t.Errorf("Failed shows %v, want job %d", jobs, broken)
	}
	w.Side.Choose("Video")
	if jobs := shownJobs(w); len(jobs) != 1 || jobs[0] != video {
		t.Errorf("Video shows %v, want job %d", jobs, video)
	}

	// A category changed in Settings is what the rows and the panel say
	// from the next reading on.
	if err := b.SetCategories([]ui.Category{{Name: "Films", Extensions: []string{"mkv"}}}); err != nil {
		t.Fatal(err)
	}
	if j := jobByID(t, b, video); j.Category != "Films" {
		t.Errorf("after the change the video's category is %q", j.Category)
	}
}

// shownJobs are the jobs the window's list shows, in its order.
func shownJobs(w *ui.Window) []ui.JobID {
	var ids []ui.JobID
	for i := range w.List.Length() {
		if j, ok := w.RowJob(i); ok {
			ids = append(ids, j.ID)
		}
	}
	return ids
}

// TestWhenDoneThroughTheBridge: the action chosen in the window is kept
// with the job and shown on its row; a bad command is refused with the
// reason.
func TestWhenDoneThroughTheBridge(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	id, err := q.Add(queue.NewJob{Source: "a.meta4", Dest: t.TempDir(), Doc: &metalink.Document{Version: 4, Files: []metalink.File{{Name: "a.bin", Size: 10}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := ui.WhenDone{Action: ui.WhenDoneCommand, Command: `notify-send "done"`}
	if err := b.SetWhenDone(ui.JobID(id), want); err != nil {
		t.Fatal(err)
	}
	if j := jobByID(t, b, ui.JobID(id)); j.WhenDone != want {
		t.Errorf("row says %+v, want %+v", j.WhenDone, want)
	}
	if err := b.SetWhenDone(ui.JobID(id), ui.WhenDone{Action: ui.WhenDoneCommand, Command: `x "unclosed`}); err == nil {
		t.Error("a command with an open quote was kept")
	}
	if err := q.SetJob(id, queue.WhenDoneWent(queue.WhenDoneNote{Kind: queue.ActionOpen, Detail: "xdg-open: exit status 4"})); err != nil {
		t.Fatal(err)
	}
	if j := jobByID(t, b, ui.JobID(id)); j.WhenDoneNote != (ui.WhenDoneNote{Kind: ui.WhenDoneOpen, Detail: "xdg-open: exit status 4"}) {
		t.Errorf("row's note %+v", j.WhenDoneNote)
	}
}
