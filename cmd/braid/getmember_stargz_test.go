package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/stargz/stargztest"
	"braid/engine/torrent/torrenttest"
	"braid/engine/ziprange/ziptest"
)

// stargzLayer is a test eStargz blob: a large file first, so that the
// table of contents lies far from the start, then a text file, a file
// cut into chunks, a symlink, and a file whose digest the table can be
// made to lie about.
func stargzLayer(t *testing.T, o stargztest.Options) (sb *stargztest.Blob, notes, tool []byte) {
	t.Helper()
	notes = ziptest.Text(300<<10, 70)
	tool = mirrortest.Bytes(900<<10, 71)
	if o.ChunkSize == 0 {
		o.ChunkSize = 256 << 10
	}
	sb = stargztest.Make(t, o,
		stargztest.File{Name: "pad.bin", Data: mirrortest.Bytes(2<<20, 72)},
		stargztest.File{Name: "doc/", Type: "dir"},
		stargztest.File{Name: "doc/notes.txt", Data: notes},
		stargztest.File{Name: "bin/tool", Data: tool, Mode: 0o755},
		stargztest.File{Name: "bin/sh", Type: "symlink", LinkName: "tool"},
		stargztest.File{Name: "pad2.bin", Data: mirrortest.Bytes(1<<20, 73)},
	)
	return sb, notes, tool
}

