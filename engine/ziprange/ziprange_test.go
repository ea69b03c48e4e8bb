package ziprange

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/transport"
	"braid/engine/ziprange/ziptest"
)

// The test archives' makers, by their short names here.
var (
	makeZip      = ziptest.Make
	setEncrypted = ziptest.SetEncrypted
	text         = ziptest.Text
)

type entry = ziptest.Entry

// source is a transport source for the mirror's URL.
func source(t testing.TB, url string) transport.Source {
	t.Helper()
	src, err := transport.NewHTTP(url, transport.Options{Size: -1})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// gets are the mirror's GET requests.
func gets(m *mirrortest.Mirror) []mirrortest.Range {
	var out []mirrortest.Range
	for _, r := range m.Ranges() {
		if r.Method == http.MethodGet {
			out = append(out, r)
		}
	}
	return out
}

// directoryLen is the length of the archive's central directory and the
// end records after it.
func directoryLen(t testing.TB, archive []byte) int64 {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	var dir int64
	for _, f := range zr.File {
		dir += 46 + int64(len(f.Name)+len(f.Extra)+len(f.Comment))
	}
	end := bytes.LastIndex(archive, []byte{'P', 'K', 6, 6}) // zip64 end record
	if end < 0 {
		end = bytes.LastIndex(archive, []byte{'P', 'K', 5, 6})
	}
	return dir + int64(len(archive)-end)
}

func TestOpenListsMembersFromTheEnd(t *testing.T) {
	t.Parallel()
	big := mirrortest.Bytes(3<<20, 1) // stored, incompressible: the directory is far from the start
	small := text(5000, 2)
	archive := makeZip(t,
		entry{Name: "big.bin", Data: big, Method: zip.Store},
		entry{Name: "docs/readme.txt", Data: small, Method: zip.Deflate},
		entry{Name: "docs/", Method: zip.Store},
	)
	m := mirrortest.New(t, archive, mirrortest.Path("/a.zip"))
	a, err := Open(context.Background(), source(t, m.URL()), -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Members) != 3 {
		t.Fatalf("%d members, want 3", len(a.Members))
	}
	b, r, d := a.Members[0], a.Members[1], a.Members[2]
	if b.Name != "big.bin" || b.Size != int64(len(big)) || b.CompressedSize != int64(len(big)) || b.Method != zip.Store || b.CRC32 != crc32.ChecksumIEEE(big) || b.HeaderOffset != 0 {
		t.Errorf("big.bin: %+v", *b)
	}
	if r.Name != "docs/readme.txt" || r.Size != int64(len(small)) || r.Method != zip.Deflate || r.CompressedSize >= r.Size || r.CRC32 != crc32.ChecksumIEEE(small) || r.Encrypted {
		t.Errorf("docs/readme.txt: %+v", *r)
	}
	if want := int64(30+len("big.bin")) + b.CompressedSize; r.HeaderOffset < want || r.HeaderOffset > want+16+20 {
		t.Errorf("docs/readme.txt's local header at %d, want just after big.bin's bytes (%d, and a data descriptor)", r.HeaderOffset, want)
	}
	if !d.Dir {
		t.Errorf("docs/ is not a folder: %+v", *d)
	}
	// One GET of the tail: the directory is in it. Nothing of big.bin.
	g := gets(m)
	if len(g) != 1 || a.Requests() != 1 {
		t.Fatalf("GETs %+v (Requests %d), want one of the tail", g, a.Requests())
	}
	if g[0].Off+g[0].N != int64(len(archive)) || g[0].N != tailLen {
		t.Errorf("GET of bytes %d+%d, want the last %d of %d", g[0].Off, g[0].N, tailLen, len(archive))
	}
	if m.BytesServed() != tailLen || a.BytesRead() != tailLen {
		t.Errorf("served %d, read %d bytes, want %d", m.BytesServed(), a.BytesRead(), tailLen)
	}
}

func TestOpenZip64ManyMembers(t *testing.T) {
	t.Parallel()
	// More than 65,535 members: archive/zip writes the zip64 end record
	// and locator, and the directory (about 4 MB) is far bigger than the
	// tail, so it takes a second request, and only one.
	const n = 70_000
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	payload := mirrortest.Bytes(4<<20, 3)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "payload.bin", Method: zip.Store})
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
	m := mirrortest.New(t, archive, mirrortest.Path("/many.zip"))
	a, err := Open(context.Background(), source(t, m.URL()), -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Members) != n+1 {
		t.Fatalf("%d members, want %d", len(a.Members), n+1)
	}
	last := a.Members[n]
	if last.Name != fmt.Sprintf("f/%05d", n-1) || last.Size != int64(len(fmt.Sprint(n-1))) || last.HeaderOffset <= int64(len(payload)) {
		t.Errorf("last member %+v", *last)
	}
	g := gets(m)
	if len(g) != 2 {
		t.Fatalf("GETs %+v, want the tail and the directory", g)
	}
	dir := directoryLen(t, archive)
	if served := m.BytesServed(); served > dir+tailLen || served < dir {
		t.Errorf("served %d bytes for a directory of %d and a tail of %d", served, dir, tailLen)
	}
	if g[1].Off < int64(len(payload)) {
		t.Errorf("the directory's request starts at %d, inside payload.bin", g[1].Off)
	}
	// A member of the zip64 archive comes out whole.
	dirOut := t.TempDir()
	got, err := a.Extract(context.Background(), a.Member("payload.bin"), dirOut)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dirOut, got.Name)); !bytes.Equal(b, payload) {
		t.Error("payload.bin differs from what was zipped")
	}
}

