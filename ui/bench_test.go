package ui

import (
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// bigQueue is a backend holding n jobs in every state, the first running.
func bigQueue(n int) (*memBackend, JobID) {
	b := newMemBackend()
	states := []JobState{Done, Done, Queued, Paused, Done, Failed}
	for i := range n {
		st := states[i%len(states)]
		b.put(Detail{Job: Job{
			Name:  fmt.Sprintf("file-%05d.iso", i),
			Dir:   "/home/user/Downloads",
			State: st,
			Size:  int64(i+1) << 20,
			Done:  int64(i/2+1) << 20,
			ETA:   -1,
		}})
	}
	running := b.jobs[0].ID
	b.update(running, func(d *Detail) {
		d.State, d.Speed = Running, 40<<20
		d.Files = []FileDetail{{Name: d.Name, Size: 100_000 << 16, State: FileRunning, PieceLength: 1 << 16,
			Mirrors: []MirrorDetail{{Host: "a.example", State: MirrorActive}, {Host: "b.example", State: MirrorActive}, {Host: "c.example", State: MirrorActive}},
			Pieces:  bigMap()}}
	})
	return b, running
}

// BenchmarkQueueOpen10k opens the window on a queue of 10,000 jobs: the
// window built, the queue read, the model and list filled and laid out.
// The goal is well under a second.
func BenchmarkQueueOpen10k(b *testing.B) {
	a := test.NewTempApp(b)
	back, _ := bigQueue(10_000)
	b.ReportAllocs()
	for b.Loop() {
		w := New(a, back, Options{})
		w.Win.Resize(fyne.NewSize(1100, 720))
		w.Tick()
		if w.List.Length() != 10_000 {
			b.Fatalf("%d rows", w.List.Length())
		}
		w.Stop()
		w.Win.Close()
	}
}

// BenchmarkUITick measures what the UI goroutine does on one tick while a
// fast download runs in a 10,000-job queue, with the running job's
// 100,000-piece segment map on screen: merging the live rows, the status
// bar, the details pane and redrawing the map. The %core metric is that
// work at the window's 4 Hz, as a share of one core; the goal is under 10.
func BenchmarkUITick(b *testing.B) {
	a := test.NewTempApp(b)
	back, running := bigQueue(10_000)
	w := New(a, back, Options{})
	defer w.Win.Close()
	w.Win.Resize(fyne.NewSize(1100, 720))
	w.Tick()
	w.Select(running)
	w.Details.Tabs.Select(w.Details.SegmentsTab)
	w.Tick()
	// Readings are prepared outside the loop: reading the backend happens
	// on the ticker's goroutine, not the UI's.
	const frames = 8
	var readings [frames]reading
	for i := range readings {
		back.update(running, func(d *Detail) {
			d.Done += 10 << 20
			d.Files[0].Done = d.Done
			p := &d.Files[0].Pieces
			p.State = append([]PieceState(nil), p.State...)
			for k := i * 1000; k < (i+1)*1000; k++ {
				p.State[k] = PieceDone
			}
		})
		readings[i] = w.poll.read()
	}
	r := w.Details.Segments
	sr := test.WidgetRenderer(r).(*segRenderer)
	size := sr.raster.Size()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	i := 0
	for b.Loop() {
		w.apply(readings[i%frames])
		// The raster is drawn when the canvas paints; do it here so the
		// tick's whole cost is counted.
		sr.draw(int(size.Width), int(size.Height))
		i++
	}
	perTick := time.Since(start) / time.Duration(max(1, i))
	b.ReportMetric(float64(perTick)*4/float64(time.Second)*100, "%core@4Hz")
}
