package stargz

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/stargz/stargztest"
	"braid/engine/transport"
	"braid/engine/ziprange/ziptest"
)

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

// testFiles are a layer's entries: a large incompressible file first, so
// that the TOC lies far from the start, a folder, a text file, a file cut
// into chunks, an empty file, and links.
func testFiles() (pad, notes, chunked []byte, files []stargztest.File) {
	pad = mirrortest.Bytes(3<<20, 1)
	notes = ziptest.Text(200<<10, 2)
	chunked = mirrortest.Bytes(700<<10, 3)
	files = []stargztest.File{
		{Name: "pad.bin", Data: pad},
		{Name: "docs/", Type: "dir"},
		{Name: "docs/notes.txt", Data: notes},
		{Name: "./bin/tool", Data: chunked, Mode: 0o755},
		{Name: "empty", Data: nil},
		{Name: "docs/link", Type: "symlink", LinkName: "notes.txt"},
		{Name: "hard", Type: "hardlink", LinkName: "docs/notes.txt"},
		{Name: "tail.txt", Data: ziptest.Text(5000, 4)},
	}
	return
}

// TestBlobIsATarGz: the test blobs are what eStargz writers make, a
// tar.gz any tar reads, with the TOC as its last entry.
func TestBlobIsATarGz(t *testing.T) {
	t.Parallel()
	_, notes, _, files := testFiles()
	b := stargztest.Make(t, stargztest.Options{ChunkSize: 256 << 10}, files...)
	zr, err := gzip.NewReader(bytes.NewReader(b.Bytes))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Name == "docs/notes.txt" {
			if got, _ := io.ReadAll(tr); !bytes.Equal(got, notes) {
				t.Error("docs/notes.txt differs as a tar reads it")
			}
		}
	}
	if want := "pad.bin docs/ docs/notes.txt ./bin/tool empty docs/link hard tail.txt stargz.index.json"; strings.Join(names, " ") != want {
		t.Errorf("tar entries %q, want %q", names, want)
	}
}

