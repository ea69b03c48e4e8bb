package bridge

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
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
		if _, err := q.Add(queue.NewJob{Source: name + ".meta4", Dest: dest, Doc: doc}); err != nil {
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

// BenchmarkActiveLive is the window's 4 Hz read of a running download of
// 1,024 pieces: Active takes a fresh engine snapshot into memory the
// bridge reuses, so a read costs a copy of the piece map and a few small
// allocations for the rows, not a new snapshot each time.
func BenchmarkActiveLive(b *testing.B) {
	const pieces = 1024
	data := payload(pieces * 16 << 10)
	m := mirrortest.New(b, data, mirrortest.Rate(64<<10))
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), "big.bin", 16<<10, 2)
	if err != nil {
		b.Fatal(err)
	}
	f.URLs = []metalink.URL{{URL: m.URL(), Priority: 1}}
	q, err := queue.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	back := New(q, nil)
	defer back.Close()
	if err := back.Start(false); err != nil {
		b.Fatal(err)
	}
	id, err := back.Add(context.Background(), ui.AddRequest{Source: "big.meta4", Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}, Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if js := back.Active(); len(js) == 1 && js[0].ID == id && js[0].Done > 0 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the download did not start")
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if js := back.Active(); len(js) != 1 || js[0].State != ui.Running {
			b.Fatalf("active %+v", js)
		}
	}
}
