package torrent

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anacrolix/torrent/metainfo"

	"braid/engine"
	"braid/internal/testkit"
)

// slowLeecher starts mi from a real seeder into a new folder through a
// client held to limit bytes per second, so the download is still under
// way when the test looks.
func slowLeecher(t *testing.T, mi *metainfo.MetaInfo, addr string, limit int64, cfg Config) (*Job, *Client, string) {
	t.Helper()
	cfg.ListenHost, cfg.Logger, cfg.DownloadLimit = "127.0.0.1", discard, limit
	c := NewClient(cfg)
	t.Cleanup(func() { c.Close() })
	spec := specOf(t, mi)
	spec.Peers = []string{addr}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	j, err := c.Start(ctx, &Request{Dir: dir, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Stop)
	return j, c, dir
}

// seeded is a torrent of one 4 MiB file named name, its data, and the
// address of a real seeder of it.
func seeded(t *testing.T, name string) ([]byte, *metainfo.MetaInfo, string) {
	t.Helper()
	src := t.TempDir()
	data := randomBytes(t, 4<<20)
	mi := makeTorrent(t, src, name, []testFile{{Data: data}})
	return data, mi, seeder(t, src, mi)
}

// The peers of a running torrent name the real seeder it downloads from:
// its address, a seeder with every piece, the program its handshake
// names, the flags the library's status text gives, and a download rate
// once bytes have come.
func TestPeersListsTheSeeder(t *testing.T) {
	t.Parallel()
	data, mi, addr := seeded(t, "p.bin")
	j, _, _ := slowLeecher(t, mi, addr, 256<<10, Config{})

	var got []Peer
	testkit.WaitWithin(t, time.Minute, "the seeder to send data", func() bool {
		got = j.Peers()
		return len(got) == 1 && got[0].Downloaded > 0 && got[0].Flags
	})
	// Read once a second, as the Peers tab does: the rate settles from
	// the first burst (the limiter starts with a full bucket).
	for range 5 {
		time.Sleep(time.Second)
		got = j.Peers()
	}
	t.Logf("peer: %+v; %d bytes in %v", got, got[0].Downloaded, j.Snapshot().Elapsed)
	if len(got) != 1 {
		t.Fatalf("peers: %+v", got)
	}
	p := got[0]
	if p.Addr != addr {
		t.Errorf("peer address %q, the seeder is at %q", p.Addr, addr)
	}
	if p.IP != "127.0.0.1" || fmt.Sprint(p.Port) != addr[strings.LastIndex(addr, ":")+1:] {
		t.Errorf("peer ip %q port %d", p.IP, p.Port)
	}
	if !p.Seeder || p.Progress() != 1 || p.Pieces != p.NumPieces || p.NumPieces != len(data)/testPieceLen {
		t.Errorf("the seeder shows %d of %d pieces (seeder %v)", p.Pieces, p.NumPieces, p.Seeder)
	}
	for i, b := range p.Bitfield {
		if b != 0xff {
			t.Fatalf("bitfield byte %d is %#x, the seeder has every piece", i, b)
		}
	}
	// The seeder is anacrolix/torrent: its extended handshake says so.
	if !strings.Contains(strings.ToLower(p.Client), "torrent") {
		t.Errorf("client %q", p.Client)
	}
	if !p.AmInterested || p.PeerChoking {
		t.Errorf("downloading from an unchoking seeder, flags: interested %v, choked %v", p.AmInterested, p.PeerChoking)
	}
	if p.Source != "direct" {
		t.Errorf("source %q, the seeder was given with the spec", p.Source)
	}
	if p.DownRate <= 0 || p.DownRate > 2*256<<10 {
		t.Errorf("download rate %.0f B/s under a limit of %d", p.DownRate, 256<<10)
	}
}

// A torrent with a tracker shows it: with trackers off (Braid's peer
// discovery setting), as disabled; with them on, as working once
// opentracker (a real tracker, not ours) has answered, with the peers it
// gave and a next announce; a tracker nobody listens on as failed, with
// the library's reason.
//
// Not parallel: opentracker, a separate program, listens on a port found
// free a moment before, and a dial that another test's listener on that
// port answered would pass for it.
func TestTrackersOfATorrent(t *testing.T) {
	bin, err := exec.LookPath("opentracker")
	if err != nil {
		t.Skip("opentracker is not installed (Debian: opentracker)")
	}
	src := t.TempDir()
	data := randomBytes(t, 1<<20)
	mi := makeTorrent(t, src, "t.bin", []testFile{{Data: data}})
	addr := seeder(t, src, mi)
	port := testkit.FreePort(t)
	startOpentracker(t, bin, port, mi.HashInfoBytes())
	good := fmt.Sprintf("http://127.0.0.1:%d/announce", port)
	dead := fmt.Sprintf("http://127.0.0.1:%d/announce", testkit.FreePort(t))
	mi.AnnounceList = [][]string{{good}, {dead}}

	off, _, _ := slowLeecher(t, mi, addr, 64<<10, Config{})
	trs := off.Trackers()
	if len(trs) != 2 || trs[0].URL != good || trs[1].URL != dead || trs[1].Tier != 1 {
		t.Fatalf("trackers: %+v", trs)
	}
	for _, tr := range trs {
		if tr.Status != TrackerDisabled {
			t.Errorf("%s with trackers off: %v", tr.URL, tr.Status)
		}
	}
	off.Stop()

	j, _, _ := slowLeecher(t, mi, addr, 64<<10, Config{Trackers: true})
	testkit.WaitWithin(t, time.Minute, "both announces to end", func() bool {
		trs = j.Trackers()
		return len(trs) == 2 && trs[0].Status != TrackerNotContacted && trs[1].Status != TrackerNotContacted
	})
	t.Logf("trackers: %+v", trs)
	if trs[0].Status != TrackerWorking || trs[0].Peers < 0 || trs[0].NextAnnounce <= 0 {
		t.Errorf("opentracker: %v %q, %d peers, next in %v", trs[0].Status, trs[0].Err, trs[0].Peers, trs[0].NextAnnounce)
	}
	if trs[1].Status != TrackerFailed || !strings.Contains(trs[1].Err, "refused") {
		t.Errorf("a closed port: %v %q", trs[1].Status, trs[1].Err)
	}
}

// Skipping a file of a running two-file torrent takes effect at once:
// the job completes with the other file verified, and the skipped file's
// bytes beyond what had come before are never fetched.
func TestSkipAFileWhileRunning(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	const size = 1 << 20 // a whole number of pieces: no piece is shared
	a, b := randomBytes(t, size), randomBytes(t, size+testPieceLen)
	mi := makeTorrent(t, src, "two", []testFile{{Path: "a.bin", Data: a}, {Path: "b.bin", Data: b}})
	addr := seeder(t, src, mi)
	j, c, dir := slowLeecher(t, mi, addr, 128<<10, Config{})

	testkit.WaitWithin(t, time.Minute, "the file list", func() bool { return len(j.Files()) == 2 })
	if err := j.SetPriority("two/b.bin", Skip); err != nil {
		t.Fatal(err)
	}
	if err := j.SetPriority("two/a.bin", Skip); err == nil {
		t.Fatal("the last wanted file was skipped")
	}
	var before int64
	for _, f := range j.Snapshot().Files {
		if f.Name == "two/b.bin" {
			before = f.Bytes
		}
	}
	if w := j.Wanted(); len(w) != 1 || w[0] != "two/a.bin" {
		t.Fatalf("wanted: %v", w)
	}
	c.SetLimits(0, 0)
	select {
	case <-j.Complete():
	case <-time.After(2 * time.Minute):
		t.Fatal("the job did not complete without the skipped file")
	}
	if err := j.Err(); err != nil {
		t.Fatal(err)
	}
	sameFile(t, dir, "two/a.bin", a)
	if _, err := os.Stat(filepath.Join(dir, "two", "b.bin")); !os.IsNotExist(err) {
		t.Fatalf("the skipped b.bin is at its final name: %v", err)
	}
	var after int64
	for _, f := range j.Snapshot().Files {
		if f.Name == "two/b.bin" {
			after = f.Bytes
		}
	}
	// Requests in flight when it was skipped may still land: a few pieces.
	if after > before+4*testPieceLen {
		t.Errorf("b.bin: %d bytes when skipped, %d after the job (of %d)", before, after, len(b))
	}
	t.Logf("b.bin: %d bytes when skipped, %d at the end, of %d", before, after, len(b))
}

// startOpentracker runs opentracker on 127.0.0.1:port for the one info
// hash until the test ends (chrooted, as nobody, into a folder of its
// own, as it insists).
func startOpentracker(t *testing.T, bin string, port int, ih metainfo.Hash) {
	t.Helper()
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "whitelist"), []byte(ih.HexString()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := fmt.Sprint(port)
	cmd := exec.Command(bin, "-i", "127.0.0.1", "-p", p, "-P", p, "-d", root, "-u", "nobody", "-w", "/whitelist")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	testkit.WaitWithin(t, time.Minute, "opentracker to listen", func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+p)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// What a look at a torrent's peers and trackers costs: the Peers tab
// reads once a second while it shows, so this is the whole cost of
// watching a torrent (nothing is gathered while nobody looks).
func BenchmarkPeersAndTrackers(b *testing.B) {
	src := b.TempDir()
	mi := makeTorrent(b, src, "bench.bin", []testFile{{Data: randomBytes(b, 4<<20)}})
	addr := seeder(b, src, mi)
	mi.AnnounceList = [][]string{{"http://127.0.0.1:1/announce"}}
	c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, DownloadLimit: 16 << 10, Trackers: true})
	b.Cleanup(func() { c.Close() })
	spec := specOf(b, mi)
	spec.Peers = []string{addr}
	j, err := c.Start(context.Background(), &Request{Dir: b.TempDir(), Spec: spec})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(j.Stop)
	for deadline := time.Now().Add(time.Minute); len(j.Peers()) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("no peer")
		}
	}
	b.Run("peers", func(b *testing.B) {
		for b.Loop() {
			if len(j.Peers()) != 1 {
				b.Fatal("the peer is gone")
			}
		}
	})
	b.Run("trackers", func(b *testing.B) {
		for b.Loop() {
			j.Trackers()
		}
	})
}