// TestOpenAndExtract lists a blob from its footer and TOC alone, then
// fetches members from their own chunks alone: the mirror serves the 51
// bytes of the footer, the TOC, and each member's gzip chunks, nothing of
// the 3 MiB before them.
func TestOpenAndExtract(t *testing.T) {
	t.Parallel()
	pad, notes, chunked, files := testFiles()
	sb := stargztest.Make(t, stargztest.Options{ChunkSize: 256 << 10}, files...)
	m := mirrortest.New(t, sb.Bytes, mirrortest.Path("/layer.tar.gz"))
	ctx := context.Background()
	b, err := Open(ctx, source(t, m.URL()), -1)
	if err != nil {
		t.Fatal(err)
	}
	if b.Legacy || b.TOCOffset != sb.TOCOffset || b.TOCDigest != sb.TOCDigest || b.Size != int64(len(sb.Bytes)) {
		t.Errorf("blob: legacy %v, TOC at %d (want %d), digest %s (want %s)", b.Legacy, b.TOCOffset, sb.TOCOffset, b.TOCDigest, sb.TOCDigest)
	}
	var names []string
	for _, e := range b.Entries {
		names = append(names, e.Name+":"+e.Type)
	}
	if want := "pad.bin:reg docs/:dir docs/notes.txt:reg bin/tool:reg empty:reg docs/link:symlink hard:hardlink tail.txt:reg"; strings.Join(names, " ") != want {
		t.Fatalf("entries %q, want %q", names, want)
	}
	tool := b.Entry("bin/tool")
	if tool.Size != int64(len(chunked)) || len(tool.Chunks) != 3 || tool.Mode != 0o755 || tool.CompressedSize() != sb.ChunkBytes("./bin/tool") {
		t.Errorf("bin/tool: size %d, %d chunks, mode %o, compressed %d (want %d)", tool.Size, len(tool.Chunks), tool.Mode, tool.CompressedSize(), sb.ChunkBytes("./bin/tool"))
	}
	if p := b.Entry("pad.bin"); p.Size != int64(len(pad)) || len(p.Chunks) != 12 || p.Offset() <= 0 {
		t.Errorf("pad.bin: %+v", p)
	}
	if l := b.Entry("docs/link"); l.LinkName != "notes.txt" {
		t.Errorf("docs/link: %+v", l)
	}
	if b.Entry("docs") == nil || b.Entry("./docs/notes.txt") == nil || b.Entry("nope") != nil {
		t.Error("Entry does not find names as a tar places them")
	}
	// Two GETs: the footer, then the TOC up to it.
	g := gets(m)
	if len(g) != 2 || b.Requests() != 2 {
		t.Fatalf("GETs %+v (Requests %d), want the footer's and the TOC's", g, b.Requests())
	}
	if g[0].Off != int64(len(sb.Bytes))-FooterSize || g[0].N != FooterSize || g[1].Off != sb.TOCOffset || g[1].Off+g[1].N != int64(len(sb.Bytes))-FooterSize {
		t.Errorf("GETs %+v, want the last %d bytes, then bytes %d up to the footer", g, FooterSize, sb.TOCOffset)
	}
	if m.BytesServed() != sb.IndexBytes() || b.BytesRead() != sb.IndexBytes() {
		t.Errorf("served %d, read %d bytes, want the footer and TOC's %d", m.BytesServed(), b.BytesRead(), sb.IndexBytes())
	}

	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		want   []byte
		chunks int
		served int64
	}{
		{"docs/notes.txt", notes, 1, sb.ChunkBytes("docs/notes.txt")},
		{"bin/tool", chunked, 3, sb.ChunkBytes("./bin/tool")},
		{"empty", nil, 0, 0},
		{"hard", notes, 1, sb.ChunkBytes("docs/notes.txt")},
	} {
		before, reqs := m.BytesServed(), len(gets(m))
		got, err := b.Extract(ctx, b.Entry(c.name), dir)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(got.Name)))
		if err != nil || !bytes.Equal(data, c.want) || got.Name != c.name || got.Size != int64(len(c.want)) || got.Chunks != c.chunks {
			t.Errorf("%s: wrote %s, %d chunks checked, equal %v (%v)", c.name, got.Name, got.Chunks, bytes.Equal(data, c.want), err)
		}
		served := m.BytesServed() - before
		wantReqs := 1
		if c.chunks == 0 {
			wantReqs = 0
		}
		if served != c.served || len(gets(m))-reqs != wantReqs {
			t.Errorf("%s: served %d bytes in %d GETs, want its chunks' %d in %d", c.name, served, len(gets(m))-reqs, c.served, wantReqs)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "bin", "tool")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("bin/tool is not executable: %v %v", fi, err)
	}

	// Again: the file there is the member, nothing is fetched.
	before := m.BytesServed()
	got, err := b.Extract(ctx, b.Entry("docs/notes.txt"), dir)
	if err != nil || !got.Existing || m.BytesServed() != before {
		t.Errorf("again: %+v, %v, served %d more", got, err, m.BytesServed()-before)
	}
	// Another file at the name: the member goes beside it.
	if err := os.WriteFile(filepath.Join(dir, "tail.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = b.Extract(ctx, b.Entry("tail.txt"), dir)
	if err != nil || got.Name != "tail (1).txt" {
		t.Errorf("taken name: %+v, %v", got, err)
	}

	for name, want := range map[string]string{
		"docs/":     ErrFolder.Error(),
		"docs/link": "the member is a symbolic link to notes.txt, with no bytes of its own; name the file it points to",
	} {
		if _, err := b.Extract(ctx, b.Entry(name), dir); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}

// TestLegacyFooter reads a blob with the 47-byte footer of stargz.
func TestLegacyFooter(t *testing.T) {
	t.Parallel()
	_, notes, _, files := testFiles()
	sb := stargztest.Make(t, stargztest.Options{Legacy: true}, files...)
	m := mirrortest.New(t, sb.Bytes, mirrortest.Path("/old.stargz"))
	b, err := Open(context.Background(), source(t, m.URL()), -1)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Legacy || b.TOCOffset != sb.TOCOffset || len(b.Entries) != len(files) {
		t.Fatalf("legacy %v, TOC at %d (want %d), %d entries", b.Legacy, b.TOCOffset, sb.TOCOffset, len(b.Entries))
	}
	// The footer's read covered 51 bytes; the TOC is read up to the 47
	// of the footer.
	if g := gets(m); len(g) != 2 || g[1].Off+g[1].N != int64(len(sb.Bytes))-LegacyFooterSize {
		t.Errorf("GETs %+v", g)
	}
	dir := t.TempDir()
	if _, err := b.Extract(context.Background(), b.Entry("docs/notes.txt"), dir); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "docs", "notes.txt")); !bytes.Equal(got, notes) {
		t.Error("docs/notes.txt differs")
	}
}

