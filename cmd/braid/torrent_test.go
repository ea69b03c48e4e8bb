package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
)

// jsonLines parses get's --json output.
func jsonLines(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// A .torrent whose only source is its web seed: get prints the same
// --json lines as for HTTP, with the swarm's fields, and a second get on
// the same state finds every piece recorded and fetches nothing.
func TestGetTorrentFile(t *testing.T) {
	t.Parallel()
	data := getData(3<<20 + 17)
	m := mirrortest.New(t, data)
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "t.bin", 256<<10, []torrenttest.File{{Data: data}}, m.URL())
	tf := torrenttest.WriteFile(t, mi, "t.torrent")
	state, out := t.TempDir(), t.TempDir()
	var so, se bytes.Buffer
	code := cmdGet(context.Background(), []string{"--state", state, "-d", out, "--json", "--bt-discovery=false", tf}, &so, &se)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	got, err := os.ReadFile(filepath.Join(out, "t.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded file: %v (equal %v)", err, bytes.Equal(got, data))
	}
	lines := jsonLines(t, so.String())
	last := lines[len(lines)-1]
	if last["type"] != "result" || last["ok"] != true || last["file"] != "t.bin" || last["source"] != tf {
		t.Fatalf("last line %v", last)
	}
	progress := 0
	for _, l := range lines[:len(lines)-1] {
		if l["type"] != "progress" {
			t.Fatalf("line %v", l)
		}
		for _, k := range []string{"state", "size", "bytes", "pieces", "verified", "speed", "eta_seconds", "mirrors", "peers", "seeds", "uploaded", "ratio"} {
			if _, ok := l[k]; !ok {
				t.Fatalf("progress line without %q: %v", k, l)
			}
		}
		progress++
	}
	served := m.BytesServed()

	// queue list counts the torrent's own pieces (13 of 256 KiB), not the
	// queue's 1 MiB layout of its file (4).
	code, lout, lerr := runQueue(t, "--state", state, "list", "--json")
	var jobs []queueJob
	if err := json.Unmarshal([]byte(lout), &jobs); code != 0 || err != nil || len(jobs) != 1 {
		t.Fatalf("queue list: exit %d, %v, %s %s", code, err, lout, lerr)
	}
	if jobs[0].Pieces != 13 || jobs[0].PiecesDone != 13 {
		t.Errorf("queue list says %d of %d pieces done; the torrent has 13, all verified", jobs[0].PiecesDone, jobs[0].Pieces)
	}

	// Again, on the same state: nothing is fetched.
	so.Reset()
	if code := cmdGet(context.Background(), []string{"--state", state, "-d", out, "--bt-discovery=false", tf}, &so, &se); code != 0 {
		t.Fatalf("second get: exit %d: %s", code, se.String())
	}
	if !strings.Contains(so.String(), "t.bin: done, verified") {
		t.Fatalf("second get said %q", so.String())
	}
	if again := m.BytesServed() - served; again != 0 {
		t.Fatalf("the second get fetched %d bytes of a finished torrent", again)
	}
	t.Logf("%d progress lines", progress)
}

func TestGetMagnetFromPeer(t *testing.T) {
	t.Parallel()
	data := getData(1<<20 + 3)
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "m.bin", 64<<10, []torrenttest.File{{Data: data}})
	addr := torrenttest.Seed(t, src, mi)
	// No dn=: until the metadata comes the job's one file is named after
	// the info hash, its size not known.
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&x.pe=%s", mi.HashInfoBytes().HexString(), addr)
	out, state := t.TempDir(), t.TempDir()
	var so, se bytes.Buffer
	if code := cmdGet(context.Background(), []string{"--state", state, "-d", out, "--bt-discovery=false", magnet}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if !strings.Contains(so.String(), "m.bin: done, verified") {
		t.Fatalf("stdout %q", so.String())
	}
	// With no web seeds the swarm is the only source, said without a count.
	if !strings.Contains(so.String(), "m.bin: downloading 1.0 MiB from the swarm\n") {
		t.Errorf("stdout %q, want it to say the swarm is its only source", so.String())
	}
	got, err := os.ReadFile(filepath.Join(out, "m.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded file: %v", err)
	}
	// Once the metadata came the job has the torrent's file, by its name
	// and size: the queue says what was fetched.
	code, lout, lerr := runQueue(t, "--state", state, "list", "--json")
	var jobs []queueJob
	if err := json.Unmarshal([]byte(lout), &jobs); code != 0 || err != nil || len(jobs) != 1 {
		t.Fatalf("queue list: exit %d, %v, %s %s", code, err, lout, lerr)
	}
	if j := jobs[0]; j.Name != "m.bin" || j.Bytes != int64(len(data)) || j.BytesDone != int64(len(data)) || !slices.Equal(j.Files, []string{"m.bin"}) {
		t.Errorf("queue list: %s, files %v, %d of %d bytes; want m.bin, %d of %d", j.Name, j.Files, j.BytesDone, j.Bytes, len(data), len(data))
	}
}

