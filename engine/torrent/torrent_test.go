package torrent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anacrolix/torrent/bencode"
	"github.com/anacrolix/torrent/metainfo"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
)

func TestFromLoopbackSeeder(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 200*testPieceLen+1234)
	mi := makeTorrent(t, src, "one.bin", []testFile{{Path: "", Data: data}})
	addr := seeder(t, src, mi)

	c := newTestClient(t)
	spec := specOf(t, mi)
	spec.Peers = []string{addr}
	dest := t.TempDir()
	j, err := run(t, c, &Request{Dir: dest, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	sameFile(t, dest, "one.bin", data)
	s := j.Snapshot()
	if s.Phase != PhaseDone || s.Verified != len(s.Pieces) || s.Bytes != int64(len(data)) || s.Size != int64(len(data)) {
		t.Fatalf("snapshot: phase %v, %d/%d pieces, %d/%d bytes", s.Phase, s.Verified, len(s.Pieces), s.Bytes, s.Size)
	}
	if s.Mirrors[0].Useful != int64(len(data)) {
		t.Fatalf("peers delivered %d useful bytes, want %d", s.Mirrors[0].Useful, len(data))
	}
	for i, f := range s.Filler {
		if f != 0 {
			t.Fatalf("piece %d filled by source %d, want the peers (0)", i, f)
		}
	}
}

func TestWebSeedOnly(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 7*testPieceLen+99)
	m := mirrortest.New(t, data)
	mi := makeTorrent(t, src, "web.bin", []testFile{{Path: "", Data: data}}, m.URL())

	dest := t.TempDir()
	j, err := run(t, newTestClient(t), &Request{Dir: dest, Spec: specOf(t, mi)})
	if err != nil {
		t.Fatal(err)
	}
	sameFile(t, dest, "web.bin", data)
	allFromWebSeed(t, j, m, len(data))
}

// allFromWebSeed fails unless m, the job's one web seed, served every
// piece of its n bytes.
func allFromWebSeed(t *testing.T, j *Job, m *mirrortest.Mirror, n int) {
	t.Helper()
	s := j.Snapshot()
	if len(s.Mirrors) != 2 || s.Mirrors[1].URL != m.URL() {
		t.Fatalf("mirrors %+v, want the swarm and the web seed", s.Mirrors)
	}
	for i, f := range s.Filler {
		if f != 1 {
			t.Fatalf("piece %d filled by source %d, want the web seed (1)", i, f)
		}
	}
	if m.BytesServed() < int64(n) {
		t.Fatalf("the web seed served %d bytes of %d", m.BytesServed(), n)
	}
}

// A multi-file web seed given without its trailing slash panics inside
// the library (upstream #1019) unless Braid adds the slash.
func TestMultiFileWebSeedWithoutSlash(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	a, b := randomBytes(t, 3*testPieceLen+5), randomBytes(t, 2*testPieceLen)
	mi := makeTorrent(t, src, "pack", []testFile{{Path: "a.bin", Data: a}, {Path: "sub/b.bin", Data: b}}, torrenttest.ServeDir(t, src))

	dest := t.TempDir()
	if _, err := run(t, newTestClient(t), &Request{Dir: dest, Spec: specOf(t, mi)}); err != nil {
		t.Fatal(err)
	}
	sameFile(t, dest, "pack/a.bin", a)
	sameFile(t, dest, "pack/sub/b.bin", b)
}

