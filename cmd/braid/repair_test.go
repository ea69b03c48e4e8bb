package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/engine/piece"
)

const rL = 16 << 10 // piece length of the repair tests

// rGets returns the GET ranges a mirror served (HEAD probes carry no data).
func rGets(m *mirrortest.Mirror) []piece.Range {
	var out []piece.Range
	for _, r := range m.Ranges() {
		if r.Method == http.MethodGet && r.N > 0 {
			out = append(out, piece.Range{Off: r.Off, N: r.N})
		}
	}
	return out
}

// rWithin reports whether every range of got lies inside one of want.
func rWithin(got, want []piece.Range) bool {
	for _, g := range got {
		if !slices.ContainsFunc(want, func(w piece.Range) bool { return g.Off >= w.Off && g.Off+g.N <= w.Off+w.N }) {
			return false
		}
	}
	return true
}

// rCovers reports whether the ranges of got together hold every byte of r.
func rCovers(got []piece.Range, r piece.Range) bool {
	for off := r.Off; off < r.Off+r.N; {
		i := slices.IndexFunc(got, func(g piece.Range) bool { return g.Off <= off && off < g.Off+g.N })
		if i < 0 {
			return false
		}
		off = got[i].Off + got[i].N
	}
	return true
}

// rUnion is the number of distinct bytes the ranges cover.
func rUnion(rs []piece.Range) int64 {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b piece.Range) int { return int(a.Off - b.Off) })
	var n, end int64
	for _, r := range rs {
		start := max(r.Off, end)
		if e := r.Off + r.N; e > start {
			n += e - start
			end = e
		}
	}
	return n
}

// rClean asserts that repair left nothing behind in dir but the files.
func rClean(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".braid-repair-") || strings.HasSuffix(e.Name(), ".part") {
			t.Errorf("repair left %s behind", e.Name())
		}
	}
}

func rRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRepair(t *testing.T) {
	t.Parallel()
	data := pcData(24*rL+100, 20) // 25 pieces, the last of 100 bytes
	size := int64(len(data))
	tests := []struct {
		name   string
		onDisk []byte
		fetch  []piece.Range // exactly the bytes the mirrors must serve
		want   string        // in the output
	}{
		{
			name:   "flipped pieces",
			onDisk: pcFlip(data, 3*rL+1, 4*rL+rL-1, 11*rL, 24*rL+99),
			fetch:  []piece.Range{{Off: 3 * rL, N: 2 * rL}, {Off: 11 * rL, N: rL}, {Off: 24 * rL, N: 100}},
			want:   "a.bin: repaired: 4 of 25 pieces fetched again, ",
		},
		{
			name:   "truncated mid piece",
			onDisk: data[:20*rL+5],
			fetch:  []piece.Range{{Off: 20 * rL, N: size - 20*rL}},
			want:   "a.bin: repaired: 5 of 25 pieces fetched again",
		},
		{
			name:   "flipped and trailing garbage",
			onDisk: append(pcFlip(data, 7*rL), "more bytes"...),
			fetch:  []piece.Range{{Off: 7 * rL, N: rL}},
			want:   "a.bin: repaired: 1 of 25 pieces fetched again",
		},
		{
			name:   "trailing garbage only",
			onDisk: append(bytes.Clone(data), "more bytes"...),
			want:   "a.bin: repaired: cut off 10 bytes past the end; verified",
		},
		{
			name:   "every piece bad",
			onDisk: bytes.Repeat([]byte{1}, len(data)),
			fetch:  []piece.Range{{Off: 0, N: size}},
			want:   "a.bin: repaired: 25 of 25 pieces fetched again",
		},
		{
			name:   "good already",
			onDisk: data,
			want:   "a.bin: OK, nothing to repair",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m1 := mirrortest.New(t, data)
			m2 := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
			meta := pcMeta4(t, pcFile("a.bin", data, rL, m1.URL(), m2.URL()))
			dir := t.TempDir()
			pcWrite(t, dir, "a.bin", tt.onDisk)

			code, out, errOut := pcRun(t, cmdRepair, "--metalink", meta, "-d", dir)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
			if !bytes.Equal(rRead(t, filepath.Join(dir, "a.bin")), data) {
				t.Fatal("the file is not the original after repair")
			}
			rClean(t, dir)

			// The mirrors served only bytes of bad pieces, each of them,
			// and nothing twice.
			served := append(rGets(m1), rGets(m2)...)
			if !rWithin(served, tt.fetch) {
				t.Errorf("mirrors served %v, not all within the bad pieces %v", served, tt.fetch)
			}
			var want int64
			for _, r := range tt.fetch {
				want += r.N
				if !rCovers(served, r) {
					t.Errorf("bytes %v were not fetched (served %v)", r, served)
				}
			}
			// A mirror counts what it writes to the socket. When the
			// engine hands the far half of a running segment to an idle
			// mirror, the first one may have written some of those bytes
			// already: they count twice, but only up to the overlap of the
			// requests.
			var asked int64
			for _, r := range served {
				asked += r.N
			}
			overlap := asked - rUnion(served)
			if got := m1.BytesServed() + m2.BytesServed(); got < want || got > want+overlap {
				t.Errorf("mirrors sent %d bytes, want %d (the bad pieces) plus at most %d of overlapping requests", got, want, overlap)
			}
		})
	}
}

