package ziprange

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/engine/piece"
)

// describe is the metalink file of the archive at urls, with sha-256
// pieces of pieceLen bytes.
func describe(t testing.TB, archive []byte, pieceLen int64, urls ...string) metalink.File {
	t.Helper()
	f, err := piece.Describe(context.Background(), bytes.NewReader(archive), int64(len(archive)), "a.zip", pieceLen, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, u := range urls {
		f.URLs = append(f.URLs, metalink.URL{URL: u, Priority: i + 1})
	}
	return f
}

// needUnzip is Info-ZIP's unzip, or skips the test.
func needUnzip(t *testing.T) string {
	t.Helper()
	unzip, err := exec.LookPath("unzip")
	if err != nil {
		if runtime.GOOS == "windows" {
			t.Skip("needs unzip and nginx, Linux programs (Debian packages unzip, nginx); a test binary under Wine finds only Windows programs")
		}
		t.Skip("unzip is not installed (Debian package unzip): skipping")
	}
	return unzip
}

// unzipped is what unzip -p extracts of member from archive.
func unzipped(t *testing.T, unzip string, archive []byte, member string) []byte {
	t.Helper()
	local := filepath.Join(t.TempDir(), "a.zip")
	if err := os.WriteFile(local, archive, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := exec.Command(unzip, "-p", local, member).Output()
	if err != nil {
		t.Fatalf("unzip -p %s: %v", member, err)
	}
	return want
}

// coveringPieces is the set of pieces that hold bytes [off, end).
func coveringPieces(set map[int64]bool, pieceLen, off, end int64) {
	for i := off / pieceLen; i <= (end-1)/pieceLen; i++ {
		set[i] = true
	}
}

// piecesBytes is the bytes of the pieces in set, the last one possibly
// short.
func piecesBytes(set map[int64]bool, pieceLen, size int64) int64 {
	var n int64
	for i := range set {
		n += min(pieceLen, size-i*pieceLen)
	}
	return n
}

// nginxTotal waits until the access logs of the servers in dirs record
// want body bytes for path (nginx logs a request after its answer, which
// the client may have read before), and returns what they record.
func nginxTotal(t *testing.T, path string, want int64, dirs ...string) []int64 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var sum int64
		per := make([]int64, len(dirs))
		for i, d := range dirs {
			_, per[i] = nginxLog(t, d, path)
			sum += per[i]
		}
		if sum >= want || time.Now().After(deadline) {
			return per
		}
		time.Sleep(20 * time.Millisecond) // polling a log file nginx appends to
	}
}

// TestNginxMirrorsMemberByCheckedPieces reads a deflated member that spans
// many pieces from two nginx mirrors at once through the engine: both
// mirrors serve pieces of it, the bytes equal what unzip extracts, and
// the servers sent no more than the pieces that cover the member and the
// archive's end (its directory and end record).
func TestNginxMirrorsMemberByCheckedPieces(t *testing.T) {
	t.Parallel()
	unzip := needUnzip(t)
	const pieceLen = 128 << 10
	member := text(6<<20, 21) // deflates to about 3 MiB: some 24 pieces
	archive := makeZip(t,
		entry{Name: "pad.bin", Data: mirrortest.Bytes(3<<20, 22), Method: zip.Store},
		entry{Name: "data/big.txt", Data: member, Method: zip.Deflate},
		entry{Name: "after.bin", Data: mirrortest.Bytes(2<<20, 23), Method: zip.Store},
	)
	a1 := netconftest.Nginx(t, map[string][]byte{"a.zip": archive}, "u", "p")
	a2 := netconftest.Nginx(t, map[string][]byte{"a.zip": archive}, "u", "p")
	file := describe(t, archive, pieceLen, a1.URL+"/open/a.zip", a2.URL+"/open/a.zip")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := (&engine.Client{}).OpenRanges(ctx, &engine.Request{File: file})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a, err := Open(ctx, r, r.Size())
	if err != nil {
		t.Fatal(err)
	}
	m := a.Member("data/big.txt")
	before := r.Stats()
	dir := t.TempDir()
	if _, err := a.Extract(ctx, m, dir); err != nil {
		t.Fatal(err)
	}
	after := r.Stats()
	got, err := os.ReadFile(filepath.Join(dir, "data", "big.txt"))
	if err != nil || !bytes.Equal(got, unzipped(t, unzip, archive, m.Name)) {
		t.Fatalf("data/big.txt differs from what unzip extracts (%v)", err)
	}
	for i := range after.Mirrors {
		if after.Mirrors[i].Pieces <= before.Mirrors[i].Pieces {
			t.Errorf("mirror %d served no piece of the member: %+v", i+1, after.Mirrors[i])
		}
	}
	if after.PieceType != "sha-256" || after.Checked == 0 {
		t.Errorf("pieces checked: %d %s", after.Checked, after.PieceType)
	}
	set := map[int64]bool{}
	dataOff, err := m.file.DataOffset()
	if err != nil {
		t.Fatal(err)
	}
	coveringPieces(set, pieceLen, m.HeaderOffset, dataOff+m.CompressedSize)
	coveringPieces(set, pieceLen, a.Size-tailLen, a.Size)
	bound := piecesBytes(set, pieceLen, a.Size)
	per := nginxTotal(t, "/open/a.zip", after.Bytes(), a1.Dir, a2.Dir)
	sent := per[0] + per[1]
	if sent != after.Bytes() {
		t.Errorf("nginx logs %d bytes sent, the engine received %d", sent, after.Bytes())
	}
	if sent > bound || sent < m.CompressedSize {
		t.Errorf("nginx sent %d bytes (%d + %d) for a member of %d compressed bytes; the covering pieces and the end hold %d", sent, per[0], per[1], m.CompressedSize, bound)
	}
	t.Logf("member %d bytes (%d compressed), archive %d; nginx sent %d + %d bytes, bound %d", m.Size, m.CompressedSize, a.Size, per[0], per[1], bound)
}

