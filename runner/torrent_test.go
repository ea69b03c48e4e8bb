package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anacrolix/torrent/metainfo"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/netconf"
	"braid/engine/netconf/netconftest"
	"braid/engine/torrent"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// torrentRunner is a runner whose BitTorrent client has discovery off and
// listens on loopback only.
func torrentRunner(t *testing.T, q *queue.Queue) *Runner {
	t.Helper()
	c := torrent.NewClient(torrent.Config{ListenHost: "127.0.0.1", Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { c.Close() })
	r := runner(q)
	r.Torrent = c
	return r
}

// addTorrent queues the .torrent at tf (or a magnet link, as one file
// standing for the torrent) into dest, with the given files selected
// (nil: all).
func addTorrent(t *testing.T, q *queue.Queue, tf, dest string, selected []string) int64 {
	t.Helper()
	spec, err := torrent.Resolve(context.Background(), tf, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := torrent.Document(spec, tf)
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Source: tf, Dest: dest, Doc: doc, Selected: selected})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestRunTorrentJob(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	files := []torrenttest.File{{Path: "a.bin", Data: testkit.Data(300<<10 + 1)}, {Path: "b/c.bin", Data: testkit.Data(200 << 10)}}
	// The torrent's data comes from its web seed: a file server of the
	// folder Make wrote it to (its URL without the trailing slash that
	// BEP 19 wants for a folder; Braid adds it).
	mi := torrenttest.Make(t, src, "pack", 64<<10, files, torrenttest.ServeDir(t, src))
	tf := torrenttest.WriteFile(t, mi, "pack.torrent")

	q := noSeedQueue(t)
	dest := t.TempDir()
	id := addTorrent(t, q, tf, dest, []string{"pack/b/c.bin"})
	r := torrentRunner(t, q)
	if err := r.RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != queue.Done {
		t.Fatalf("job %s: %s", j.State, j.Error)
	}
	for _, f := range j.Files {
		if f.Verified != (f.Name == "pack/b/c.bin") {
			t.Fatalf("file %s verified %v", f.Name, f.Verified)
		}
	}
	got, err := os.ReadFile(filepath.Join(dest, "pack", "b", "c.bin"))
	if err != nil || !bytes.Equal(got, files[1].Data) {
		t.Fatalf("c.bin: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, "pack", "a.bin")); !os.IsNotExist(err) {
		t.Fatalf("the unselected a.bin is at its final name: %v", err)
	}
	// The queue, read back as after a restart, shows the job's bytes done
	// (a torrent's pieces are recorded apart from HTTP files' pieces).
	listed, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, lj := range listed {
		if lj.ID != id {
			continue
		}
		if _, _, done, size := lj.Progress(); done != size || size != int64(len(files[1].Data)) {
			t.Fatalf("listed: %d of %d bytes done, want %d of %d", done, size, len(files[1].Data), len(files[1].Data))
		}
	}
}

// A finished torrent seeds on after its job is done, visibly, until it
// is stopped.
func TestTorrentSeedsAfterDone(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := testkit.Data(256 << 10)
	m := mirrortest.New(t, data)
	mi := torrenttest.Make(t, src, "s.bin", 64<<10, []torrenttest.File{{Data: data}}, m.URL())
	tf := torrenttest.WriteFile(t, mi, "s.torrent")
	q := queuetest.Open(t, queue.Open, t.TempDir())
	st, err := q.Settings()
	ts := st.Torrent
	if err != nil {
		t.Fatal(err)
	}
	if ts.SeedRatio != 1 || !ts.Discovery {
		t.Fatalf("default settings %+v, want ratio 1 and discovery on", ts)
	}
	id := addTorrent(t, q, tf, t.TempDir(), nil)
	r := torrentRunner(t, q)
	if err := r.RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Get(id); j.State != queue.Done {
		t.Fatalf("job %s", j.State)
	}
	tj, ok := r.LiveTorrent(id)
	if !ok {
		t.Fatal("the done torrent is not seeding")
	}
	if s := tj.Snapshot(); s.Phase != torrent.PhaseSeeding || s.Phase.String() != "seeding" {
		t.Fatalf("phase %v", s.Phase)
	}
	r.StopSeeding(id)
	select {
	case <-tj.Done():
	case <-time.After(time.Minute):
		t.Fatal("seeding did not stop")
	}
	if s := tj.Snapshot(); s.Phase != torrent.PhaseDone {
		t.Fatalf("phase %v after stop", s.Phase)
	}
}

// Pausing a running torrent job stops it with its pieces kept.
func TestTorrentJobPause(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := testkit.Data(2 << 20)
	slow := mirrortest.New(t, data, mirrortest.Rate(128<<10))
	mi := torrenttest.Make(t, src, "p.bin", 64<<10, []torrenttest.File{{Data: data}}, slow.URL())
	tf := torrenttest.WriteFile(t, mi, "p.torrent")
	q := queuetest.Open(t, queue.Open, t.TempDir())
	id := addTorrent(t, q, tf, t.TempDir(), nil)
	r := torrentRunner(t, q)
	errc := make(chan error, 1)
	go func() { errc <- r.RunJob(context.Background(), id) }()
	testkit.WaitFor(t, "a piece", func() bool {
		tj, ok := r.LiveTorrent(id)
		return ok && tj.Snapshot().Verified > 0
	})
	if err := q.Pause(id, ""); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("RunJob returned nil for a paused job")
		}
	case <-time.After(time.Minute):
		t.Fatal("pause did not stop the job")
	}
	comp, _ := q.TorrentPieces(mustJob(t, q, id).Dest)
	got, _ := comp.Load(mi.HashInfoBytes().HexString())
	if len(got) == 0 {
		t.Fatal("no piece recorded before the pause")
	}
	// The paused job shows what it keeps (the row, queue list), not 0 %:
	// at least the recorded pieces, at most the file.
	recorded := int64(0)
	for _, done := range got {
		if done {
			recorded += 64 << 10
		}
	}
	_, _, doneBytes, size := mustJob(t, q, id).Progress()
	if doneBytes < recorded || doneBytes > size {
		t.Errorf("the paused job shows %d of %d bytes; %d were recorded", doneBytes, size, recorded)
	}
}

