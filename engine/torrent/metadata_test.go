package torrent

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anacrolix/torrent/bencode"
	"github.com/anacrolix/torrent/metainfo"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
)

// listDir returns every path under dir, for "nothing was written" checks.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A magnet link with x.pe gets its metadata from that peer: the files and
// sizes of a multi-file torrent, and the torrent's name. Nothing is
// written anywhere (the working directory included, where the library's
// default storage would go), and the torrent is dropped after, so a job
// of the same torrent can start at once and download it.
func TestFetchMetadataFromPeer(t *testing.T) {
	src := t.TempDir()
	files := []testFile{{Path: "a.bin", Data: randomBytes(t, 3*testPieceLen+5)}, {Path: "sub/b.bin", Data: randomBytes(t, testPieceLen)}}
	mi := makeTorrent(t, src, "pack", files)
	addr := seeder(t, src, mi)
	before := listDir(t, src)
	work := t.TempDir()
	t.Chdir(work)

	spec, err := ParseMagnet("magnet:?xt=urn:btih:" + mi.HashInfoBytes().HexString() + "&dn=shown&x.pe=" + addr)
	if err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	got, err := c.FetchMetadata(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if spec.InfoBytes != nil || spec.Name != "shown" {
		t.Fatalf("the spec given was changed: %q, %d info bytes", spec.Name, len(spec.InfoBytes))
	}
	if got.Name != "pack" || got.InfoHash != spec.InfoHash || len(got.Peers) != 1 {
		t.Fatalf("fetched spec %q %s peers %v", got.Name, got.InfoHash.HexString(), got.Peers)
	}
	doc, err := Document(got, "magnet:x")
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int64{}
	for _, f := range doc.Files {
		sizes[f.Name] = f.Size
	}
	if len(sizes) != 2 || sizes["pack/a.bin"] != 3*testPieceLen+5 || sizes["pack/sub/b.bin"] != testPieceLen {
		t.Fatalf("files from the metadata: %v", sizes)
	}
	if w := listDir(t, work); len(w) != 0 {
		t.Fatalf("fetching metadata wrote %v", w)
	}
	if after := listDir(t, src); len(after) != len(before) {
		t.Fatalf("the seeder's folder changed: %v, was %v", after, before)
	}

	// The same client then downloads it: the metadata torrent is gone.
	dest := t.TempDir()
	if _, err := run(t, c, &Request{Dir: dest, Spec: got}); err != nil {
		t.Fatal(err)
	}
	sameFile(t, dest, "pack/a.bin", files[0].Data)
	sameFile(t, dest, "pack/sub/b.bin", files[1].Data)
}

// Without a peer, FetchMetadata waits until its context ends, says so,
// and leaves nothing behind: the torrent can be added again.
func TestFetchMetadataCanceled(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	spec, err := ParseMagnet("magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567&dn=x&x.pe=" + dead)
	if err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.FetchMetadata(ctx, spec)
		errc <- err
	}()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("FetchMetadata did not return after its context ended")
	}
	j, err := c.Start(context.Background(), &Request{Dir: t.TempDir(), Spec: spec})
	if err != nil {
		t.Fatalf("the torrent is still in the client: %v", err)
	}
	j.Stop()
}

// Metadata from peers is checked as a .torrent is: against the link's
// info hash (the library does not check it for a v1 link), and for
// paths that climb out.
func TestCheckMetadata(t *testing.T) {
	t.Parallel()
	good := metainfo.Info{Name: "ok.bin", PieceLength: testPieceLen, Length: 10, Pieces: make([]byte, 20)}
	b, err := bencode.Marshal(good)
	if err != nil {
		t.Fatal(err)
	}
	if name, err := checkMetadata(b, metainfo.HashBytes(b)); err != nil || name != "ok.bin" {
		t.Fatalf("good metadata: %q, %v", name, err)
	}
	if _, err := checkMetadata(b, metainfo.Hash{1}); err == nil {
		t.Fatal("metadata of another hash was accepted")
	}
	bad := metainfo.Info{Name: "pack", PieceLength: testPieceLen, Pieces: make([]byte, 20),
		Files: []metainfo.FileInfo{{Path: []string{"..", "escape"}, Length: 10}}}
	if b, err = bencode.Marshal(bad); err != nil {
		t.Fatal(err)
	}
	if _, err := checkMetadata(b, metainfo.HashBytes(b)); err == nil {
		t.Fatal("metadata with a path that climbs out was accepted")
	}
}