func TestMagnetWithPeer(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 5*testPieceLen)
	mi := makeTorrent(t, src, "mag.bin", []testFile{{Path: "", Data: data}})
	addr := seeder(t, src, mi)
	ih := mi.HashInfoBytes()

	spec, err := Resolve(context.Background(), "magnet:?xt=urn:btih:"+ih.HexString()+"&dn=mag.bin&x.pe="+addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if spec.InfoBytes != nil || len(spec.Peers) != 1 {
		t.Fatalf("magnet spec %+v", spec)
	}
	dest := t.TempDir()
	if _, err := run(t, newTestClient(t), &Request{Dir: dest, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	sameFile(t, dest, "mag.bin", data)
}

// Without any peer a magnet link stays in "fetching metadata", visibly,
// until it is stopped; nothing is written.
func TestMagnetFetchingMetadata(t *testing.T) {
	t.Parallel()
	spec, err := ParseMagnet("magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567&dn=x")
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	j, err := newTestClient(t).Start(ctx, &Request{Dir: dest, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	s := j.Snapshot()
	if s.Phase != PhaseMetadata || s.Phase.String() != "fetching metadata" || s.Size != -1 {
		t.Fatalf("snapshot phase %q size %d", s.Phase, s.Size)
	}
	cancel()
	if err := j.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want canceled", err)
	}
	if j.Snapshot().Phase != PhaseCanceled {
		t.Fatalf("phase %v after cancel", j.Snapshot().Phase)
	}
	if ents, _ := os.ReadDir(dest); len(ents) != 0 {
		t.Fatalf("%d entries written", len(ents))
	}
}

func TestDeselectedFile(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	// Sizes that put file boundaries inside pieces.
	files := []testFile{
		{Path: "first.bin", Data: randomBytes(t, 2*testPieceLen+100)},
		{Path: "skip/middle.bin", Data: randomBytes(t, 4*testPieceLen+7)},
		{Path: "last.bin", Data: randomBytes(t, testPieceLen+1)},
	}
	mi := makeTorrent(t, src, "set", files)
	addr := seeder(t, src, mi)
	spec := specOf(t, mi)
	spec.Peers = []string{addr}

	var listed []File
	dest := t.TempDir()
	j, err := run(t, newTestClient(t), &Request{Dir: dest, Spec: spec, Select: func(_ context.Context, fs []File) []bool {
		listed = fs
		sel := make([]bool, len(fs))
		for i, f := range fs {
			sel[i] = !strings.Contains(f.Name, "middle")
		}
		return sel
	}})
	if err != nil {
		t.Fatal(err)
	}
	// The torrent lists its files sorted by path.
	if len(listed) != 3 || listed[2].Name != "set/skip/middle.bin" || listed[2].Size != int64(len(files[1].Data)) || listed[1].Name != "set/last.bin" {
		t.Fatalf("listed %+v", listed)
	}
	sameFile(t, dest, "set/first.bin", files[0].Data)
	sameFile(t, dest, "set/last.bin", files[2].Data)
	if _, err := os.Stat(filepath.Join(dest, "set/skip/middle.bin")); !os.IsNotExist(err) {
		t.Fatalf("the deselected file is at its final name: %v", err)
	}
	// At most the pieces it shares with its neighbours were written.
	if n := j.Snapshot().Files[2].Bytes; n > 2*testPieceLen {
		t.Fatalf("%d bytes of the deselected file fetched", n)
	}
	s := j.Snapshot()
	want := int64(len(files[0].Data) + len(files[2].Data))
	if s.Size != want || s.Bytes != want {
		t.Fatalf("snapshot size %d bytes %d, want %d", s.Size, s.Bytes, want)
	}
}

// hostileInfo is a torrent whose second file climbs out of the folder.
func hostileInfo(t *testing.T) []byte {
	info := metainfo.Info{
		Name:        "evil",
		PieceLength: testPieceLen,
		Pieces:      make([]byte, 20),
		Files: []metainfo.FileInfo{
			{Length: 10, Path: []string{"ok.txt"}},
			{Length: 10, Path: []string{"..", "..", "escaped.txt"}},
		},
	}
	b, err := bencode.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHostilePathRefused(t *testing.T) {
	t.Parallel()
	infoBytes := hostileInfo(t)
	mi := metainfo.MetaInfo{InfoBytes: infoBytes}
	var buf strings.Builder
	if err := mi.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseMetainfo([]byte(buf.String())); !errors.Is(err, ErrUnsafePath) || !errors.Is(err, metalink.ErrUnsafeName) {
		t.Fatalf("ParseMetainfo: %v, want ErrUnsafePath", err)
	}

	// The same torrent arriving as metadata (as for a magnet link) is
	// refused by the storage: the job fails and nothing is written.
	parent := t.TempDir()
	dest := filepath.Join(parent, "in", "here")
	spec := &Spec{Name: "evil", InfoHash: mi.HashInfoBytes(), InfoBytes: infoBytes}
	_, err := run(t, newTestClient(t), &Request{Dir: dest, Spec: spec})
	if !errors.Is(err, ErrUnsafePath) || !strings.Contains(err.Error(), `".."`) {
		t.Fatalf("err %v, want ErrUnsafePath naming the ..", err)
	}
	var found []string
	filepath.WalkDir(parent, func(p string, d os.DirEntry, _ error) error {
		if !d.IsDir() {
			found = append(found, p)
		}
		return nil
	})
	if len(found) != 0 {
		t.Fatalf("written: %v", found)
	}
}

func TestSafeLayoutTable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		paths [][]string
		ok    bool
		why   string // in the error's sentence
	}{
		{"plain", [][]string{{"a"}, {"b", "c"}}, true, ""},
		{"dotdot", [][]string{{".."}}, false, "climb out"},
		{"absolute", [][]string{{"/etc", "passwd"}}, false, ""},
		{"backslash", [][]string{{`..\x`}}, false, "backslash"},
		{"device", [][]string{{"CON.txt"}}, false, `"CON.txt" is a device name on Windows`},
		{"device in a folder, any case", [][]string{{"sub", "aux.tar.gz"}}, false, "device name on Windows"},
		{"device folder", [][]string{{"lpt9", "x"}}, false, "device name on Windows"},
		{"trailing dot", [][]string{{"notes."}}, false, "ends in a dot or a space"},
		{"trailing space", [][]string{{"dir ", "x"}}, false, "ends in a dot or a space"},
		{"rtl override", [][]string{{"exe\u202etxt.exe"}}, false, "invisible"},
		{"file and folder", [][]string{{"a"}, {"a", "b"}}, false, "both a file and a folder"},
		{"duplicate by case", [][]string{{"A.txt"}, {"a.txt"}}, false, "root/A.txt and root/a.txt differ only in case"},
		{"folder by case", [][]string{{"Docs", "x"}, {"docs", "x"}}, false, "differ only in case"},
		{"duplicate", [][]string{{"a"}, {"a"}}, false, "appears twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := metainfo.Info{Name: "root", PieceLength: testPieceLen}
			for _, p := range tc.paths {
				info.Files = append(info.Files, metainfo.FileInfo{Length: 1, Path: p})
			}
			_, err := FileNames(&info)
			if (err == nil) != tc.ok {
				t.Fatalf("err %v, ok %v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrUnsafePath) {
				t.Fatalf("err %v does not wrap ErrUnsafePath", err)
			}
			if err != nil && !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("err %q does not say %q", err, tc.why)
			}
		})
	}
}

// A web seed that corrupts a piece costs that piece only: the good peer
// fills it, and the file verifies.
func TestCorruptWebSeed(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 8*testPieceLen)
	bad := mirrortest.New(t, data, mirrortest.Corrupt(testPieceLen, func(p int) bool { return p%2 == 1 }))
	mi := makeTorrent(t, src, "c.bin", []testFile{{Path: "", Data: data}}, bad.URL())
	addr := seeder(t, src, mi)
	spec := specOf(t, mi)
	spec.Peers = []string{addr}

	dest := t.TempDir()
	j, err := run(t, newTestClient(t), &Request{Dir: dest, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	sameFile(t, dest, "c.bin", data)
	if s := j.Snapshot(); s.Verified != 8 {
		t.Fatalf("%d pieces verified", s.Verified)
	}
}

// A metalink's whole-file hash is checked too: a torrent whose pieces all
// match but whose file does not match the metalink fails, and the file
// stays at NAME.part.
func TestMetalinkHashChecked(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 3*testPieceLen)
	m := mirrortest.New(t, data)
	mi := makeTorrent(t, src, "m.bin", []testFile{{Path: "", Data: data}})
	tf := torrenttest.WriteFile(t, mi, "m.torrent")
	base := torrenttest.ServeDir(t, filepath.Dir(tf))
	if _, err := FromMetalink(context.Background(), metalink.File{Name: "m.bin", MetaURLs: []metalink.MetaURL{{URL: tf, MediaType: "torrent"}}}, nil); err == nil {
		t.Fatal("a metaurl naming a local file was read")
	}

	for _, tc := range []struct {
		name string
		hash string
		ok   bool
	}{
		{"match", sha256hex(data), true},
		{"mismatch", sha256hex([]byte("other")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := metalink.File{
				Name: "m.bin", Size: int64(len(data)),
				Hashes:   []metalink.Hash{{Type: "sha-256", Value: tc.hash}},
				URLs:     []metalink.URL{{URL: m.URL(), Priority: 1}},
				MetaURLs: []metalink.MetaURL{{URL: base + "/m.torrent", MediaType: "torrent"}},
			}
			spec, err := FromMetalink(context.Background(), f, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(spec.WebSeeds) != 1 {
				t.Fatalf("web seeds %v, want the metalink's mirror", spec.WebSeeds)
			}
			dest := t.TempDir()
			_, err = run(t, newTestClient(t), &Request{Dir: dest, Spec: spec})
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				sameFile(t, dest, "m.bin", data)
				return
			}
			if !errors.Is(err, ErrMismatch) {
				t.Fatalf("err %v, want ErrMismatch", err)
			}
			if _, err := os.Stat(filepath.Join(dest, "m.bin")); !os.IsNotExist(err) {
				t.Fatal("a file that failed the metalink's hash got its final name")
			}
		})
	}
}

// Stopping a job and starting it again with the same Completion fetches
// only the pieces not recorded.
func TestResumeKeepsRecordedPieces(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 16*testPieceLen)
	slow := mirrortest.New(t, data, mirrortest.Rate(4*testPieceLen))
	mi := makeTorrent(t, src, "r.bin", []testFile{{Path: "", Data: data}}, slow.URL())
	spec := specOf(t, mi)
	comp := &MemCompletion{}
	dest := t.TempDir()
	c := newTestClient(t)

	ctx, cancel := context.WithCancel(context.Background())
	j, err := c.Start(ctx, &Request{Dir: dest, Spec: spec, Completion: comp})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(2 * time.Minute)
	for j.Snapshot().Verified < 4 {
		select {
		case <-deadline:
			t.Fatal("no progress")
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel()
	if err := j.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	done, _ := comp.Load(mi.HashInfoBytes().HexString())
	var kept []int
	for i, ok := range done {
		if ok {
			kept = append(kept, i)
		}
	}
	if len(kept) < 4 {
		t.Fatalf("%d pieces recorded", len(kept))
	}
	if _, err := os.Stat(filepath.Join(dest, "r.bin.part")); err != nil {
		t.Fatal(err)
	}

	fast := mirrortest.New(t, data)
	spec2 := specOf(t, mi)
	spec2.WebSeeds = []string{fast.URL()}
	if _, err := run(t, c, &Request{Dir: dest, Spec: spec2, Completion: comp}); err != nil {
		t.Fatal(err)
	}
	sameFile(t, dest, "r.bin", data)
	for _, r := range fast.Ranges() {
		for _, p := range kept {
			lo, hi := int64(p)*testPieceLen, int64(p+1)*testPieceLen
			if r.Off < hi && r.Off+r.N > lo && r.Sent > 0 {
				t.Fatalf("piece %d recorded before the stop was fetched again (range %+v)", p, r)
			}
		}
	}
}

func sha256hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// A finished torrent seeds until its ratio is reached, then stops: an
// anacrolix leecher on loopback fetches the whole file from Braid, a
// second one takes it past the ratio of 1.5, and the seeding ends.
func TestSeedsUntilRatio(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 200*testPieceLen)
	m := mirrortest.New(t, data)
	mi := makeTorrent(t, src, "up.bin", []testFile{{Path: "", Data: data}}, m.URL())
	dest := t.TempDir()
	c := newTestClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := c.Start(ctx, &Request{Dir: dest, Spec: specOf(t, mi), SeedRatio: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-j.Complete():
	case <-ctx.Done():
		t.Fatal("not complete")
	}
	if s := j.Snapshot(); s.Phase != PhaseSeeding {
		t.Fatalf("phase %v after completion, want seeding", s.Phase)
	}
	// Leechers without the web seed: only Braid has the data.
	noSeeds := *mi
	noSeeds.UrlList = nil
	leech := func() (*Job, string) {
		dir := t.TempDir()
		spec := specOf(t, &noSeeds)
		spec.Peers = []string{fmt.Sprintf("127.0.0.1:%d", c.Port())}
		lc := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard})
		t.Cleanup(func() { lc.Close() })
		lj, err := lc.Start(ctx, &Request{Dir: dir, Spec: spec})
		if err != nil {
			t.Fatal(err)
		}
		return lj, dir
	}
	first, dir := leech()
	if err := first.Err(); err != nil {
		ls, ss := first.Snapshot(), j.Snapshot()
		t.Fatalf("leecher: %v (%d/%d pieces); seeder %v, %d uploaded", err, ls.Verified, len(ls.Pieces), ss.Phase, ss.Uploaded)
	}
	sameFile(t, dir, "up.bin", data)
	if s := j.Snapshot(); s.Phase != PhaseSeeding || s.Ratio < 1 {
		t.Fatalf("after one leecher: %v, ratio %.2f; want seeding on", s.Phase, s.Ratio)
	}
	second, _ := leech()
	if err := j.Err(); err != nil {
		t.Fatal(err)
	}
	if s := j.Snapshot(); s.Phase != PhaseDone || s.Ratio < 1.5 {
		t.Fatalf("seeder ended %v with ratio %.2f", s.Phase, s.Ratio)
	}
	second.Stop()
}

