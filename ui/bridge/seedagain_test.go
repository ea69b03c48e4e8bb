package bridge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
	"braid/ui"

	"github.com/anacrolix/torrent/metainfo"
)

// A torrent seeding when the window closes seeds on at the next start,
// until its ratio: it is added again over the file it has (nothing is
// fetched, the file is not rewritten), a real anacrolix leecher that
// knows only Braid gets the whole file from it, which reaches the ratio
// of 1; the seeding ends, and the start after does not seed it again.
// seedingAtQuit downloads a small torrent from a real seeder through a
// Backend on a new queue whose torrents seed to a ratio of 1, and closes
// it while the torrent seeds. It returns the queue's folder (closed), the
// job, the file, the torrent and the file's bytes.
func seedingAtQuit(t *testing.T) (state string, id ui.JobID, file string, mi *metainfo.MetaInfo, data []byte) {
	t.Helper()
	src := t.TempDir()
	data = ownPayload(t, 768<<10)
	mi = torrenttest.Make(t, src, "again.bin", 64<<10, []torrenttest.File{{Data: data}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=again.bin&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	state = t.TempDir()
	q := queuetest.Open(t, queue.Open, state)
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 1} }); err != nil {
		t.Fatal(err)
	}
	b := New(q, nil)
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	doc := openDoc(t, b, magnet)
	dest := t.TempDir()
	id, err := b.Add(context.Background(), ui.AddRequest{Source: magnet, Doc: doc, Dir: dest})
	if err != nil {
		t.Fatal(err)
	}
	waitForJob(t, b, id, "the torrent to seed", func() bool { return slices.Contains(b.runner.Seeding(), int64(id)) })
	file = filepath.Join(dest, "again.bin")
	b.Close()
	if s, err := q.Seeded(int64(id)); err != nil || !s.Active || s.Uploaded != 0 {
		t.Fatalf("after quitting while seeding: %+v %v; want it to seed on, nothing uploaded", s, err)
	}
	q.Close()
	return state, id, file, mi, data
}

func TestSeedingGoesOnAfterARestart(t *testing.T) {
	t.Parallel()
	state, id, file, mi, data := seedingAtQuit(t)
	before, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}

	// The next start.
	q := queuetest.Open(t, queue.Open, state)
	b := startedBackend(t, q)
	testkit.WaitFor(t, "it to seed again", func() bool { return slices.Contains(b.runner.Seeding(), int64(id)) })
	testkit.WaitFor(t, "its row to say so", func() bool { return jobByID(t, b, id).State == ui.Seeding })
	tj, ok := b.runner.LiveTorrent(int64(id))
	if !ok {
		t.Fatal("no live torrent for the job seeding")
	}
	if s := tj.Snapshot(); s.Mirrors[0].Bytes != 0 || s.Verified != len(s.Pieces) {
		t.Errorf("seeding again fetched %d bytes; %d of %d pieces done", s.Mirrors[0].Bytes, s.Verified, len(s.Pieces))
	}
	if after, err := os.Stat(file); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the file was written again: %v", err)
	}
	c, err := b.runner.TorrentClient()
	if err != nil {
		t.Fatal(err)
	}
	dir, complete := torrenttest.Leech(t, mi, fmt.Sprintf("127.0.0.1:%d", c.Port()))
	select {
	case <-complete:
	case <-time.After(time.Minute):
		t.Fatal("the leecher did not get the file from the restarted Braid")
	}
	if got, err := os.ReadFile(filepath.Join(dir, "again.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the leecher's file: %v", err)
	}
	testkit.WaitFor(t, "the ratio of 1 to end the seeding", func() bool { return !slices.Contains(b.runner.Seeding(), int64(id)) })
	testkit.WaitFor(t, "its row to show it done", func() bool { return jobByID(t, b, id).State == ui.Done })
	b.Close()
	s, err := q.Seeded(int64(id))
	if err != nil || s.Active || s.Uploaded < int64(len(data)) {
		t.Fatalf("after the ratio: %+v %v", s, err)
	}
	q.Close()

	q = queuetest.Open(t, queue.Open, state)
	b = startedBackend(t, q)
	time.Sleep(time.Second)
	if slices.Contains(b.runner.Seeding(), int64(id)) {
		t.Fatal("it seeds again after reaching its ratio")
	}
	if j := jobByID(t, b, id); j.State != ui.Done {
		t.Errorf("row %v after its ratio", j.State)
	}
}

// A torrent that was seeding when Braid stopped, whose file is then moved
// away or changed, does not seed on at the next start, and its row says
// why in words (it said so only in the log): the file is no longer in
// its folder, or it has changed. The Files tab says the same, not
// "Verified".
func TestRowSaysWhyATorrentDoesNotSeedOn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		change func(file string) error
		want   string
		file   ui.FileState // in the Files tab
	}{
		{"gone", func(f string) error { return os.Rename(f, f+".moved") }, "not seeding: again.bin is no longer in its folder", ui.FileMissing},
		{"changed", func(f string) error { return os.Truncate(f, 1000) }, "not seeding: again.bin has changed since it was downloaded", ui.FileChanged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state, id, file, _, _ := seedingAtQuit(t)
			if err := tc.change(file); err != nil {
				t.Fatal(err)
			}
			q := queuetest.Open(t, queue.Open, state)
			defer q.Close()
			b := startedBackend(t, q)
			var j ui.Job
			testkit.WaitFor(t, "the row to say why it does not seed", func() bool {
				j = jobByID(t, b, id)
				return j.SeedNote != ""
			})
			if j.State != ui.Done || j.SeedNote != tc.want {
				t.Errorf("row %v, %q; want done, %q", j.State, j.SeedNote, tc.want)
			}
			if slices.Contains(b.runner.Seeding(), int64(id)) {
				t.Error("it seeds over a file that is not the torrent's")
			}
			// The Files tab does not call a file that is gone verified.
			d, err := b.Detail(id, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Files) != 1 || d.Files[0].State != tc.file {
				t.Errorf("files %+v; want one, %v", d.Files, tc.file)
			}
		})
	}
}