func mustJob(t *testing.T, q *queue.Queue, id int64) queue.Job {
	t.Helper()
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// noSeedQueue is a test queue whose finished torrents do not seed.
func noSeedQueue(t *testing.T) *queue.Queue {
	t.Helper()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 0} }); err != nil {
		t.Fatal(err)
	}
	return q
}

// webSeeded makes a one-file torrent of size bytes whose data comes from
// a mirror test server as its web seed, and writes its .torrent.
func webSeeded(t *testing.T, name string, size int) (data []byte, mi *metainfo.MetaInfo, tf string) {
	t.Helper()
	data = testkit.Data(size)
	m := mirrortest.New(t, data)
	mi = torrenttest.Make(t, t.TempDir(), name, 64<<10, []torrenttest.File{{Data: data}}, m.URL())
	return data, mi, torrenttest.WriteFile(t, mi, name+".torrent")
}

// A job added from a local .torrent file, with the torrent stored as the
// window's Add stores it, runs to completion after the .torrent file was
// deleted; removing the job removes what was stored.
func TestTorrentJobAfterTorrentFileDeleted(t *testing.T) {
	t.Parallel()
	data, _, tf := webSeeded(t, "gone.bin", 300<<10)
	q := noSeedQueue(t)
	spec, err := torrent.Resolve(context.Background(), tf, nil)
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	id := addTorrent(t, q, tf, dest, nil)
	if err := q.SetTorrentSpec(id, spec); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(tf); err != nil {
		t.Fatal(err)
	}
	r := torrentRunner(t, q)
	if err := r.RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if j := mustJob(t, q, id); j.State != queue.Done {
		t.Fatalf("job %s: %s", j.State, j.Error)
	}
	got, err := os.ReadFile(filepath.Join(dest, "gone.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("gone.bin: %v", err)
	}
	if err := q.Remove(id); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := q.TorrentSpec(id); ok || err != nil {
		t.Fatalf("the removed job's torrent is still stored (%v)", err)
	}
}

// A job queued before its torrent was stored resolves it on its first
// run and stores it, so the next run does not need the .torrent file.
func TestTorrentJobStoresItsSpec(t *testing.T) {
	t.Parallel()
	_, mi, tf := webSeeded(t, "s.bin", 200<<10)
	q := noSeedQueue(t)
	id := addTorrent(t, q, tf, t.TempDir(), nil)
	if _, ok, _ := q.TorrentSpec(id); ok {
		t.Fatal("a torrent is stored before any run")
	}
	if err := torrentRunner(t, q).RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	spec, ok, err := q.TorrentSpec(id)
	if err != nil || !ok {
		t.Fatalf("no torrent stored by the run (%v)", err)
	}
	if spec.InfoHash != mi.HashInfoBytes() || spec.Name != "s.bin" || !bytes.Equal(spec.InfoBytes, mi.InfoBytes) ||
		len(spec.WebSeeds) != 1 || spec.WebSeeds[0] != mi.UrlList[0] {
		t.Fatalf("stored %q %s, %d info bytes, web seeds %v", spec.Name, spec.InfoHash.HexString(), len(spec.InfoBytes), spec.WebSeeds)
	}
}

// A job queued from a magnet link before its metadata was known (one
// placeholder file) downloads every file from its x.pe peer and stores
// the metadata the peer sent, so the next run needs no peer for it.
func TestMagnetJobStoresItsMetadata(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	files := []torrenttest.File{{Path: "a.bin", Data: testkit.Data(100 << 10)}, {Path: "b.bin", Data: testkit.Data(70 << 10)}}
	mi := torrenttest.Make(t, src, "two", 32<<10, files)
	peer := torrenttest.Seed(t, src, mi)
	magnet := "magnet:?xt=urn:btih:" + mi.HashInfoBytes().HexString() + "&dn=two&x.pe=" + peer
	q := noSeedQueue(t)
	dest := t.TempDir()
	id := addTorrent(t, q, magnet, dest, nil)
	// Stored as the window stored a magnet before its metadata was known.
	spec, err := torrent.ParseMagnet(magnet)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.SetTorrentSpec(id, spec); err != nil {
		t.Fatal(err)
	}
	if err := torrentRunner(t, q).RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if j := mustJob(t, q, id); j.State != queue.Done {
		t.Fatalf("job %s: %s", j.State, j.Error)
	}
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(dest, "two", f.Path))
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Fatalf("%s: %v", f.Path, err)
		}
	}
	stored, ok, err := q.TorrentSpec(id)
	if err != nil || !ok {
		t.Fatalf("no torrent stored (%v)", err)
	}
	if !bytes.Equal(stored.InfoBytes, mi.InfoBytes) || stored.Name != "two" || len(stored.Peers) != 1 {
		t.Fatalf("stored %q with %d info bytes, peers %v; want the metadata the peer sent", stored.Name, len(stored.InfoBytes), stored.Peers)
	}
}

