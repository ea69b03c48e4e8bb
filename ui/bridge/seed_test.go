package bridge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/ui"
)

// A seeding torrent is paused, resumed and stopped from the window's
// commands: Pause ends its seeding and shows it paused (not "not possible
// in the job's state"), Resume seeds it again from the file it has (the
// bytes on disk stay), and Stop seeding leaves it done.
func TestSeedingPauseResumeStop(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := ownPayload(t, 512<<10)
	mi := torrenttest.Make(t, src, "one.bin", 64<<10, []torrenttest.File{{Data: data}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=one.bin&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	q := torrentQueue(t, 1000) // seeds on for the whole test
	b := startedBackend(t, q)
	doc := openDoc(t, b, magnet)
	dest := t.TempDir()
	id, err := b.Add(context.Background(), ui.AddRequest{Source: magnet, Doc: doc, Dir: dest})
	if err != nil {
		t.Fatal(err)
	}
	seeding := func() bool {
		j := jobByID(t, b, id)
		if j.State == ui.Failed {
			t.Fatalf("job failed: %s (%s)", j.Err, j.ErrDetail)
		}
		return slices.Contains(b.runner.Seeding(), int64(id))
	}
	waitForJob(t, b, id, "the torrent to seed", seeding)

	if err := b.Pause(id); err != nil {
		t.Fatalf("pause a seeding torrent: %v", err)
	}
	testkit.WaitFor(t, "the seeding to stop", func() bool { return !slices.Contains(b.runner.Seeding(), int64(id)) })
	if j := jobByID(t, b, id); j.State != ui.Paused || !j.State.Resumable() {
		t.Errorf("a torrent whose seeding was paused shows %v %q", j.State, j.Err)
	}

	if err := b.Resume(id); err != nil {
		t.Fatalf("resume seeding: %v", err)
	}
	waitForJob(t, b, id, "the torrent to seed again", seeding)
	testkit.WaitFor(t, "its row to say so", func() bool { return jobByID(t, b, id).State == ui.Seeding })
	got, err := os.ReadFile(filepath.Join(dest, "one.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("one.bin after seeding again: %v", err)
	}

	if err := b.StopSeeding(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the seeding to stop for good", func() bool {
		return !slices.Contains(b.runner.Seeding(), int64(id)) && jobByID(t, b, id).State == ui.Done
	})
}
