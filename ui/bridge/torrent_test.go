package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/torrent"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/ui"
)

// torrentQueue is a queue whose BitTorrent settings keep the client to
// the peers and web seeds a source names (no trackers, DHT or PEX).
func torrentQueue(t *testing.T, seedRatio float64) *queue.Queue {
	t.Helper()
	q := openQueue(t)
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: seedRatio} }); err != nil {
		t.Fatal(err)
	}
	return q
}

// startedBackend is a backend over q whose runner waits for the first
// job.
func startedBackend(t *testing.T, q *queue.Queue) *Backend {
	t.Helper()
	b := newBackend(t, q)
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	return b
}

// openDoc reads src as the window's picker does.
func openDoc(t *testing.T, b *Backend, src string) *metalink.Document {
	t.Helper()
	doc, err := b.Open(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// A .torrent opened and added through the window downloads the files
// ticked in the picker from its web seed, and only those; the details
// show each file's slice of the torrent's piece map, coloured by the web
// seed that sent the pieces.
func TestTorrentFileThroughTheWindow(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	files := []torrenttest.File{{Path: "a.bin", Data: payload(300<<10 + 1)}, {Path: "b/c.bin", Data: payload(200 << 10)}}
	mi := torrenttest.Make(t, src, "pack", 64<<10, files, torrenttest.ServeDir(t, src))
	tf := torrenttest.WriteFile(t, mi, "pack.torrent")

	q := torrentQueue(t, 0)
	b := startedBackend(t, q)
	dest := t.TempDir()
	id := pickOne(t, b, tf, map[string]int64{"pack/a.bin": 300<<10 + 1, "pack/b/c.bin": 200 << 10}, "pack/b/c.bin", dest)
	testkit.WaitFor(t, "the torrent job to finish", func() bool {
		j := jobByID(t, b, id)
		if j.State == ui.Failed {
			t.Fatalf("job failed: %s", j.Err)
		}
		return j.State == ui.Done
	})
	got, err := os.ReadFile(filepath.Join(dest, "pack", "b", "c.bin"))
	if err != nil || !bytes.Equal(got, files[1].Data) {
		t.Fatalf("c.bin: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, "pack", "a.bin")); !os.IsNotExist(err) {
		t.Fatalf("the unticked a.bin was written: %v", err)
	}

	d, err := b.Detail(id, true)
	if err != nil {
		t.Fatal(err)
	}
	// The unticked a.bin is listed after, skipped (and choosable: a
	// Resume would fetch it).
	if len(d.Files) != 2 || d.Files[0].Name != "pack/b/c.bin" || d.Files[1].Name != "pack/a.bin" || !d.Files[1].Skipped {
		t.Fatalf("details list %+v", d.Files)
	}
	fd := d.Files[0]
	// c.bin's 200 KiB run from 300 KiB+1 to 500 KiB+1: pieces 4 to 7.
	if len(fd.Pieces.State) != 4 {
		t.Fatalf("c.bin's piece map has %d pieces, want 4", len(fd.Pieces.State))
	}
	if len(fd.Mirrors) < 2 || fd.Mirrors[0].URL != "peers" {
		t.Fatalf("sources %+v: want the peers, then the web seed", fd.Mirrors)
	}
	for i, s := range fd.Pieces.State {
		if s != ui.PieceDone || fd.Pieces.Mirror[i] < 1 {
			t.Errorf("piece %d of c.bin: state %v, sent by source %d; want done by the web seed", i, s, fd.Pieces.Mirror[i])
		}
	}
	if fd.State != ui.FileVerified || fd.Done != 200<<10 {
		t.Errorf("c.bin in the details: %v, %d bytes", fd.State, fd.Done)
	}
}

// A magnet link with x.pe downloads from that peer: its row shows the
// peer, then seeding with its ratio; the details colour the pieces as
// the peers'; removing the job ends its seeding.
func TestMagnetThroughTheWindowSeeds(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := ownPayload(t, 512<<10)
	mi := torrenttest.Make(t, src, "one.bin", 64<<10, []torrenttest.File{{Data: data}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=one.bin&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	q := torrentQueue(t, 1)
	// Slow enough that the window sees the download under way.
	if err := q.UpdateSettings(func(s *queue.Settings) { s.SpeedLimit = 131072 }); err != nil {
		t.Fatal(err)
	}
	b := startedBackend(t, q)
	doc := openDoc(t, b, magnet)
	if len(doc.Files) != 1 || doc.Files[0].Name != "one.bin" || doc.Files[0].Size != int64(len(data)) {
		t.Fatalf("a magnet's picker entry after its metadata: %+v", doc.Files)
	}
	dest := t.TempDir()
	id, err := b.Add(context.Background(), ui.AddRequest{Source: magnet, Doc: doc, Dir: dest})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := b.CanRelink(id); ok {
		t.Error("a torrent is offered Change link…, which it cannot take")
	}
	var row ui.Job
	var peers, seeds int
	waitForJob(t, b, id, "the magnet's job to seed", func() bool {
		for _, j := range b.Active() {
			if j.ID == id {
				row = j
			}
		}
		if row.State == ui.Failed {
			t.Fatalf("job failed: %s", row.Err)
		}
		peers = max(peers, row.Peers)
		seeds = max(seeds, row.Seeds)
		return row.State == ui.Seeding
	})
	if peers < 1 || seeds < 1 {
		t.Errorf("the row showed at most %d peers, %d seeds; want the x.pe seeder", peers, seeds)
	}
	if row.Size != int64(len(data)) || row.Done != row.Size {
		t.Errorf("seeding row: %d of %d bytes", row.Done, row.Size)
	}
	got, err := os.ReadFile(filepath.Join(dest, "one.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("one.bin: %v", err)
	}
	d, err := b.Detail(id, true)
	if err != nil {
		t.Fatal(err)
	}
	if d.State != ui.Seeding || len(d.Files) != 1 {
		t.Fatalf("details: %v, files %+v", d.State, d.Files)
	}
	fd := d.Files[0]
	if len(fd.Pieces.State) != 8 {
		t.Fatalf("piece map of %d pieces, want 8", len(fd.Pieces.State))
	}
	for i, s := range fd.Pieces.State {
		if s != ui.PieceDone || fd.Pieces.Mirror[i] != 0 {
			t.Errorf("piece %d: state %v, sent by source %d; want done by the peers", i, s, fd.Pieces.Mirror[i])
		}
	}

	if err := b.Remove(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "seeding to end with the job", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		_, ok := b.liveTorrentLocked(int64(id))
		return !ok
	})
}

// The settings dialog's BitTorrent settings are the queue's: the defaults
// shown, what is saved stored, and what the dialog does not offer kept.
func TestTorrentSettingsThroughTheWindow(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	s, err := b.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if s.Torrent != (ui.TorrentSettings{SeedRatio: 1}) {
		t.Fatalf("default BitTorrent settings %+v, want ratio 1, any port, no limit", s.Torrent)
	}
	s.Torrent = ui.TorrentSettings{SeedRatio: 2.5, Port: 6881, UploadLimit: 300 << 10}
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	st, err := q.Settings()
	ts := st.Torrent
	if err != nil {
		t.Fatal(err)
	}
	if ts.SeedRatio != 2.5 || ts.Port != 6881 || ts.UploadLimit != 300<<10 || !ts.Discovery {
		t.Errorf("stored %+v", ts)
	}
	if got, err := b.Settings(); err != nil || got.Torrent != s.Torrent {
		t.Errorf("read back %+v, %v", got.Torrent, err)
	}
}

// Opening a magnet link whose metadata no peer sends waits for it until
// the window cancels the open. A job queued from such a link before its
// metadata was known (one placeholder file, as Braid queued magnets
// before) shows as fetching metadata, of unknown size, until it is
// removed.
func TestMagnetFetchingMetadata(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "lone.bin", 64<<10, []torrenttest.File{{Data: payload(128 << 10)}})
	// x.pe names a port nobody listens on: a listener closed at once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=lone.bin&x.pe=%s", mi.HashInfoBytes().HexString(), addr)
	q := torrentQueue(t, 0)
	b := startedBackend(t, q)

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := b.Open(ctx, magnet)
		errc <- err
	}()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a canceled open returned %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Open did not end with its context")
	}

	spec, err := torrent.ParseMagnet(magnet)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := torrent.Document(spec, magnet)
	if err != nil {
		t.Fatal(err)
	}
	id, err := b.Add(context.Background(), ui.AddRequest{Source: magnet, Doc: doc, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var row ui.Job
	testkit.WaitFor(t, "the row to say it fetches metadata", func() bool {
		for _, j := range b.Active() {
			if j.ID == id {
				row = j
			}
		}
		return row.State == ui.FetchingMetadata
	})
	if row.Size != -1 || row.Name != "lone.bin" {
		t.Errorf("row %q of size %d, want lone.bin of unknown size", row.Name, row.Size)
	}
	if err := b.Remove(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the runner to let the magnet go", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		_, ok := b.liveTorrentLocked(int64(id))
		return !ok
	})
}

// A magnet link opened through the window has its metadata fetched from
// its x.pe peer first: the picker is offered the torrent's real files and
// sizes, the one ticked alone is downloaded, and the job keeps the
// metadata, so its runs need no peer for it.
func TestMagnetPickerShowsFiles(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	files := []torrenttest.File{{Path: "a.bin", Data: payload(150<<10 + 3)}, {Path: "d/b.bin", Data: payload(90 << 10)}}
	mi := torrenttest.Make(t, src, "set", 32<<10, files)
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=shown&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	q := torrentQueue(t, 0)
	b := startedBackend(t, q)
	dest := t.TempDir()
	id := pickOne(t, b, magnet, map[string]int64{"set/a.bin": 150<<10 + 3, "set/d/b.bin": 90 << 10}, "set/d/b.bin", dest)
	stored, ok, err := q.TorrentSpec(int64(id))
	if err != nil || !ok || !bytes.Equal(stored.InfoBytes, mi.InfoBytes) {
		t.Fatalf("the job's torrent: stored %v (%v)", ok, err)
	}
	testkit.WaitFor(t, "the magnet's job to finish", func() bool {
		j := jobByID(t, b, id)
		if j.State == ui.Failed {
			t.Fatalf("job failed: %s", j.Err)
		}
		return j.State == ui.Done
	})
	got, err := os.ReadFile(filepath.Join(dest, "set", "d", "b.bin"))
	if err != nil || !bytes.Equal(got, files[1].Data) {
		t.Fatalf("b.bin: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, "set", "a.bin")); !os.IsNotExist(err) {
		t.Fatalf("the unticked a.bin was written: %v", err)
	}
}

// pickOne opens source through the bridge as the window does, fails
// unless the picker is offered exactly the files and sizes of want, and
// adds the job with only the file pick ticked, into dest.
func pickOne(t *testing.T, b *Backend, source string, want map[string]int64, pick, dest string) ui.JobID {
	t.Helper()
	doc := openDoc(t, b, source)
	sizes := map[string]int64{}
	for _, f := range doc.Files {
		sizes[f.Name] = f.Size
	}
	if !maps.Equal(sizes, want) {
		t.Fatalf("the picker is offered %v, want %v", sizes, want)
	}
	id, err := b.Add(context.Background(), ui.AddRequest{Source: source, Doc: doc, Dir: dest, Files: []string{pick}})
	if err != nil {
		t.Fatal(err)
	}
	return id
}