// TestRepairMirrorCorruptsAgain: the first mirror sends the bad piece
// corrupt again; it gets a strike and the second mirror supplies it.
func TestRepairMirrorCorruptsAgain(t *testing.T) {
	t.Parallel()
	data := pcData(12*rL, 21)
	liar := mirrortest.New(t, data, mirrortest.Corrupt(rL, func(p int) bool { return p == 5 }))
	good := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	meta := pcMeta4(t, pcFile("a.bin", data, rL, liar.URL(), good.URL()))
	dir := t.TempDir()
	pcWrite(t, dir, "a.bin", pcFlip(data, 5*rL+9))

	code, out, errOut := pcRun(t, cmdRepair, "--metalink", meta, "-d", dir)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !bytes.Equal(rRead(t, filepath.Join(dir, "a.bin")), data) {
		t.Fatal("the file is not the original after repair")
	}
	piece5 := piece.Range{Off: 5 * rL, N: rL}
	// The liar comes first in the metalink, so it is asked first.
	if got := rGets(liar); !slices.Equal(got, []piece.Range{piece5}) {
		t.Errorf("the corrupting mirror served %v, want only piece 5 %v", got, piece5)
	}
	if got := rGets(good); !slices.Equal(got, []piece.Range{piece5}) {
		t.Errorf("the good mirror served %v, want only piece 5 %v", got, piece5)
	}
	rClean(t, dir)
}

// TestRepairFailsAtomically: when no mirror sends a good piece, the file
// stays exactly as it was and nothing is left behind.
func TestRepairFailsAtomically(t *testing.T) {
	t.Parallel()
	data := pcData(12*rL, 22)
	every := func(int) bool { return true }
	m1 := mirrortest.New(t, data, mirrortest.Corrupt(rL, every))
	m2 := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Corrupt(rL, every))
	meta := pcMeta4(t, pcFile("a.bin", data, rL, m1.URL(), m2.URL()))
	dir := t.TempDir()
	bad := pcFlip(data, 2*rL, 9*rL)
	pcWrite(t, dir, "a.bin", bad)
	if err := os.Chmod(filepath.Join(dir, "a.bin"), 0o600); err != nil {
		t.Fatal(err)
	}

	code, out, _ := pcRun(t, cmdRepair, "--metalink", meta, "-d", dir)
	if code != 1 || !strings.Contains(out, "a.bin: NOT REPAIRED") {
		t.Fatalf("exit %d, want 1 and NOT REPAIRED:\n%s", code, out)
	}
	if !bytes.Equal(rRead(t, filepath.Join(dir, "a.bin")), bad) {
		t.Fatal("a failed repair changed the file")
	}
	if m1.BytesServed()+m2.BytesServed() == 0 {
		t.Error("no mirror was asked: the test did not test a failed fetch")
	}
	rClean(t, dir)
}

func TestRepairKeepsPermissions(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Windows files have no Unix permission bits: Go reports 0666, or 0444 for the read-only attribute, whatever chmod was asked")
	}
	data := pcData(4*rL, 23)
	m := mirrortest.New(t, data)
	meta := pcMeta4(t, pcFile("a.bin", data, rL, m.URL()))
	dir := t.TempDir()
	path := filepath.Join(dir, "a.bin")
	pcWrite(t, dir, "a.bin", pcFlip(data, rL))
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := pcRun(t, cmdRepair, "--metalink", meta, "-d", dir); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after repair, want -rw-------", fi.Mode().Perm())
	}
}