// TestDigestLies: a TOC whose digest for a file, or for one of its
// chunks, does not match the bytes gets the member refused, and nothing
// is left on disk.
func TestDigestLies(t *testing.T) {
	t.Parallel()
	_, _, _, files := testFiles()
	other := stargztest.Make(t, stargztest.Options{}, stargztest.File{Name: "x", Data: []byte("other bytes")})
	var otherDigest string
	for _, e := range stargztestTOC(t, other).Entries {
		otherDigest = e.Digest
	}
	for _, c := range []struct {
		what string
		edit func(*stargztest.TOC)
		want string
	}{
		{"file digest", func(toc *stargztest.TOC) {
			for i := range toc.Entries {
				if toc.Entries[i].Name == "./bin/tool" && toc.Entries[i].Type == "reg" {
					toc.Entries[i].Digest = otherDigest
				}
			}
		}, "(its " + otherDigest + " differs)"},
		{"chunk digest", func(toc *stargztest.TOC) {
			for i := range toc.Entries {
				if toc.Entries[i].Name == "./bin/tool" && toc.Entries[i].Type == "chunk" && toc.Entries[i].ChunkOffset == 512<<10 {
					toc.Entries[i].ChunkDigest = otherDigest
				}
			}
		}, "(the chunk of its bytes 524288-716799 differs from its " + otherDigest + ")"},
	} {
		sb := stargztest.Make(t, stargztest.Options{ChunkSize: 256 << 10, EditTOC: c.edit}, files...)
		m := mirrortest.New(t, sb.Bytes, mirrortest.Path("/lies.tar.gz"))
		b, err := Open(context.Background(), source(t, m.URL()), -1)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		dir := t.TempDir()
		_, err = b.Extract(context.Background(), b.Entry("bin/tool"), dir)
		if !errors.Is(err, ErrDigest) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrDigest %s", c.what, err, c.want)
		}
		if left, _ := os.ReadDir(filepath.Join(dir, "bin")); len(left) != 0 {
			t.Errorf("%s: left %v", c.what, left)
		}
	}

	// No digest at all: refused before a byte is fetched.
	sb := stargztest.Make(t, stargztest.Options{EditTOC: func(toc *stargztest.TOC) {
		for i := range toc.Entries {
			toc.Entries[i].Digest, toc.Entries[i].ChunkDigest = "", ""
		}
	}}, files...)
	m := mirrortest.New(t, sb.Bytes, mirrortest.Path("/bare.tar.gz"))
	b, err := Open(context.Background(), source(t, m.URL()), -1)
	if err != nil {
		t.Fatal(err)
	}
	served := m.BytesServed()
	if _, err := b.Extract(context.Background(), b.Entry("docs/notes.txt"), t.TempDir()); !errors.Is(err, ErrNoDigest) || m.BytesServed() != served {
		t.Errorf("no digest: %v, served %d more", err, m.BytesServed()-served)
	}
}

// stargztestTOC reads a test blob's TOC back.
func stargztestTOC(t *testing.T, b *stargztest.Blob) stargztest.TOC {
	t.Helper()
	var toc stargztest.TOC
	if err := json.Unmarshal(b.TOCJSON, &toc); err != nil {
		t.Fatal(err)
	}
	return toc
}