func TestExtractReadsOnlyTheMember(t *testing.T) {
	t.Parallel()
	// A deflated member of 3 MiB, before a stored one of 3 MiB: its
	// compressed bytes span hundreds of reads of the inflater.
	first := text(3<<20, 4)
	second := mirrortest.Bytes(3<<20, 5)
	archive := makeZip(t,
		entry{Name: "deep/a.txt", Data: first, Method: zip.Deflate},
		entry{Name: "b.bin", Data: second, Method: zip.Store},
	)
	m := mirrortest.New(t, archive, mirrortest.Path("/x.zip"))
	a, err := Open(context.Background(), source(t, m.URL()), -1)
	if err != nil {
		t.Fatal(err)
	}
	mem := a.Member("deep/a.txt")
	if mem.CompressedSize < 64<<10 {
		t.Fatalf("the deflated member is only %d bytes: it must span many reads", mem.CompressedSize)
	}
	before := m.BytesServed()
	dir := t.TempDir()
	got, err := a.Extract(context.Background(), mem, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "deep/a.txt" || got.Existing {
		t.Errorf("extracted %+v", got)
	}
	b, err := os.ReadFile(filepath.Join(dir, "deep", "a.txt"))
	if err != nil || !bytes.Equal(b, first) {
		t.Fatalf("deep/a.txt differs from what was zipped (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "deep", "a.txt.part")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the .part is left: %v", err)
	}
	// The local header (30 bytes) and the compressed bytes, nothing more.
	g := gets(m)[1:]
	if len(g) != 2 || g[0].Off != 0 || g[0].N != 30 {
		t.Fatalf("GETs after Open %+v, want the local header and the bytes", g)
	}
	if served := m.BytesServed() - before; served != 30+mem.CompressedSize {
		t.Errorf("served %d bytes for a member of %d compressed bytes and its 30-byte header", served, mem.CompressedSize)
	}

	// Again: the file is there with the member's CRC, and nothing is fetched.
	before = m.BytesServed()
	again, err := a.Extract(context.Background(), mem, dir)
	if err != nil || !again.Existing || again.Name != "deep/a.txt" {
		t.Errorf("second extract %+v, %v; want the existing file taken", again, err)
	}
	if m.BytesServed() != before {
		t.Errorf("the second extract fetched %d bytes", m.BytesServed()-before)
	}
	// Another file at the name is left alone.
	if err := os.WriteFile(filepath.Join(dir, "b.bin"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	other, err := a.Extract(context.Background(), a.Member("b.bin"), dir)
	if err != nil || other.Name != "b (1).bin" {
		t.Fatalf("extract over another file: %+v, %v", other, err)
	}
	if mine, _ := os.ReadFile(filepath.Join(dir, "b.bin")); string(mine) != "mine" {
		t.Error("the file at b.bin was overwritten")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b (1).bin")); !bytes.Equal(b, second) {
		t.Error("b (1).bin differs from what was zipped")
	}
}

func TestExtractRefusals(t *testing.T) {
	t.Parallel()
	plain := text(20000, 6)
	archive := makeZip(t,
		entry{Name: "secret.txt", Data: plain, Method: zip.Deflate},
		entry{Name: "bz.bin", Data: []byte("BZh91AY&SY not really"), Method: 12, Raw: true, Size: 100},
		entry{Name: "../escape.txt", Data: plain, Method: zip.Store},
		entry{Name: "bad.txt", Data: plain, Method: zip.Store},
		entry{Name: "ok.txt", Data: plain, Method: zip.Deflate},
	)
	setEncrypted(t, archive, "secret.txt")
	// Damage bad.txt's bytes: its CRC-32 no longer matches.
	i := bytes.Index(archive, plain)
	i = i + len(plain) + bytes.Index(archive[i+len(plain):], plain)
	archive[i+100] ^= 0xff

	m := mirrortest.New(t, archive, mirrortest.Path("/r.zip"))
	a, err := Open(context.Background(), source(t, m.URL()), -1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests := []struct {
		name string
		want func(error) bool
		says string
	}{
		{"secret.txt", func(err error) bool { return errors.Is(err, ErrEncrypted) }, "encrypted"},
		{"bz.bin", func(err error) bool {
			var me *MethodError
			return errors.As(err, &me) && me.Method == 12
		}, "method 12 (bzip2)"},
		{"../escape.txt", func(err error) bool { return errors.Is(err, metalink.ErrUnsafeName) }, "climb out"},
		{"bad.txt", func(err error) bool { return errors.Is(err, ErrChecksum) }, "CRC-32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := a.Member(tc.name)
			if mem == nil {
				t.Fatalf("no member %s", tc.name)
			}
			_, err := a.Extract(context.Background(), mem, dir)
			if !tc.want(err) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("Extract: %v; want an error that says %q", err, tc.says)
			}
		})
	}
	if !a.Member("secret.txt").Encrypted || a.Member("ok.txt").Encrypted {
		t.Error("the encrypted flag is listed wrong")
	}
	// Nothing of the refused members is on disk, and nothing outside dir.
	var names []string
	filepath.WalkDir(filepath.Dir(dir), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	if len(names) != 0 {
		t.Errorf("files written: %v", names)
	}
	if _, err := a.Extract(context.Background(), a.Member("ok.txt"), dir); err != nil {
		t.Errorf("ok.txt after the refusals: %v", err)
	}
}

func TestOpenWithoutRanges(t *testing.T) {
	t.Parallel()
	archive := makeZip(t,
		entry{Name: "big.bin", Data: mirrortest.Bytes(1<<20, 7), Method: zip.Store},
		entry{Name: "b.txt", Data: text(1000, 8), Method: zip.Deflate},
	)
	m := mirrortest.New(t, archive, mirrortest.Path("/n.zip"), mirrortest.NoRanges())
	_, err := Open(context.Background(), source(t, m.URL()), -1)
	if !errors.Is(err, ErrNoRanges) || !errors.Is(err, transport.ErrNoRanges) {
		t.Fatalf("Open: %v; want ErrNoRanges", err)
	}
	if !strings.Contains(err.Error(), "the whole archive must be downloaded") {
		t.Errorf("the error does not say what to do: %v", err)
	}

	// A small archive comes whole in the first request: a server without
	// ranges serves its list and members all the same.
	small := makeZip(t, entry{Name: "s.txt", Data: text(3000, 9), Method: zip.Deflate})
	ms := mirrortest.New(t, small, mirrortest.Path("/s.zip"), mirrortest.NoRanges())
	a, err := Open(context.Background(), source(t, ms.URL()), -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Extract(context.Background(), a.Member("s.txt"), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if len(gets(ms)) != 1 {
		t.Errorf("GETs %+v, want one", gets(ms))
	}
}

func TestOpenNotZip(t *testing.T) {
	t.Parallel()
	m := mirrortest.New(t, mirrortest.Bytes(200<<10, 10), mirrortest.Path("/n.zip"))
	_, err := Open(context.Background(), source(t, m.URL()), -1)
	if !errors.Is(err, ErrNotZip) {
		t.Fatalf("Open: %v; want ErrNotZip", err)
	}
}