// A magnet link's ws= web seed fetches the data: the link's only peer
// (x.pe) gives the metadata and has no piece.
func TestGetMagnetWebSeed(t *testing.T) {
	t.Parallel()
	data := getData(2<<20 + 5)
	m := mirrortest.New(t, data)
	mi := torrenttest.Make(t, t.TempDir(), "w.bin", 64<<10, []torrenttest.File{{Data: data}})
	peer := torrenttest.MetadataOnly(t, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=w.bin&x.pe=%s&ws=%s", mi.HashInfoBytes().HexString(), peer, url.QueryEscape(m.URL()))
	out := t.TempDir()
	code, stdout, stderr := runGet(t, "-d", out, "--bt-discovery=false", magnet)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "from the swarm and 1 web seed") || !strings.Contains(stdout, "w.bin: done, verified") {
		t.Fatalf("stdout %q", stdout)
	}
	got, err := os.ReadFile(filepath.Join(out, "w.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded file: %v", err)
	}
	if m.BytesServed() < int64(len(data)) {
		t.Fatalf("the web seed served %d bytes of %d", m.BytesServed(), len(data))
	}
}

// A metalink whose file names a torrent in a metaurl is fetched through
// the torrent, with the metalink's mirror as its web seed.
func TestGetMetalinkWithTorrent(t *testing.T) {
	t.Parallel()
	data := getData(2<<20 + 5)
	m := mirrortest.New(t, data)
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "ml.bin", 256<<10, []torrenttest.File{{Data: data}})
	tf := torrenttest.WriteFile(t, mi, "ml.torrent")
	base := torrenttest.ServeDir(t, filepath.Dir(tf))
	meta := writeMeta4(t, t.TempDir(), "ml.bin", data, 256<<10, "", m.URL())
	doc, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	doc = bytes.Replace(doc, []byte("</file>"), fmt.Appendf(nil, "<metaurl mediatype=\"torrent\">%s/ml.torrent</metaurl>\n</file>", base), 1)
	if err := os.WriteFile(meta, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runGet(t, "-d", out, "--bt-discovery=false", meta)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "from the swarm and 1 web seed\n") {
		t.Fatalf("stdout %q: the torrent was not used", stdout)
	}
	got, err := os.ReadFile(filepath.Join(out, "ml.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded file: %v", err)
	}
}

// Every torrent of one get goes through one BitTorrent client: two
// torrents side by side with --bt-port share the port instead of the
// second failing to listen on it.
func TestGetTwoTorrentsOnePort(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var sources []string
	var want [][]byte
	for i := range 2 {
		data := getData(512<<10 + i)
		src := t.TempDir()
		name := fmt.Sprintf("p%d.bin", i)
		mi := torrenttest.Make(t, src, name, 64<<10, []torrenttest.File{{Data: data}})
		addr := torrenttest.Seed(t, src, mi)
		sources = append(sources, fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=%s&x.pe=%s", mi.HashInfoBytes().HexString(), name, addr))
		want = append(want, data)
	}
	out := t.TempDir()
	args := append([]string{"-d", out, "--bt-discovery=false", "--bt-port", fmt.Sprint(port), "--jobs", "2"}, sources...)
	code, stdout, stderr := runGet(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stdout, stderr)
	}
	for i, data := range want {
		got, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("p%d.bin", i)))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("p%d.bin: %v", i, err)
		}
	}
}

// get --seed-time seeds a completed torrent for that long and then ends,
// done; what it seeded is recorded with the job. Ctrl-C while it seeds
// stops the seeding at once (exit 1, interrupted): the download stays
// done.
func TestGetSeedsThenEnds(t *testing.T) {
	t.Parallel()
	data := getData(1<<20 + 9)
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "s.bin", 64<<10, []torrenttest.File{{Data: data}})
	addr := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=s.bin&x.pe=%s", mi.HashInfoBytes().HexString(), addr)
	seeded := func(state string) queue.Seeded {
		t.Helper()
		q, err := queue.Open(state)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		jobs, err := q.List()
		if err != nil || len(jobs) != 1 || jobs[0].State != queue.Done {
			t.Fatalf("the queue holds %+v (%v); want one job, done", jobs, err)
		}
		s, err := q.Seeded(jobs[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	state := t.TempDir()
	var so, se bytes.Buffer
	if code := cmdGet(context.Background(), []string{"--state", state, "-d", t.TempDir(), "--bt-discovery=false", "--seed-time", "1s", magnet}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if !strings.Contains(so.String(), "s.bin: done, verified") {
		t.Fatalf("stdout %q", so.String())
	}
	if s := seeded(state); s.Time < time.Second || s.Active {
		t.Errorf("recorded seeding: %+v; want at least the second asked, and not to seed on", s)
	}

	state = t.TempDir()
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var lo lockedBuffer
	code := make(chan int, 1)
	go func() {
		var e bytes.Buffer
		code <- cmdGet(ctx, []string{"--state", state, "-d", out, "--bt-discovery=false", "--seed-ratio", "100", magnet}, &lo, &e)
	}()
	for end := time.Now().Add(time.Minute); !strings.Contains(lo.String(), "s.bin: done, verified"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the download never ended: %q", lo.String())
		}
	}
	cancel() // Ctrl-C while it seeds
	select {
	case c := <-code:
		if c != 1 {
			t.Errorf("Ctrl-C while seeding: exit %d, want 1 (interrupted)", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Ctrl-C did not stop the seeding")
	}
	seeded(state) // still one job, done
}