// A file that is at the final name but does not match the torrent is never
// overwritten: the job fails and says so.
func TestExistingDifferentFileKept(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 4*testPieceLen)
	m := mirrortest.New(t, data)
	mi := makeTorrent(t, src, "x.bin", []testFile{{Path: "", Data: data}}, m.URL())
	dest := t.TempDir()
	other := mirrortest.Bytes(4*testPieceLen, 99) // same size, other bytes
	if err := os.WriteFile(filepath.Join(dest, "x.bin"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, newTestClient(t), &Request{Dir: dest, Spec: specOf(t, mi)})
	if !errors.Is(err, ErrExists) {
		t.Fatalf("err %v, want ErrExists", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dest, "x.bin")); !bytes.Equal(got, other) {
		t.Fatal("the file at the final name was changed")
	}
}

// An empty file inside a torrent is created at its final name too, even
// where its neighbour is left out.
func TestEmptyFile(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	files := []testFile{
		{Path: "a.bin", Data: randomBytes(t, testPieceLen+10)},
		{Path: "b.empty", Data: nil},
		{Path: "c.bin", Data: randomBytes(t, testPieceLen+20)},
	}
	mi := makeTorrent(t, src, "e", files, torrenttest.ServeDir(t, src))
	dest := t.TempDir()
	_, err := run(t, newTestClient(t), &Request{Dir: dest, Spec: specOf(t, mi), Select: func(_ context.Context, fs []File) []bool {
		return []bool{false, true, true} // a.bin left out
	}})
	if err != nil {
		t.Fatal(err)
	}
	sameFile(t, dest, "e/b.empty", nil)
	sameFile(t, dest, "e/c.bin", files[2].Data)
	if _, err := os.Stat(filepath.Join(dest, "e", "a.bin")); !os.IsNotExist(err) {
		t.Fatalf("a.bin: %v", err)
	}
}

// FileNames lays out the files of info as Braid names them on disk, and
// refuses the torrent if any path is unsafe. The error wraps ErrUnsafePath
// and names the path and the rule it breaks.
func FileNames(info *metainfo.Info) ([]string, error) {
	spans, err := layout(info)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range spans {
		if !s.pad {
			names = append(names, s.name)
		}
	}
	return names, nil
}
