package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/engine/ziprange/ziptest"
)

// TestGetMemberMetalink fetches members of the ZIP a .meta4 describes from
// all its mirrors at once: the files equal what was zipped, the outcome
// names the CRC-32 and the sha-256 pieces, a mirror that sends bad pieces
// is told of, and members Braid cannot read get their sentences.
func TestGetMemberMetalink(t *testing.T) {
	t.Parallel()
	big := ziptest.Text(3<<20, 60)
	tool := mirrortest.Bytes(300<<10, 61)
	archive := ziptest.Make(t,
		ziptest.Entry{Name: "pad.bin", Data: mirrortest.Bytes(2<<20, 62), Method: zip.Store},
		ziptest.Entry{Name: "doc/big.txt", Data: big, Method: zip.Deflate},
		ziptest.Entry{Name: "bin/tool", Data: tool, Method: zip.Store},
		ziptest.Entry{Name: "locked.txt", Data: ziptest.Text(5000, 63), Method: zip.Deflate},
		ziptest.Entry{Name: "bz.bin", Data: []byte("BZh91AY&SY"), Method: 12, Raw: true, Size: 10},
	)
	ziptest.SetEncrypted(t, archive, "locked.txt")
	bad := mirrortest.New(t, archive, mirrortest.Path("/kit.zip"), mirrortest.Corrupt(64<<10, func(int) bool { return true }))
	a := mirrortest.New(t, archive, mirrortest.Path("/kit.zip"))
	b := mirrortest.New(t, archive, mirrortest.Path("/kit.zip"))
	meta := writeMeta4(t, t.TempDir(), "kit.zip", archive, 64<<10, "", bad.URL(), a.URL(), b.URL())
	dir := t.TempDir()
	code, out, errOut := runGet(t, "-d", dir, "--member", "doc/big.txt", "--member", "bin/tool", meta)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
	for name, want := range map[string][]byte{"doc/big.txt": big, "bin/tool": tool} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from what was zipped (%v)", name, err)
		}
		if !strings.Contains(out, name+": done, verified (CRC-32 and sha-256 pieces)") {
			t.Errorf("output does not name both checks for %s:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "doc/big.txt: done") || !strings.Contains(out, "of the archive from 2 mirrors") {
		t.Errorf("output does not say the member came from the two good mirrors:\n%s", out)
	}
	if !strings.Contains(errOut, bad.URL()) || !strings.Contains(errOut, "failed") || !strings.Contains(errOut, "sha-256 hash; the pieces came from another mirror") {
		t.Errorf("stderr does not tell of the corrupting mirror:\n%s", errOut)
	}
	if a.BytesServed()+b.BytesServed() >= int64(len(archive)) {
		t.Errorf("the good mirrors served %d bytes of a %d-byte archive", a.BytesServed()+b.BytesServed(), len(archive))
	}

	code, _, errOut = runGet(t, "-d", dir, "--member", "locked.txt", "--member", "bz.bin", meta)
	for _, want := range []string{
		"braid get: locked.txt: the member is encrypted, and Braid cannot decrypt ZIP members",
		"braid get: bz.bin: the member is compressed with method 12 (bzip2), which Braid cannot inflate (it reads stored and deflate members)",
	} {
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("exit %d; stderr lacks %q:\n%s", code, want, errOut)
		}
	}

	x := mirrortest.New(t, archive, mirrortest.Path("/kit.zip"), mirrortest.NoRanges())
	y := mirrortest.New(t, archive, mirrortest.Path("/kit.zip"), mirrortest.NoRanges())
	whole := writeMeta4(t, t.TempDir(), "kit.zip", archive, 64<<10, "", x.URL(), y.URL())
	code, _, errOut = runGet(t, "-d", dir, "--member", "bin/tool", whole)
	if code != 1 || !strings.Contains(errOut, "no mirror of the archive sends parts of files (byte ranges): reading an archive's list or one member needs them, so the whole archive must be downloaded") {
		t.Errorf("no ranges: exit %d, %s", code, errOut)
	}
}