func TestRepairWithoutPieceHashes(t *testing.T) {
	t.Parallel()
	// Three engine pieces (piece.DefaultLength each), the last short.
	data := pcData(2*piece.DefaultLength+5000, 24)
	tests := []struct {
		name   string
		onDisk []byte
		code   int
		want   string
		fetch  []piece.Range
	}{
		{
			name: "flipped", onDisk: pcFlip(data, 10), code: 1,
			want: "only a full download can fix it",
		},
		{
			// Only the missing bytes are fetched, then the whole-file hash
			// judges the file.
			name: "truncated", onDisk: data[:piece.DefaultLength+10], code: 0,
			want:  "fetched the missing",
			fetch: []piece.Range{{Off: piece.DefaultLength + 10, N: piece.DefaultLength + 4990}},
		},
		{
			name: "trailing garbage", onDisk: append(bytes.Clone(data), 0), code: 0,
			want: "a.bin: repaired: cut off 1 bytes past the end; verified",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mirrortest.New(t, data)
			meta := pcMeta4(t, pcFile("a.bin", data, 0, m.URL()))
			dir := t.TempDir()
			pcWrite(t, dir, "a.bin", tt.onDisk)
			code, out, errOut := pcRun(t, cmdRepair, "--metalink", meta, "-d", dir)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, want %d; output lacks %q:\n%s%s", code, tt.code, tt.want, out, errOut)
			}
			want := data
			if tt.code != 0 {
				want = tt.onDisk
			}
			if !bytes.Equal(rRead(t, filepath.Join(dir, "a.bin")), want) {
				t.Fatal("the file is not what it should be after repair")
			}
			if got := rGets(m); !rWithin(got, tt.fetch) || (tt.fetch != nil && !rCovers(got, tt.fetch[0])) {
				t.Errorf("mirror served %v, want exactly %v", got, tt.fetch)
			}
			rClean(t, dir)
		})
	}
}

func TestRepairCannot(t *testing.T) {
	t.Parallel()
	data := pcData(4*rL, 25)
	tests := []struct {
		name string
		f    metalink.File
		disk []byte // nil: absent
		want string
	}{
		{"absent", pcFile("a.bin", data, rL), nil, "it is not in"},
		{"no usable hash", metalink.File{Name: "a.bin", Size: int64(len(data))}, pcFlip(data, 0), "no hash Braid can check"},
		{
			"hashes disagree",
			func() metalink.File {
				f := pcFile("a.bin", data, rL)
				f.Hashes[0].Value = pcSHA256(data[1:])
				return f
			}(),
			data, "the metalink's hashes disagree",
		},
		{"no mirror", pcFile("a.bin", data, rL), pcFlip(data, rL), "lists no mirror"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.disk != nil {
				pcWrite(t, dir, "a.bin", tt.disk)
			}
			code, out, errOut := pcRun(t, cmdRepair, "--metalink", pcMeta4(t, tt.f), "-d", dir)
			if code != 1 || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, want 1; output lacks %q:\n%s%s", code, tt.want, out, errOut)
			}
			if tt.disk != nil && !bytes.Equal(rRead(t, filepath.Join(dir, "a.bin")), tt.disk) {
				t.Error("repair changed a file it could not repair")
			}
			rClean(t, dir)
		})
	}
}

func TestRepairUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"--metalink"}, {"--metalink", "x.meta4", "extra"}, {"--max-conn", "-1", "--metalink", "x"}} {
		if code, _, _ := pcRun(t, cmdRepair, args...); code != 2 {
			t.Errorf("braid repair %q: exit %d, want 2", args, code)
		}
	}
}