// A magnet job whose peer sends the metadata of another torrent fails,
// saying so, instead of downloading that torrent (anacrolix/torrent
// v1.59.1 takes any metadata for a v1 link); nothing is stored for it.
func TestMagnetJobRefusesAnotherTorrentsMetadata(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	wanted := torrenttest.Make(t, src, "wanted.bin", 32<<10, []torrenttest.File{{Data: testkit.Data(64 << 10)}})
	other := torrenttest.Make(t, src, "other.bin", 32<<10, []torrenttest.File{{Data: testkit.Data(96 << 10)}})
	liar := torrenttest.MetadataLiar(t, other.InfoBytes)
	magnet := "magnet:?xt=urn:btih:" + wanted.HashInfoBytes().HexString() + "&dn=wanted.bin&x.pe=" + liar
	q := noSeedQueue(t)
	dest := t.TempDir()
	id := addTorrent(t, q, magnet, dest, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := torrentRunner(t, q).RunJob(ctx, id)
	if err == nil || !strings.Contains(err.Error(), "not the link's") {
		t.Fatalf("RunJob: %v, want the metadata refused", err)
	}
	if j := mustJob(t, q, id); j.State != queue.Failed || !strings.Contains(j.Error, "not the link's") {
		t.Fatalf("job %s: %q", j.State, j.Error)
	}
	if stored, _, _ := q.TorrentSpec(id); stored != nil && stored.InfoBytes != nil {
		t.Fatal("the other torrent's metadata was stored")
	}
	if ents, err := os.ReadDir(dest); err != nil || len(ents) != 0 {
		t.Fatalf("%d entries written in the folder (%v)", len(ents), err)
	}
}

// TestMetalinkTorrentThroughProxy: a metalink that offers its file as a
// torrent (a metaurl) has its .torrent fetched through the client's proxy,
// as its mirrors are: the origin serves it only to requests that came
// through tinyproxy. Once fetched it is stored, and the job completes from
// the torrent's web seed. Both ways a run reads it: a file with no
// mirrors or hashes of its own (the torrent stands for it), and one with
// them (the torrent is checked against the file).
func TestMetalinkTorrentThroughProxy(t *testing.T) {
	t.Parallel()
	data, _, tf := webSeeded(t, "s.bin", 200<<10)
	raw, err := os.ReadFile(tf)
	if err != nil {
		t.Fatal(err)
	}
	proxy := netconftest.Tinyproxy(t, "", "")
	origin := netconftest.ProxiedOnly(t, map[string][]byte{"s.torrent": raw})
	n, err := netconf.NewNetwork(netconf.Proxy{Mode: netconf.ProxyManual, URL: proxy})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	for _, tc := range []struct {
		name   string
		hashes []metalink.Hash
	}{
		{"the torrent alone", nil},
		{"with the file's hash", []metalink.Hash{{Type: "sha-256", Value: hex.EncodeToString(sum[:])}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := metalink.File{Name: "s.bin", Size: int64(len(data)), Hashes: tc.hashes,
				MetaURLs: []metalink.MetaURL{{URL: origin.URL + "/p/s.torrent", MediaType: "torrent"}}}
			q := noSeedQueue(t)
			dest := t.TempDir()
			id, err := q.Add(queue.NewJob{Source: filepath.Join(t.TempDir(), "s.meta4"), Dest: dest,
				Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}})
			if err != nil {
				t.Fatal(err)
			}
			r := torrentRunner(t, q)
			r.Client = &engine.Client{Network: n}
			if err := r.RunJob(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			if j, _ := q.Get(id); j.State != queue.Done {
				t.Fatalf("job %s: %s", j.State, j.Error)
			}
			if _, ok, err := q.TorrentSpec(id); !ok || err != nil {
				t.Fatalf("no torrent stored (%v)", err)
			}
			if got, err := os.ReadFile(filepath.Join(dest, "s.bin")); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("s.bin: %v", err)
			}
		})
	}
}