// TestInspectMetalinkZip lists the members of the ZIP a .meta4 describes,
// from its end read by whole checked pieces.
func TestInspectMetalinkZip(t *testing.T) {
	t.Parallel()
	archive := ziptest.Make(t,
		ziptest.Entry{Name: "pad.bin", Data: mirrortest.Bytes(1<<20, 64), Method: zip.Store},
		ziptest.Entry{Name: "doc/notes.txt", Data: ziptest.Text(100000, 65), Method: zip.Deflate},
	)
	a := mirrortest.New(t, archive, mirrortest.Path("/kit.zip"))
	b := mirrortest.New(t, archive, mirrortest.Path("/kit.zip"))
	meta := writeMeta4(t, t.TempDir(), "kit.zip", archive, 64<<10, "", a.URL(), b.URL())
	r := inspectJSON(t, metalink.Prefs{}, meta)
	ar := r.Archive
	if ar == nil || !ar.Listed || len(ar.Members) != 2 || ar.PieceCheck != "sha-256" || ar.Mirrors < 1 {
		t.Fatalf("archive %+v", ar)
	}
	if m := ar.Members[1]; m.Path != "doc/notes.txt" || m.Size != 100000 || m.Method != "deflate" {
		t.Errorf("member %+v", m)
	}
	if served := a.BytesServed() + b.BytesServed(); served != ar.BytesRead || served > 3*64<<10 {
		t.Errorf("the mirrors served %d bytes for the list; inspect says %d", served, ar.BytesRead)
	}
	code, out, errOut := inspectRun(t, metalink.Prefs{}, meta)
	if code != 0 || !strings.Contains(out, "whole pieces, checked against their sha-256 hashes") || !strings.Contains(out, "doc/notes.txt") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestGetMemberTorrent fetches a member of the ZIP a .torrent of one file
// holds from its two web seeds at once, each piece checked against the
// torrent's sha-1 hashes, and inspect lists the members; a torrent without
// web seeds is refused in a sentence.
func TestGetMemberTorrent(t *testing.T) {
	t.Parallel()
	big := ziptest.Text(2<<20, 66)
	archive := ziptest.Make(t,
		ziptest.Entry{Name: "pad.bin", Data: mirrortest.Bytes(1<<20, 67), Method: zip.Store},
		ziptest.Entry{Name: "doc/big.txt", Data: big, Method: zip.Deflate},
	)
	a := mirrortest.New(t, archive, mirrortest.Path("/kit.zip"))
	b := mirrortest.New(t, archive, mirrortest.Path("/kit.zip"))
	mi := torrenttest.Make(t, t.TempDir(), "kit.zip", 32<<10, []torrenttest.File{{Data: archive}}, a.URL(), b.URL())
	tf := torrenttest.WriteFile(t, mi, "kit.zip.torrent")
	dir := t.TempDir()
	code, out, errOut := runGet(t, "-d", dir, "--member", "doc/big.txt", tf)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "doc", "big.txt")); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("doc/big.txt differs from what was zipped (%v)", err)
	}
	if !strings.Contains(out, "doc/big.txt: done, verified (CRC-32 and sha-1 pieces)") || !strings.Contains(out, "from 2 mirrors") {
		t.Errorf("output:\n%s", out)
	}
	if a.BytesServed() == 0 || b.BytesServed() == 0 || a.BytesServed()+b.BytesServed() > int64(len(big))+256<<10 {
		t.Errorf("the web seeds served %d and %d bytes for a member of %d bytes before compression", a.BytesServed(), b.BytesServed(), len(big))
	}
	r := inspectJSON(t, metalink.Prefs{}, tf)
	if r.Archive == nil || !r.Archive.Listed || len(r.Archive.Members) != 2 || r.Archive.PieceCheck != "sha-1" {
		t.Errorf("inspect: archive %+v", r.Archive)
	}

	bare := torrenttest.WriteFile(t, torrenttest.Make(t, t.TempDir(), "kit.zip", 32<<10, []torrenttest.File{{Data: archive}}), "bare.torrent")
	code, _, errOut = runGet(t, "-d", dir, "--member", "doc/big.txt", bare)
	if code != 1 || !strings.Contains(errOut, "the torrent names no web seeds (HTTP mirrors): Braid reads a torrent's archive members by range from its web seeds, not from peers") {
		t.Errorf("no web seeds: exit %d, %s", code, errOut)
	}
}

// TestInspectMetalinkZipMirrorDown: a metalink whose only mirror is not
// there still inspects: the list says in a sentence why it cannot be read.
func TestInspectMetalinkZipMirrorDown(t *testing.T) {
	t.Parallel()
	archive := ziptest.Make(t, ziptest.Entry{Name: "a.txt", Data: []byte("a"), Method: zip.Store})
	gone := mirrortest.New(t, archive, mirrortest.Path("/kit.zip"))
	link := gone.URL()
	gone.Close()
	meta := writeMeta4(t, t.TempDir(), "kit.zip", archive, 64<<10, "", link)
	r := inspectJSON(t, metalink.Prefs{}, meta)
	if r.Archive == nil || r.Archive.Listed || !strings.HasPrefix(r.Archive.Error, "the archive's list cannot be read: ") {
		t.Fatalf("archive %+v", r.Archive)
	}
}
