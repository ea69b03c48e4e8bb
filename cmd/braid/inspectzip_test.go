package main

import (
	"archive/zip"
	"bytes"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"net/http"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
)

// zipArchive is a test archive: a large stored member first, so that the
// directory lies far from the start, then a deflated one and a folder.
func zipArchive(t *testing.T) (archive, big, notes []byte) {
	t.Helper()
	big = mirrortest.Bytes(2<<20, 40)
	notes = make([]byte, 40000)
	hex.Encode(notes, mirrortest.Bytes(20000, 41))
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range []struct {
		name   string
		data   []byte
		method uint16
	}{
		{"big.bin", big, zip.Store},
		{"docs/", nil, zip.Store},
		{"docs/notes.txt", notes, zip.Deflate},
	} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), big, notes
}

// zipGets are the mirror's GET requests.
func zipGets(m *mirrortest.Mirror) []mirrortest.Range {
	var out []mirrortest.Range
	for _, r := range m.Ranges() {
		if r.Method == http.MethodGet {
			out = append(out, r)
		}
	}
	return out
}

func TestInspectZipMembers(t *testing.T) {
	t.Parallel()
	archive, big, notes := zipArchive(t)
	m := mirrortest.New(t, archive, mirrortest.Path("/dist/kit.zip"))
	r := inspectJSON(t, metalink.Prefs{}, m.URL())
	a := r.Archive
	if a == nil || !a.Listed || a.Format != "zip" {
		t.Fatalf("archive %+v", a)
	}
	if len(a.Members) != 3 {
		t.Fatalf("members %+v", a.Members)
	}
	b, d, n := a.Members[0], a.Members[1], a.Members[2]
	if b.Path != "big.bin" || b.Size != int64(len(big)) || b.CompressedSize != b.Size || b.Method != "stored" || b.CRC32 != fmt.Sprintf("%08x", crc32.ChecksumIEEE(big)) || b.Offset != 0 {
		t.Errorf("big.bin %+v", b)
	}
	if !d.Folder || d.Path != "docs/" {
		t.Errorf("docs/ %+v", d)
	}
	if n.Path != "docs/notes.txt" || n.Method != "deflate" || n.MethodID != 8 || n.CompressedSize >= n.Size || n.CRC32 != fmt.Sprintf("%08x", crc32.ChecksumIEEE(notes)) || n.Encrypted {
		t.Errorf("docs/notes.txt %+v", n)
	}
	// The list came from the archive's tail, in one request of 65 KiB:
	// the 2 MiB of big.bin before it were not read.
	g := zipGets(m)
	if len(g) != 1 || a.Requests != 1 || g[0].N > 65<<10+1024 || g[0].Off+g[0].N != int64(len(archive)) {
		t.Errorf("GETs %+v (report: %d requests)", g, a.Requests)
	}
	if a.BytesRead != m.BytesServed() || a.BytesRead > 70<<10 {
		t.Errorf("report says %d bytes read, the mirror served %d", a.BytesRead, m.BytesServed())
	}

	code, out, errOut := inspectRun(t, metalink.Prefs{}, m.URL())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{
		"members    2 files in the ZIP archive, 2.0 MiB (",
		"reading the list took 1 range request, 65.0 KiB",
		fmt.Sprintf("%12d %12d  stored   %08x  big.bin", len(big), len(big), crc32.ChecksumIEEE(big)),
		fmt.Sprintf("%12d %12d  deflate  %08x  docs/notes.txt", len(notes), n.CompressedSize, crc32.ChecksumIEEE(notes)),
	} {
		if !strings.Contains(out, w) {
			t.Errorf("text lacks %q:\n%s", w, out)
		}
	}
}

func TestInspectZipWithoutRanges(t *testing.T) {
	t.Parallel()
	archive, _, _ := zipArchive(t)
	m := mirrortest.New(t, archive, mirrortest.Path("/dist/kit.zip"), mirrortest.NoRanges())
	code, out, errOut := inspectRun(t, metalink.Prefs{}, m.URL())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "members    cannot be listed: the server does not send parts of files (byte ranges): reading an archive's list or one member needs them, so the whole archive must be downloaded"
	if !strings.Contains(out, want) {
		t.Errorf("text lacks %q:\n%s", want, out)
	}
	r := inspectJSON(t, metalink.Prefs{}, m.URL())
	if r.Archive == nil || r.Archive.Listed || !strings.Contains(r.Archive.Error, "byte ranges") || len(r.Archive.Members) != 0 || r.Archive.Members == nil {
		t.Errorf("archive %+v", r.Archive)
	}
}

func TestInspectNotZipNamedZip(t *testing.T) {
	t.Parallel()
	m := mirrortest.New(t, mirrortest.Bytes(300<<10, 42), mirrortest.Path("/fake.zip"))
	r := inspectJSON(t, metalink.Prefs{}, m.URL())
	if r.Archive == nil || r.Archive.Listed || !strings.Contains(r.Archive.Error, "not a ZIP archive") {
		t.Errorf("archive %+v", r.Archive)
	}
	// A plain URL that is not named as an archive is not read as one.
	other := mirrortest.New(t, mirrortest.Bytes(1000, 43), mirrortest.Path("/tool.bin"))
	if r := inspectJSON(t, metalink.Prefs{}, other.URL()); r.Archive != nil || len(zipGets(other)) != 0 {
		t.Errorf("tool.bin: archive %+v, GETs %+v", r.Archive, zipGets(other))
	}
}