// TestInspectStargz lists an eStargz blob at a plain URL from its footer
// and table of contents alone, as JSON and for people.
func TestInspectStargz(t *testing.T) {
	t.Parallel()
	sb, notes, tool := stargzLayer(t, stargztest.Options{})
	m := mirrortest.New(t, sb.Bytes, mirrortest.Path("/layers/app.tar.gz"))
	r := inspectJSON(t, metalink.Prefs{}, m.URL())
	a := r.Archive
	if a == nil || !a.Listed || a.Format != "estargz" || a.TOCDigest != sb.TOCDigest {
		t.Fatalf("archive %+v", a)
	}
	var paths []string
	for _, mem := range a.Members {
		paths = append(paths, mem.Path+":"+mem.Type)
	}
	if want := "pad.bin:reg doc/:dir doc/notes.txt:reg bin/tool:reg bin/sh:symlink pad2.bin:reg"; strings.Join(paths, " ") != want {
		t.Fatalf("members %q, want %q", paths, want)
	}
	n, tl, sh, d := a.Members[2], a.Members[3], a.Members[4], a.Members[1]
	if n.Size != int64(len(notes)) || n.CompressedSize != sb.ChunkBytes("doc/notes.txt") || n.CompressedSize >= n.Size || n.Chunks != 2 || !strings.HasPrefix(n.Digest, "sha256:") || n.Method != "gzip" || n.CRC32 != "" {
		t.Errorf("doc/notes.txt %+v", n)
	}
	if tl.Size != int64(len(tool)) || tl.Chunks != 4 || tl.Offset != sb.Chunks["bin/tool"][0][0] {
		t.Errorf("bin/tool %+v", tl)
	}
	if sh.LinkName != "tool" || !d.Folder {
		t.Errorf("bin/sh %+v, doc/ %+v", sh, d)
	}
	// Two GETs: the footer, the table of contents.
	if g := zipGets(m); len(g) != 2 || a.Requests != 2 || a.BytesRead != sb.IndexBytes() || m.BytesServed() != sb.IndexBytes() {
		t.Errorf("GETs %+v; report: %d requests, %d bytes; served %d, want the index's %d", g, a.Requests, a.BytesRead, m.BytesServed(), sb.IndexBytes())
	}

	code, out, errOut := inspectRun(t, metalink.Prefs{}, m.URL())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Logf("text:\n%s", out)
	for _, w := range []string{
		"members    4 files in the eStargz archive, 4.2 MiB (",
		"reading the list took 2 range requests, ",
		"index      table of contents " + sb.TOCDigest,
		fmt.Sprintf("%12d %12d  file     %-12s  doc/notes.txt", len(notes), n.CompressedSize, strings.TrimPrefix(n.Digest, "sha256:")[:12]),
		fmt.Sprintf("%12d %12d  symlink  %-12s  bin/sh -> tool", 0, 0, ""),
	} {
		if !strings.Contains(out, w) {
			t.Errorf("text lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, " doc/\n") {
		t.Errorf("the text lists a folder:\n%s", out)
	}

	// A registry blob, named by its digest, is read the same way.
	blob := mirrortest.New(t, sb.Bytes, mirrortest.Path("/v2/app/blobs/sha256:"+strings.Repeat("ab", 32)))
	if r := inspectJSON(t, metalink.Prefs{}, blob.URL()); r.Archive == nil || !r.Archive.Listed || len(r.Archive.Members) != 6 {
		t.Errorf("registry blob: archive %+v", r.Archive)
	}
}

// TestInspectTarWithoutIndex: a tar.gz, a tar and a .tar.xz without an
// eStargz index each get the sentence that only the whole archive has the
// members, found by reading their end and start, not by their names.
func TestInspectTarWithoutIndex(t *testing.T) {
	t.Parallel()
	files := []stargztest.File{{Name: "a.txt", Data: ziptest.Text(50<<10, 74)}}
	xz := append([]byte{0xfd, '7', 'z', 'X', 'Z', 0}, mirrortest.Bytes(8000, 75)...)
	for _, c := range []struct {
		name, data, what string
	}{
		{"plain.tar.gz", string(stargztest.TarGz(t, files...)), "a gzip-compressed tar archive"},
		{"plain.tar", string(stargztest.Tar(t, files...)), "a tar archive"},
		{"plain.tar.xz", string(xz), "an xz-compressed file"},
	} {
		m := mirrortest.New(t, []byte(c.data), mirrortest.Path("/"+c.name))
		r := inspectJSON(t, metalink.Prefs{}, m.URL())
		want := "the file is " + c.what + " with no index (no eStargz table of contents at its end), so one member can only be had by reading the whole archive; braid get " + m.URL() + " downloads it"
		if r.Archive == nil || r.Archive.Listed || r.Archive.Format != "tar" || r.Archive.Error != want || r.Archive.Members == nil {
			t.Errorf("%s: archive %+v, want the error %q", c.name, r.Archive, want)
		}
		code, out, _ := inspectRun(t, metalink.Prefs{}, m.URL())
		if code != 0 || !strings.Contains(out, "members    cannot be listed: "+want) {
			t.Errorf("%s: exit %d, text:\n%s", c.name, code, out)
		}
	}
	// An eStargz blob named as a plain .tar is listed: the end tells.
	sb, _, _ := stargzLayer(t, stargztest.Options{})
	m := mirrortest.New(t, sb.Bytes, mirrortest.Path("/named.tar"))
	if r := inspectJSON(t, metalink.Prefs{}, m.URL()); r.Archive == nil || !r.Archive.Listed || r.Archive.Format != "estargz" {
		t.Errorf("named.tar: %+v", r.Archive)
	}
}

// TestGetMemberStargz fetches files of an eStargz blob at a plain URL: the
// files equal what was packed, the outcome names the sha-256, and the
// mirror served only the footer, the table of contents and the files' own
// gzip chunks. Links, folders, absent names and a digest the table lies
// about get their sentences, and nothing on disk.
func TestGetMemberStargz(t *testing.T) {
	t.Parallel()
	sb, notes, tool := stargzLayer(t, stargztest.Options{})
	m := mirrortest.New(t, sb.Bytes, mirrortest.Path("/app.tar.gz"))
	dir := t.TempDir()
	code, out, errOut := runGet(t, "-d", dir, "--member", "doc/notes.txt", "--member", "bin/tool", m.URL())
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("stdout:\n%s", out)
	for name, want := range map[string][]byte{"doc/notes.txt": notes, "bin/tool": tool} {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(b, want) {
			t.Errorf("%s differs from what was packed (%v)", name, err)
		}
		if !strings.Contains(out, name+": done, verified (sha-256) (") {
			t.Errorf("output does not say %s was verified by its sha-256:\n%s", name, out)
		}
	}
	if want := sb.IndexBytes() + sb.ChunkBytes("doc/notes.txt") + sb.ChunkBytes("bin/tool"); m.BytesServed() != want {
		t.Errorf("the mirror served %d bytes of a %d-byte blob, want the index's and the two files' chunks' %d", m.BytesServed(), len(sb.Bytes), want)
	}
	if _, err := os.Stat(filepath.Join(dir, "pad.bin")); err == nil {
		t.Error("pad.bin was written")
	}

	code, out, errOut = runGet(t, "--json", "-d", t.TempDir(), "--member", "doc/notes.txt", m.URL())
	var res jsonResult
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &res); code != 0 || err != nil {
		t.Fatalf("--json: exit %d, %q: %v\n%s", code, out, err, errOut)
	}
	if !res.OK || res.Outcome != "verified" || res.VerifiedBy != "sha-256" || res.Bytes != int64(len(notes)) || res.Fetched != sb.ChunkBytes("doc/notes.txt") {
		t.Errorf("--json result %+v", res)
	}

	out2 := filepath.Join(t.TempDir(), "out")
	code, out, errOut = runGet(t, "-d", out2, "--member", "bin/sh", "--member", "doc/", "--member", "nope", m.URL())
	for _, want := range []string{
		"braid get: bin/sh: the member is a symbolic link to tool, with no bytes of its own; name the file it points to",
		"braid get: doc/: the member is a folder in the archive; name the files inside it",
		"braid get: nope: the archive has no member of that name (braid inspect lists them)",
	} {
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("exit %d; stderr lacks %q:\n%s\n%s", code, want, errOut, out)
		}
	}

	// The table lies about bin/tool's digest: refused, nothing kept.
	lying, _, _ := stargzLayer(t, stargztest.Options{EditTOC: func(toc *stargztest.TOC) {
		for i, e := range toc.Entries {
			if e.Name == "bin/tool" && e.Type == "reg" {
				toc.Entries[i].Digest = toc.Entries[0].Digest // pad.bin's
			}
		}
	}})
	lm := mirrortest.New(t, lying.Bytes, mirrortest.Path("/lies.tar.gz"))
	ldir := t.TempDir()
	code, _, errOut = runGet(t, "-d", ldir, "--member", "bin/tool", lm.URL())
	if code != 1 || !strings.Contains(errOut, "braid get: bin/tool: failed: the member's bytes do not match the digest the archive's table of contents gives for it (its sha256:") || !strings.Contains(errOut, "; nothing is kept") {
		t.Errorf("lying digest: exit %d, %s", code, errOut)
	}
	if left, _ := os.ReadDir(filepath.Join(ldir, "bin")); len(left) != 0 {
		t.Errorf("lying digest: left %v", left)
	}

	nr := mirrortest.New(t, sb.Bytes, mirrortest.Path("/app.tar.gz"), mirrortest.NoRanges())
	code, _, errOut = runGet(t, "-d", dir, "--member", "bin/tool", nr.URL())
	if code != 1 || !strings.Contains(errOut, "the server does not send parts of files (byte ranges): reading an archive's list or one member needs them, so the whole archive must be downloaded") {
		t.Errorf("no ranges: exit %d, %s", code, errOut)
	}
}

