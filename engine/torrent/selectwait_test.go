package torrent

import (
	"context"
	"testing"
	"time"
)

// TestSnapshotWhileSelectWaits reads the job's snapshot over and over, as
// the window's rows do, while Select waits for the user and then
// answers: the snapshots show the file list with every file selected
// until the answer, and the answer after it. The download wrote the
// answer into the very list the snapshots were reading (a data race the
// race detector found in ui/bridge's TestSeedingPauseResumeStop); under
// -race this test fails on that.
func TestSnapshotWhileSelectWaits(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	files := []testFile{
		{Path: "a.bin", Data: randomBytes(t, 2*testPieceLen+5)},
		{Path: "b.bin", Data: randomBytes(t, testPieceLen+9)},
	}
	mi := makeTorrent(t, src, "pair", files)
	spec := specOf(t, mi)
	spec.Peers = []string{seeder(t, src, mi)}

	// Select answers after a pause in which the reader below runs: the
	// pause must not be a synchronisation (a channel, a lock, an atomic),
	// or the race detector would see the reads ordered before the
	// answer's writes and report nothing.
	const think = 200 * time.Millisecond
	asked := make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := newTestClient(t).Start(ctx, &Request{Dir: t.TempDir(), Spec: spec, Select: func(_ context.Context, fs []File) []bool {
		close(asked)
		time.Sleep(think)
		return []bool{false, true} // b.bin only
	}})
	if err != nil {
		t.Fatal(err)
	}
	<-asked
	before := j.Snapshot()
	if len(before.Files) != 2 || !before.Files[0].Selected || !before.Files[1].Selected {
		t.Fatalf("while Select waits the snapshot lists %+v; want both files, selected", before.Files)
	}
	reads := 0
	for {
		s := j.Snapshot()
		reads++
		if s.Phase != PhaseMetadata {
			if len(s.Files) != 2 || s.Files[0].Selected || !s.Files[1].Selected {
				t.Fatalf("after Select the snapshot lists %+v; want b.bin alone selected", s.Files)
			}
			break
		}
	}
	if err := j.Err(); err != nil {
		t.Fatal(err)
	}
	if s := j.Snapshot(); s.Bytes != int64(len(files[1].Data)) {
		t.Fatalf("%d bytes fetched, want b.bin's %d", s.Bytes, len(files[1].Data))
	}
	t.Logf("%d snapshots read while Select answered", reads)
}
