package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/par2"
	"braid/engine/piece"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// pathServer serves files by path with real Range semantics and counts
// the requests for each.
type pathServer struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string][]byte
	reqs  map[string]int
}

func newPathServer(t *testing.T, files map[string][]byte) *pathServer {
	s := &pathServer{files: files, reqs: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		s.mu.Lock()
		s.reqs[name]++
		data, ok := s.files[name]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *pathServer) asked(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[name]
}

// paritySetFor writes data as name in a scratch folder, makes its PAR2
// set and returns the set's files by name.
func paritySetFor(t *testing.T, name string, data []byte, opt par2.CreateOptions) map[string][]byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	paths, err := par2.Create(context.Background(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}

// TestRunRebuildsFromParity: a queue run shares get's fetch, and so its
// rebuild from parity: two mirrors send the same 3 pieces bad, the
// job's document lists the parity set, and the job ends done and
// verified, 3 pieces rebuilt, the set's scratch folder gone.
func TestRunRebuildsFromParity(t *testing.T) {
	t.Parallel()
	const pl = 4 << 10
	data := testkit.Data(128 * pl)
	bad := bytes.Clone(data)
	for _, p := range []int{20, 21, 90} {
		bad[p*pl+7] ^= 0xff
	}
	set := paritySetFor(t, "r.bin", data, par2.CreateOptions{Percent: 10, SliceSize: 1000})
	files := map[string][]byte{"r.bin": bad}
	for n, b := range set {
		files[n] = b
	}
	a, b := newPathServer(t, files), newPathServer(t, maps.Clone(files))
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), "r.bin", pl, 0)
	if err != nil {
		t.Fatal(err)
	}
	doc := &metalink.Document{Version: 4}
	add := func(f metalink.File) {
		for i, s := range []*pathServer{a, b} {
			f.URLs = append(f.URLs, metalink.URL{URL: s.URL + "/" + f.Name, Priority: i + 1})
		}
		doc.Files = append(doc.Files, f)
	}
	add(f)
	for _, n := range slices.Sorted(maps.Keys(set)) {
		sum := sha256.Sum256(set[n])
		add(metalink.File{Name: n, Size: int64(len(set[n])), Hashes: []metalink.Hash{{Type: "sha-256", Value: hex.EncodeToString(sum[:])}}})
	}
	qdir := t.TempDir()
	q := queuetest.Open(t, queue.Open, qdir)
	dest := t.TempDir()
	id, err := q.Add(queue.NewJob{Source: "r.meta4", Dest: dest, Doc: doc, Selected: []string{"r.bin"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	r := runner(q)
	r.Observer = rec
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "r.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the file is not the original: %v", err)
	}
	if s, _ := q.StateOf(id); s != queue.Done {
		t.Fatalf("job: %s; want done", s)
	}
	rec.mu.Lock()
	res := rec.results
	rec.mu.Unlock()
	if len(res) != 1 || res[0].Snapshot == nil || res[0].Snapshot.Rebuilt != 3 || res[0].Snapshot.VerifiedBy != "sha-256" {
		t.Fatalf("results %+v", res)
	}
	rebuilt := 0
	for i, fl := range res[0].Snapshot.Filler {
		if fl == engine.FilledByParity {
			rebuilt++
			if i != 20 && i != 21 && i != 90 {
				t.Errorf("piece %d, which the mirrors sent good, is marked rebuilt", i)
			}
		}
	}
	if rebuilt != 3 {
		t.Errorf("%d pieces marked rebuilt in the map, want 3", rebuilt)
	}
	if a.asked("r.bin.par2")+b.asked("r.bin.par2") == 0 {
		t.Error("the index was not fetched")
	}
	if left, _ := os.ReadDir(dest); len(left) != 1 {
		t.Errorf("the folder holds %d entries, want only r.bin", len(left))
	}
	// The queue keeps the count with how the file was verified, across a
	// restart.
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	q = queuetest.Open(t, queue.Open, qdir)
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if f := j.Files[0]; f.Name != "r.bin" || !f.Verified || f.VerifiedBy != "sha-256" || f.Rebuilt != 3 {
		t.Errorf("after a reopen the queue has %s verified %v by %q, %d pieces rebuilt; want r.bin by sha-256, 3 rebuilt", f.Name, f.Verified, f.VerifiedBy, f.Rebuilt)
	}
}

// smallestVolumes is the cheapest set by bytes that holds the blocks:
// checked against every subset, over random volumes.
func TestSmallestVolumes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 300; round++ {
		n := 1 + rng.IntN(8)
		vols := make([]ParityVolume, n)
		total := 0
		for i := range vols {
			vols[i] = ParityVolume{File: metalink.File{Name: fmt.Sprint(i), Size: int64(1 + rng.IntN(1000))}, Blocks: 1 + rng.IntN(40)}
			total += vols[i].Blocks
		}
		need := 1 + rng.IntN(total+5)
		best := int64(-1)
		for mask := 0; mask < 1<<n; mask++ {
			var cost int64
			blocks := 0
			for i := range vols {
				if mask&(1<<i) != 0 {
					cost += vols[i].File.Size
					blocks += vols[i].Blocks
				}
			}
			if blocks >= need && (best < 0 || cost < best) {
				best = cost
			}
		}
		got := smallestVolumes(vols, need, 100)
		var cost int64
		blocks := 0
		for _, i := range got {
			cost += vols[i].File.Size
			blocks += vols[i].Blocks
		}
		switch {
		case best < 0 && got != nil:
			t.Fatalf("round %d: need %d of %d blocks: picked %v, want none", round, need, total, got)
		case best >= 0 && (blocks < need || cost != best):
			t.Fatalf("round %d: need %d: picked %v (%d blocks, %d bytes), cheapest is %d bytes", round, need, got, blocks, cost, best)
		}
	}
}

// probeVolumes finds par2cmdline-named volumes beside an index URL with
// HEAD requests, only as many as the damage needs.
func TestProbeVolumes(t *testing.T) {
	t.Parallel()
	data := testkit.Data(200 << 10)
	set := paritySetFor(t, "p.bin", data, par2.CreateOptions{Blocks: 100}) // 1, 2, 4, ... 32, 37
	s := newPathServer(t, set)
	index := metalink.File{Name: "p.bin.par2", Size: -1, URLs: []metalink.URL{{URL: s.URL + "/p.bin.par2"}}}
	for _, tc := range []struct {
		need int
		want []string
	}{
		{1, []string{"p.bin.vol00+01.par2"}},
		{10, []string{"p.bin.vol00+01.par2", "p.bin.vol01+02.par2", "p.bin.vol03+04.par2", "p.bin.vol07+08.par2"}},
		{100, []string{"p.bin.vol00+01.par2", "p.bin.vol01+02.par2", "p.bin.vol03+04.par2", "p.bin.vol07+08.par2",
			"p.bin.vol15+16.par2", "p.bin.vol31+32.par2", "p.bin.vol63+37.par2"}},
	} {
		vols, err := probeVolumes(context.Background(), http.DefaultClient, index, tc.need)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range vols {
			got = append(got, v.File.Name)
			if v.File.Size != int64(len(set[v.File.Name])) || volumeBlocks(v.File.Name) != v.Blocks {
				t.Errorf("%s: size %d, %d blocks", v.File.Name, v.File.Size, v.Blocks)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("need %d: found %v, want %v", tc.need, got, tc.want)
		}
	}
}