// A peer that sends the metadata of another torrent than the link's is
// caught (anacrolix/torrent v1.59.1 takes it for a v1 link): the open
// fails with a clear message and nothing is written.
func TestFetchMetadataOfAnotherTorrent(t *testing.T) {
	src := t.TempDir()
	wanted := makeTorrent(t, src, "wanted.bin", []testFile{{Data: randomBytes(t, 2*testPieceLen)}})
	other := makeTorrent(t, src, "other.bin", []testFile{{Data: randomBytes(t, 3*testPieceLen)}})
	liar := torrenttest.MetadataLiar(t, other.InfoBytes)
	work := t.TempDir()
	t.Chdir(work)
	spec, err := ParseMagnet("magnet:?xt=urn:btih:" + wanted.HashInfoBytes().HexString() + "&x.pe=" + liar)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	got, err := newTestClient(t).FetchMetadata(ctx, spec)
	if err == nil {
		t.Fatalf("metadata of another torrent was taken: %q", got.Name)
	}
	if ctx.Err() != nil || !strings.Contains(err.Error(), "not the link's") {
		t.Fatalf("err %v, want the hash mismatch", err)
	}
	if w := listDir(t, work); len(w) != 0 {
		t.Fatalf("fetching metadata wrote %v", w)
	}
}

// FetchMetadata of a torrent a job is running waits for the job's
// metadata, lending it the peers it knows, and leaves the job's torrent
// alone: the job then downloads from that peer to the end.
func TestFetchMetadataWhileItsJobRuns(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 4*testPieceLen)
	mi := makeTorrent(t, src, "shared.bin", []testFile{{Data: data}})
	addr := seeder(t, src, mi)
	spec, err := ParseMagnet("magnet:?xt=urn:btih:" + mi.HashInfoBytes().HexString())
	if err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dest := t.TempDir()
	j, err := c.Start(ctx, &Request{Dir: dest, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	withPeer := *spec
	withPeer.Peers = []string{addr}
	got, err := c.FetchMetadata(ctx, &withPeer)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "shared.bin" || !bytes.Equal(got.InfoBytes, mi.InfoBytes) {
		t.Fatalf("fetched %q with %d info bytes", got.Name, len(got.InfoBytes))
	}
	if err := j.Err(); err != nil {
		t.Fatalf("the job: %v", err)
	}
	sameFile(t, dest, "shared.bin", data)
}

// A magnet job whose only peer sends another torrent's metadata fails
// with the hash mismatch and writes nothing, even with a web seed at hand
// that serves that other torrent's file: without the check, the library
// would take the metadata and the job would end "verified" with the
// wrong file.
func TestMagnetJobRefusesAnotherTorrent(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	wanted := makeTorrent(t, src, "wanted.bin", []testFile{{Data: randomBytes(t, 2*testPieceLen)}})
	otherData := randomBytes(t, 3*testPieceLen+7)
	other := makeTorrent(t, src, "other.bin", []testFile{{Data: otherData}})
	m := mirrortest.New(t, otherData)
	liar := torrenttest.MetadataLiar(t, other.InfoBytes)
	spec, err := ParseMagnet("magnet:?xt=urn:btih:" + wanted.HashInfoBytes().HexString() + "&x.pe=" + liar + "&ws=" + url.QueryEscape(m.URL()))
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	_, err = run(t, newTestClient(t), &Request{Dir: dest, Spec: spec})
	if err == nil || !strings.Contains(err.Error(), "not the link's") {
		t.Fatalf("err %v, want the hash mismatch", err)
	}
	if w := listDir(t, dest); len(w) != 0 {
		t.Fatalf("the job wrote %v", w)
	}
	if n := m.BytesServed(); n != 0 {
		t.Fatalf("the web seed was asked for %d bytes of the other torrent", n)
	}
}