// A seeding torrent wants nothing: its peers do not read "interested"
// (the Peers tab said "downloading" beside a seeding torrent), though the
// library keeps the interest it once showed. Braid A fetches from a seeder
// and from Braid B, a slower leecher that had pieces A lacked; once A
// seeds, B is still there, downloading from it. Once B has its first
// pieces its limit drops to 64 KiB/s, a minute for the rest: at 512 KiB/s
// a loaded machine once let B finish before A seeded, and no leecher was
// left to read.
func TestSeedingTorrentIsNotInterested(t *testing.T) {
	t.Parallel()
	_, mi, addr := seeded(t, "s.bin")
	limit := engine.NewLimiter(512 << 10)
	bj, bc, _ := slowLeecher(t, mi, addr, 512<<10, Config{Downloads: limit})
	testkit.WaitWithin(t, time.Minute, "B's first pieces", func() bool { return bj.Snapshot().Verified >= 4 })
	limit.SetRate(64 << 10)

	ac := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, DownloadLimit: 1 << 20})
	t.Cleanup(func() { ac.Close() })
	spec := specOf(t, mi)
	spec.Peers = []string{addr, fmt.Sprintf("127.0.0.1:%d", bc.Port())}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, err := ac.Start(ctx, &Request{Dir: t.TempDir(), Spec: spec, SeedTime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Stop)
	interested := false
	testkit.WaitWithin(t, time.Minute, "A to seed", func() bool {
		for _, p := range a.Peers() {
			interested = interested || p.AmInterested && p.Port == bc.Port()
		}
		return a.Snapshot().Phase == PhaseSeeding
	})
	if !interested {
		t.Skip("A never wanted a piece of B's, so there was no interest to keep")
	}
	var b *Peer
	testkit.WaitWithin(t, time.Minute, "B's flags as a peer of the seeding A", func() bool {
		for _, p := range a.Peers() {
			if p.Flags && !p.Seeder {
				b = &p
				return true
			}
		}
		return false
	})
	if b.AmInterested {
		t.Errorf("a seeding torrent reads interested in %s (%+v)", b.Addr, *b)
	}
}