// TestGetMemberStargzMetalink fetches files of the eStargz blob a .meta4
// describes from all its mirrors at once: the outcome names the sha-256
// and the sha-256 pieces, a mirror that corrupts is told of, and the good
// mirrors served far less than the blob.
func TestGetMemberStargzMetalink(t *testing.T) {
	t.Parallel()
	sb, notes, tool := stargzLayer(t, stargztest.Options{})
	bad := mirrortest.New(t, sb.Bytes, mirrortest.Path("/app.tar.gz"), mirrortest.Corrupt(64<<10, func(int) bool { return true }))
	a := mirrortest.New(t, sb.Bytes, mirrortest.Path("/app.tar.gz"))
	b := mirrortest.New(t, sb.Bytes, mirrortest.Path("/app.tar.gz"))
	meta := writeMeta4(t, t.TempDir(), "app.tar.gz", sb.Bytes, 64<<10, "", bad.URL(), a.URL(), b.URL())
	dir := t.TempDir()
	code, out, errOut := runGet(t, "-d", dir, "--member", "bin/tool", "--member", "doc/notes.txt", meta)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
	for name, want := range map[string][]byte{"doc/notes.txt": notes, "bin/tool": tool} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from what was packed (%v)", name, err)
		}
		if !strings.Contains(out, name+": done, verified (sha-256 and sha-256 pieces)") {
			t.Errorf("output does not name both checks for %s:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "bin/tool: done") || !strings.Contains(out, "of the archive from 2 mirrors") {
		t.Errorf("output does not say bin/tool came from the two good mirrors:\n%s", out)
	}
	if !strings.Contains(errOut, bad.URL()) || !strings.Contains(errOut, "sha-256 hash; the pieces came from another mirror") {
		t.Errorf("stderr does not tell of the corrupting mirror:\n%s", errOut)
	}
	// Whole 64 KiB pieces around the index and the chunks, no more.
	limit := sb.IndexBytes() + sb.ChunkBytes("bin/tool") + sb.ChunkBytes("doc/notes.txt") + 6*64<<10
	if got := a.BytesServed() + b.BytesServed(); got > limit || got >= int64(len(sb.Bytes)) {
		t.Errorf("the good mirrors served %d bytes of a %d-byte blob, want at most %d", got, len(sb.Bytes), limit)
	}

	// A metalink of a plain tar.gz: the sentence, nothing fetched but
	// the end and the start.
	plain := stargztest.TarGz(t, stargztest.File{Name: "a.txt", Data: ziptest.Text(300<<10, 76)})
	p1 := mirrortest.New(t, plain, mirrortest.Path("/plain.tar.gz"))
	pmeta := writeMeta4(t, t.TempDir(), "plain.tar.gz", plain, 64<<10, "", p1.URL())
	code, _, errOut = runGet(t, "-d", dir, "--member", "a.txt", pmeta)
	if want := "the file is a gzip-compressed tar archive with no index (no eStargz table of contents at its end), so one member can only be had by reading the whole archive; braid get " + pmeta + " downloads it"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("plain tar.gz: exit %d, stderr %s\nwant %s", code, errOut, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
		t.Error("a.txt was written")
	}
}

