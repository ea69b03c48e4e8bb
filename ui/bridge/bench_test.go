package bridge

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"braid/engine/metalink"
	"braid/queue"
	"braid/ui"
)

// BenchmarkQueueOpen10k opens the window on a real queue of 10,000 jobs
// in SQLite: the queue listed through the bridge, the window built, its
// model and list filled and laid out. The goal is well under a second.
func BenchmarkQueueOpen10k(b *testing.B) {
	dir := b.TempDir()
	// NORMAL sync makes filling the fixture quick; reading is the same.
	q, err := queue.OpenOptions(dir, queue.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	dest := b.TempDir()
	for i := range 10_000 {
		name := fmt.Sprintf("file-%05d.iso", i)
		doc := &metalink.Document{Version: 4, Files: []metalink.File{{
			Name: name, Size: int64(i+1) << 20,
			URLs: []metalink.URL{{URL: "https://a.example/" + name, Priority: 1}, {URL: "https://b.example/" + name, Priority: 2}},
		}}}
		if _, err := q.Add(name+".meta4", dest, doc, nil); err != nil {
			b.Fatal(err)
		}
	}
	back := New(q, nil)
	defer back.Close()
	a := test.NewTempApp(b)
	b.ResetTimer()
	b.ReportAllocs()
	for b.Loop() {
		w := ui.New(a, back, ui.Options{})
		w.Win.Resize(fyne.NewSize(1100, 720))
		w.Tick()
		if w.List.Length() != 10_000 {
			b.Fatalf("%d rows", w.List.Length())
		}
		w.Stop()
		w.Win.Close()
	}
}