// BenchmarkRepair repairs 3 bad 1 MiB pieces of a 256 MiB file and fails
// if the mirrors sent more than those pieces: a repair costs what is bad,
// not what the file weighs.
func BenchmarkRepair(b *testing.B) {
	const L = 1 << 20
	data := pcData(256<<20, 26)
	bad := pcFlip(data, 17*L, 100*L+5, 255*L+L-1)
	m1 := mirrortest.New(b, data)
	m2 := mirrortest.New(b, data, mirrortest.Addr("127.0.0.2"))
	f := pcFile("big.bin", data, L, m1.URL(), m2.URL())
	dir := b.TempDir()
	var code int
	var out, errOut string
	var fetched int64
	for b.Loop() {
		b.StopTimer()
		pcWrite(b, dir, "big.bin", bad)
		meta := pcMeta4(b, f)
		before := m1.BytesServed() + m2.BytesServed()
		b.StartTimer()
		code, out, errOut = pcRun(b, cmdRepair, "--metalink", meta, "-d", dir)
		b.StopTimer()
		if code != 0 {
			b.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		sent := m1.BytesServed() + m2.BytesServed() - before
		if sent > 3*L {
			b.Fatalf("mirrors sent %d bytes for 3 bad pieces of %d", sent, L)
		}
		fetched += sent
		b.StartTimer()
	}
	b.SetBytes(int64(len(data)))
	b.ReportMetric(float64(fetched)/float64(b.N), "fetched-B/op")
}

func TestRepairSubfolder(t *testing.T) {
	t.Parallel()
	data := pcData(6*rL, 27)
	m := mirrortest.New(t, data)
	meta := pcMeta4(t, pcFile("sub/dir/a.bin", data, rL, m.URL()))
	dir := t.TempDir()
	pcWrite(t, dir, "sub/dir/a.bin", pcFlip(data, 4*rL))
	if code, out, errOut := pcRun(t, cmdRepair, "--metalink", meta, "-d", dir); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !bytes.Equal(rRead(t, filepath.Join(dir, "sub", "dir", "a.bin")), data) {
		t.Fatal("the file is not the original after repair")
	}
	if got := rGets(m); !slices.Equal(got, []piece.Range{{Off: 4 * rL, N: rL}}) {
		t.Errorf("mirror served %v, want piece 4 only", got)
	}
	rClean(t, dir)
	rClean(t, filepath.Join(dir, "sub", "dir"))
}

// TestRepairCanceled: a repair stopped half way leaves the file as it was.
func TestRepairCanceled(t *testing.T) {
	t.Parallel()
	data := pcData(8*rL, 28)
	m := mirrortest.New(t, data, mirrortest.Rate(4<<10)) // 4 KiB/s: a piece takes 4 s
	meta := pcMeta4(t, pcFile("a.bin", data, rL, m.URL()))
	dir := t.TempDir()
	bad := pcFlip(data, 0, 5*rL)
	pcWrite(t, dir, "a.bin", bad)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel once the mirror has started sending.
		for m.BytesServed() == 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
		cancel()
	}()
	var out, errOut bytes.Buffer
	if code := cmdRepair(ctx, []string{"--metalink", meta, "-d", dir}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errOut.String())
	}
	if !bytes.Equal(rRead(t, filepath.Join(dir, "a.bin")), bad) {
		t.Fatal("a canceled repair changed the file")
	}
	rClean(t, dir)
}

// TestRepairThroughProxy: repair takes get's network flags. Its only
// mirror (nginx) serves only what comes through tinyproxy: with
// --all-proxy the bad piece is fetched and the file mended; without it
// the mirror refuses and the file is left as it was.
func TestRepairThroughProxy(t *testing.T) {
	t.Parallel()
	data := pcData(8*rL, 23)
	proxy := netconftest.Tinyproxy(t, "", "")
	origin := netconftest.ProxiedOnly(t, map[string][]byte{"a.bin": data})
	meta := pcMeta4(t, pcFile("a.bin", data, rL, origin.URL+"/p/a.bin"))
	dir := t.TempDir()
	bad := pcFlip(data, 3*rL+5)
	pcWrite(t, dir, "a.bin", bad)

	code, out, errOut := pcRun(t, cmdRepair, "--metalink", meta, "-d", dir)
	if code != 1 || !bytes.Equal(rRead(t, filepath.Join(dir, "a.bin")), bad) {
		t.Fatalf("a repair around the proxy: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = pcRun(t, cmdRepair, "--all-proxy", proxy, "--metalink", meta, "-d", dir)
	if code != 0 || !bytes.Equal(rRead(t, filepath.Join(dir, "a.bin")), data) {
		t.Fatalf("a repair through the proxy: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	rClean(t, dir)
}