// TestGetMemberPlainTar: a plain tar.gz at a URL gets the sentence; at a
// URL named as neither, a ZIP is read as a ZIP in one request, an eStargz
// blob as one, and other files get the ZIP's sentence.
func TestGetMemberPlainTar(t *testing.T) {
	t.Parallel()
	plain := stargztest.TarGz(t, stargztest.File{Name: "a.txt", Data: ziptest.Text(300<<10, 77)})
	m := mirrortest.New(t, plain, mirrortest.Path("/src.tgz"))
	dir := t.TempDir()
	code, _, errOut := runGet(t, "-d", dir, "--member", "a.txt", m.URL())
	if want := "braid get: " + m.URL() + ": the file is a gzip-compressed tar archive with no index (no eStargz table of contents at its end), so one member can only be had by reading the whole archive; braid get " + m.URL() + " downloads it"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %s\nwant %s", code, errOut, want)
	}
	if m.BytesServed() > 51+4096 {
		t.Errorf("served %d bytes to tell a plain tar.gz", m.BytesServed())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("on disk: %v", entries)
	}

	data := ziptest.Text(20000, 78)
	zm := mirrortest.New(t, ziptest.Make(t, ziptest.Entry{Name: "z.txt", Data: data, Method: 8}), mirrortest.Path("/download"))
	code, out, errOut := runGet(t, "-d", dir, "--member", "z.txt", zm.URL())
	if got, _ := os.ReadFile(filepath.Join(dir, "z.txt")); code != 0 || !bytes.Equal(got, data) || !strings.Contains(out, "z.txt: done, verified (CRC-32)") {
		t.Errorf("unnamed ZIP: exit %d\n%s\n%s", code, out, errOut)
	}
	if g := zipGets(zm); len(g) != 1 {
		t.Errorf("unnamed ZIP: GETs %+v, want the one of its tail", g)
	}

	// Named as neither, an eStargz blob is read after the ZIP's tail
	// shows none, and a file that is neither gets the ZIP's sentence.
	sb, notes, _ := stargzLayer(t, stargztest.Options{})
	sm := mirrortest.New(t, sb.Bytes, mirrortest.Path("/blob"))
	code, out, errOut = runGet(t, "-d", dir, "--member", "doc/notes.txt", sm.URL())
	if got, _ := os.ReadFile(filepath.Join(dir, "doc", "notes.txt")); code != 0 || !bytes.Equal(got, notes) || !strings.Contains(out, "doc/notes.txt: done, verified (sha-256)") {
		t.Errorf("unnamed eStargz: exit %d\n%s\n%s", code, out, errOut)
	}
	nm := mirrortest.New(t, mirrortest.Bytes(100<<10, 79), mirrortest.Path("/noise"))
	code, _, errOut = runGet(t, "-d", dir, "--member", "x", nm.URL())
	if code != 1 || !strings.Contains(errOut, "braid get: "+nm.URL()+": the file is not a ZIP archive: it does not end with a ZIP directory") {
		t.Errorf("neither: exit %d, %s", code, errOut)
	}
}