// pythonServer starts Python's http.server, which sends only whole files
// (it ignores Range), serving files from a folder, and returns its URL.
func pythonServer(t *testing.T, files map[string][]byte) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed (Debian package python3): its http.server is the server without ranges here")
	}
	dir := t.TempDir()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(py, "-m", "http.server", "--bind", "127.0.0.1", "--directory", dir, strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("python3 -m http.server did not start: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // waiting for a port to open
	}
}

// TestMirrorsWithoutRanges: beside a server that sends only whole files
// (Python's http.server), an nginx mirror serves the member alone; with
// no mirror that sends ranges, reading the list is refused in a sentence.
func TestMirrorsWithoutRanges(t *testing.T) {
	t.Parallel()
	unzip := needUnzip(t)
	const pieceLen = 64 << 10
	member := text(1<<20, 24)
	archive := makeZip(t,
		entry{Name: "pad.bin", Data: mirrortest.Bytes(1<<20, 25), Method: zip.Store},
		entry{Name: "m.txt", Data: member, Method: zip.Deflate},
	)
	whole := pythonServer(t, map[string][]byte{"a.zip": archive})
	whole2 := pythonServer(t, map[string][]byte{"a.zip": archive})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	r, err := (&engine.Client{}).OpenRanges(ctx, &engine.Request{File: describe(t, archive, pieceLen, whole+"/a.zip", whole2+"/a.zip")})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = Open(ctx, r, r.Size())
	if !errors.Is(err, ErrNoRanges) {
		t.Fatalf("Open from servers without ranges: %v; want ErrNoRanges", err)
	}

	ng := netconftest.Nginx(t, map[string][]byte{"a.zip": archive}, "u", "p")
	r2, err := (&engine.Client{}).OpenRanges(ctx, &engine.Request{File: describe(t, archive, pieceLen, whole+"/a.zip", ng.URL+"/open/a.zip")})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	a, err := Open(ctx, r2, r2.Size())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := a.Extract(ctx, a.Member("m.txt"), dir); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "m.txt")); !bytes.Equal(got, unzipped(t, unzip, archive, "m.txt")) {
		t.Fatal("m.txt differs from what unzip extracts")
	}
	st := r2.Stats()
	if st.Mirrors[0].Bytes != 0 || st.Mirrors[0].Pieces != 0 || st.Mirrors[1].Pieces == 0 {
		t.Errorf("the server without ranges is counted for %d bytes; nginx for %d pieces", st.Mirrors[0].Bytes, st.Mirrors[1].Pieces)
	}
}

// TestMirrorsZip64 reads a member of a zip64 archive (70,000 members:
// the zip64 end record and locator) from two nginx mirrors by checked
// pieces, and compares it with unzip's.
func TestMirrorsZip64(t *testing.T) {
	t.Parallel()
	unzip := needUnzip(t)
	const n = 70_000
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	payload := text(2<<20, 26)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "payload.txt", Method: zip.Deflate})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(payload)
	for i := range n {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("f/%05d", i), Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "%d", i)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	archive := buf.Bytes()
	if !bytes.Contains(archive[len(archive)-200:], []byte{'P', 'K', 6, 7}) {
		t.Fatal("the test archive has no zip64 locator")
	}
	a1 := netconftest.Nginx(t, map[string][]byte{"z.zip": archive}, "u", "p")
	a2 := netconftest.Nginx(t, map[string][]byte{"z.zip": archive}, "u", "p")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := (&engine.Client{}).OpenRanges(ctx, &engine.Request{File: describe(t, archive, 256<<10, a1.URL+"/open/z.zip", a2.URL+"/open/z.zip")})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a, err := Open(ctx, r, r.Size())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Members) != n+1 {
		t.Fatalf("%d members, want %d", len(a.Members), n+1)
	}
	dir := t.TempDir()
	for _, name := range []string{"payload.txt", fmt.Sprintf("f/%05d", n-1)} {
		got, err := a.Extract(ctx, a.Member(name), dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(got.Name)))
		if !bytes.Equal(b, unzipped(t, unzip, archive, name)) {
			t.Errorf("%s differs from what unzip extracts", name)
		}
	}
	if st := r.Stats(); st.Checked == 0 {
		t.Error("no piece was checked")
	}
}
