package bridge

import (
	"context"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/ui"
)

// TestScheduleHoldsTheQueue pauses all downloads through the schedule,
// adds a job that a real mirror could serve at once, and checks that it
// waits, then runs when the pause ends. The schedule is read back from
// the queue's database.
func TestScheduleHoldsTheQueue(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	data := payload(200_000)
	m := mirrortest.New(t, data)
	doc := &metalink.Document{Version: 4, Files: []metalink.File{describeData(t, "s.bin", data, m.URL())}}

	until := time.Now().Add(time.Hour).Truncate(time.Minute)
	if err := b.SetSchedule(ui.Schedule{PausedUntil: until, AltSpeed: true}); err != nil {
		t.Fatal(err)
	}
	if err := b.SetSettings(ui.Settings{Dir: t.TempDir(), AltSpeedLimit: 512 << 10, MaxJobs: 2}); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(true); err != nil {
		t.Fatal(err)
	}
	id, err := b.Add(context.Background(), ui.AddRequest{Source: "s.meta4", Doc: doc, Files: []string{"s.bin"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// The runner has been woken by the Add; give it the chance to run
	// the job it must not run, then look.
	testkit.WaitFor(t, "the runner to look at the schedule", func() bool {
		st, err := q.Settings()
		s := st.Schedule
		return err == nil && s.AltSpeed
	})
	time.Sleep(200 * time.Millisecond)
	if j := jobByID(t, b, id); j.State != ui.Queued || m.Requests() > 0 {
		t.Fatalf("while paused by the schedule the job is %v and the mirror had %d requests", j.State, m.Requests())
	}

	got, err := b.Schedule()
	if err != nil || !got.PausedUntil.Equal(until) || !got.AltSpeed {
		t.Errorf("schedule read back %+v, %v", got, err)
	}
	s, err := b.Settings()
	if err != nil || s.AltSpeedLimit != 512<<10 || s.MaxJobs != 2 {
		t.Errorf("settings read back %+v, %v", s, err)
	}
	if err := b.SetSchedule(ui.Schedule{}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the job to finish once the pause ended", func() bool { return jobByID(t, b, id).State == ui.Done })
}

// TestScheduleStopsARun pauses everything through the schedule while a
// rate-limited download runs: the job goes back to queued with its
// progress kept, and finishes once the pause is lifted.
func TestScheduleStopsARun(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	data := payload(3 << 20)
	m := mirrortest.New(t, data, mirrortest.Rate(1<<20))
	doc := &metalink.Document{Version: 4, Files: []metalink.File{describeData(t, "r.bin", data, m.URL())}}
	if err := b.Start(true); err != nil {
		t.Fatal(err)
	}
	id, err := b.Add(context.Background(), ui.AddRequest{Source: "r.meta4", Doc: doc, Files: []string{"r.bin"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the download to be under way", func() bool { return m.BytesServed() > 256<<10 })
	if err := b.SetSchedule(ui.Schedule{PausedUntil: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the run to stop", func() bool { return len(b.Active()) == 0 && jobByID(t, b, id).State == ui.Queued })
	if j := jobByID(t, b, id); j.Done == 0 || j.Done >= j.Size {
		t.Errorf("stopped with %d of %d bytes: the progress was not kept, or it finished anyway", j.Done, j.Size)
	}
	if err := b.SetSchedule(ui.Schedule{}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the job to finish after the pause", func() bool { return jobByID(t, b, id).State == ui.Done })
}

// TestHeldJobSaysWhy: a queued job the schedule holds says why on its
// row, not just "Queued".
func TestHeldJobSaysWhy(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	data := payload(pieceLen)
	doc := &metalink.Document{Version: 4, Files: []metalink.File{describeData(t, "h.bin", data, "http://127.0.0.1:9/h.bin")}}
	id, err := q.Add(queue.NewJob{Source: "h.meta4", Dest: t.TempDir(), Doc: doc})
	if err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(2 * time.Hour).Truncate(time.Minute)
	if err := b.SetSchedule(ui.Schedule{PausedUntil: until}); err != nil {
		t.Fatal(err)
	}
	want := "all downloads paused until " + until.Local().Format("15:04")
	if j := jobByID(t, b, ui.JobID(id)); j.State != ui.Queued || j.Err != want {
		t.Errorf("held job: %v %q, want queued %q", j.State, j.Err, want)
	}
	now := time.Now()
	start := (now.Hour()*60 + now.Minute() + 180) % (24 * 60)
	if err := b.SetSchedule(ui.Schedule{Windows: []ui.TimeWindow{{Start: start, End: (start + 60) % (24 * 60)}}}); err != nil {
		t.Fatal(err)
	}
	if j := jobByID(t, b, ui.JobID(id)); !strings.HasPrefix(j.Err, "outside the schedule; downloads start at ") {
		t.Errorf("job outside the schedule says %q", j.Err)
	}
	if err := b.SetSchedule(ui.Schedule{}); err != nil {
		t.Fatal(err)
	}
	if j := jobByID(t, b, ui.JobID(id)); j.Err != "" {
		t.Errorf("a job the schedule lets run says %q", j.Err)
	}
}
