package bridge

import (
	"context"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/ui"
)

// TestScheduleHoldsTheQueue pauses all downloads through the schedule,
// adds a job that a real mirror could serve at once, and checks that it
// waits, then runs when the pause ends. The schedule is read back from
// the queue's database.
func TestScheduleHoldsTheQueue(t *testing.T) {
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
	waitFor(t, "the runner to look at the schedule", func() bool {
		s, err := q.Schedule()
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
	waitFor(t, "the job to finish once the pause ended", func() bool { return jobByID(t, b, id).State == ui.Done })
}

// TestScheduleStopsARun pauses everything through the schedule while a
// rate-limited download runs: the job goes back to queued with its
// progress kept, and finishes once the pause is lifted.
func TestScheduleStopsARun(t *testing.T) {
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
	waitFor(t, "the download to be under way", func() bool { return m.BytesServed() > 256<<10 })
	if err := b.SetSchedule(ui.Schedule{PausedUntil: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the run to stop", func() bool { return len(b.Active()) == 0 && jobByID(t, b, id).State == ui.Queued })
	if j := jobByID(t, b, id); j.Done == 0 || j.Done >= j.Size {
		t.Errorf("stopped with %d of %d bytes: the progress was not kept, or it finished anyway", j.Done, j.Size)
	}
	if err := b.SetSchedule(ui.Schedule{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the job to finish after the pause", func() bool { return jobByID(t, b, id).State == ui.Done })
}