// TestInspectStargzMirrors lists the eStargz blob a .meta4 describes from
// its two mirrors, by whole pieces checked against its sha-256 hashes,
// and the one a torrent holds from its web seeds, whose files get fetches
// by sha-1 pieces.
func TestInspectStargzMirrors(t *testing.T) {
	t.Parallel()
	sb, _, tool := stargzLayer(t, stargztest.Options{})
	a := mirrortest.New(t, sb.Bytes, mirrortest.Path("/app.tar.gz"))
	b := mirrortest.New(t, sb.Bytes, mirrortest.Path("/app.tar.gz"))
	meta := writeMeta4(t, t.TempDir(), "app.tar.gz", sb.Bytes, 16<<10, "", a.URL(), b.URL())
	r := inspectJSON(t, metalink.Prefs{}, meta)
	if r.Archive == nil || !r.Archive.Listed || r.Archive.Format != "estargz" || len(r.Archive.Members) != 6 || r.Archive.PieceCheck != "sha-256" || r.Archive.TOCDigest != sb.TOCDigest {
		t.Fatalf("archive %+v", r.Archive)
	}
	if got := a.BytesServed() + b.BytesServed(); got > sb.IndexBytes()+2*16<<10 {
		t.Errorf("the mirrors served %d bytes for an index of %d", got, sb.IndexBytes())
	}

	mi := torrenttest.Make(t, t.TempDir(), "app.tar.gz", 32<<10, []torrenttest.File{{Data: sb.Bytes}}, a.URL(), b.URL())
	tf := torrenttest.WriteFile(t, mi, "app.torrent")
	r = inspectJSON(t, metalink.Prefs{}, tf)
	if r.Archive == nil || !r.Archive.Listed || r.Archive.Format != "estargz" || r.Archive.PieceCheck != "sha-1" {
		t.Fatalf("torrent: archive %+v", r.Archive)
	}
	dir := t.TempDir()
	code, out, errOut := runGet(t, "-d", dir, "--member", "bin/tool", tf)
	if got, _ := os.ReadFile(filepath.Join(dir, "bin", "tool")); code != 0 || !bytes.Equal(got, tool) || !strings.Contains(out, "bin/tool: done, verified (sha-256 and sha-1 pieces)") {
		t.Errorf("torrent: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestInspectMetalinkOfTarballAsksNoMirror: a metalink of a tar that
// cannot hold an eStargz index (bzip2, xz, plain: the index is a gzip
// member) is inspected as before, without a request to its mirrors;
// source tarballs are what most metalinks of tars describe.
func TestInspectMetalinkOfTarballAsksNoMirror(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"src-1.0.tar.bz2", "src-1.0.tar.xz", "src-1.0.tar"} {
		data := mirrortest.Bytes(100<<10, 78)
		m := mirrortest.New(t, data, mirrortest.Path("/"+name))
		meta := writeMeta4(t, t.TempDir(), name, data, 64<<10, "", m.URL())
		r := inspectJSON(t, metalink.Prefs{}, meta)
		if r.Archive != nil || m.Requests() != 0 {
			t.Errorf("%s: archive %+v, %d requests to its mirror", name, r.Archive, m.Requests())
		}
	}
}