// TestNoIndex: files without a footer are told apart by their start, read
// in one more request: a plain tar, a plain tar.gz, an xz stream, and a
// file that is none of these.
func TestNoIndex(t *testing.T) {
	t.Parallel()
	files := []stargztest.File{{Name: "a.txt", Data: ziptest.Text(100<<10, 5)}, {Name: "b.bin", Data: mirrortest.Bytes(200<<10, 6)}}
	xz := append([]byte{0xfd, '7', 'z', 'X', 'Z', 0}, mirrortest.Bytes(10000, 7)...)
	for _, c := range []struct {
		name   string
		data   []byte
		format string
	}{
		{"plain.tar", stargztest.Tar(t, files...), "tar"},
		{"plain.tar.gz", stargztest.TarGz(t, files...), "tar.gz"},
		{"plain.tar.xz", xz, "xz"},
		{"random.tar.gz", mirrortest.Bytes(100<<10, 8), ""},
	} {
		m := mirrortest.New(t, c.data, mirrortest.Path("/"+c.name))
		_, err := Open(context.Background(), source(t, m.URL()), -1)
		var ni *NoIndexError
		switch {
		case c.format == "" && !errors.Is(err, ErrNotStargz):
			t.Errorf("%s: %v, want ErrNotStargz", c.name, err)
		case c.format != "" && (!errors.As(err, &ni) || ni.Format != c.format):
			t.Errorf("%s: %v, want no index, format %s", c.name, err, c.format)
		}
		// The footer's 51 bytes, then the start's 4 KiB.
		if g := gets(m); len(g) != 2 || g[0].N != FooterSize || g[1].Off != 0 || g[1].N != headLen || m.BytesServed() != FooterSize+headLen {
			t.Errorf("%s: GETs %+v", c.name, g)
		}
	}
	err := &NoIndexError{Format: "tar.gz"}
	if want := "the file is a gzip-compressed tar archive with no index (no eStargz table of contents at its end), so one member can only be had by reading the whole archive"; err.Error() != want {
		t.Errorf("sentence %q", err.Error())
	}
}

// TestOpenRefusals: a server without ranges, and TOCs that cannot hold.
func TestOpenRefusals(t *testing.T) {
	t.Parallel()
	_, _, _, files := testFiles()
	sb := stargztest.Make(t, stargztest.Options{}, files...)
	nr := mirrortest.New(t, sb.Bytes, mirrortest.Path("/l.tar.gz"), mirrortest.NoRanges())
	if _, err := Open(context.Background(), source(t, nr.URL()), -1); !errors.Is(err, ErrNoRanges) {
		t.Errorf("no ranges: %v", err)
	}

	// The footer points to the first member, not to the TOC.
	moved := append(append([]byte{}, sb.Bytes[:len(sb.Bytes)-FooterSize]...), stargztest.Footer(t, 0, false)...)
	// A chunk past the TOC.
	past := stargztest.Make(t, stargztest.Options{EditTOC: func(toc *stargztest.TOC) { toc.Entries[0].Offset = 1 << 40 }}, files...)
	// Chunks that do not cover the file.
	short := stargztest.Make(t, stargztest.Options{ChunkSize: 1 << 20, EditTOC: func(toc *stargztest.TOC) { toc.Entries[0].Size = 1<<20 + 5 }}, files...)
	version := stargztest.Make(t, stargztest.Options{EditTOC: func(toc *stargztest.TOC) { toc.Version = 2 }}, files...)
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"moved":   {moved, `the entry the footer points to is "pad.bin", not stargz.index.json`},
		"past":    {past.Bytes, "past the table of contents"},
		"short":   {short.Bytes, "its chunks do not cover its"},
		"version": {version.Bytes, "it is version 2, and Braid reads version 1"},
	} {
		m := mirrortest.New(t, c.data, mirrortest.Path("/bad.tar.gz"))
		_, err := Open(context.Background(), source(t, m.URL()), -1)
		if !errors.Is(err, ErrBadIndex) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrBadIndex with %q", name, err, c.want)
		}
	}
}
