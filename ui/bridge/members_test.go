package bridge

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/engine/ziprange/ziptest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/ui"
)

// TestMembersFromThePicker: the picker's "Choose files inside" reads a
// metalink's ZIP archive's directory from its mirrors (an encrypted
// member listed with its reason), and the ticked member is added as a
// member job that runs under its own name, shows the archive's pieces
// that cover it as they arrive, and lands verified by its CRC-32 and the
// archive's piece hashes.
func TestMembersFromThePicker(t *testing.T) {
	t.Parallel()
	big := ziptest.Text(3<<20, 3)
	archive := ziptest.Make(t,
		ziptest.Entry{Name: "docs/readme.txt", Data: []byte("hello\n"), Method: zip.Store},
		ziptest.Entry{Name: "data/big.txt", Data: big, Method: zip.Deflate},
		ziptest.Entry{Name: "secret.bin", Data: []byte("locked"), Method: zip.Store},
	)
	ziptest.SetEncrypted(t, archive, "secret.bin")
	m1 := mirrortest.New(t, archive, mirrortest.Rate(600<<10))
	m2 := mirrortest.New(t, archive, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(600<<10))
	doc := &metalink.Document{Version: 4, Files: []metalink.File{describeData(t, "a.zip", archive, m1.URL(), m2.URL())}}
	q := openQueue(t)
	b := newBackend(t, q)
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	if !ui.IsArchiveDoc(doc) {
		t.Fatal("a metalink of one .zip is not offered for its files inside")
	}
	list, err := b.ReadArchive(context.Background(), "a.meta4", doc)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ui.ArchiveMember{}
	for _, m := range list.Members {
		byName[m.Name] = m
	}
	if m := byName["data/big.txt"]; m.Size != int64(len(big)) || m.Method != "deflate" || m.Refused != "" || m.Compressed >= m.Size {
		t.Errorf("the listed member: %+v", m)
	}
	if m := byName["secret.bin"]; !strings.Contains(m.Refused, "encrypted") {
		t.Errorf("the encrypted member is listed as %+v", m)
	}
	if _, err := b.Add(context.Background(), ui.AddRequest{Source: "a.meta4", Doc: doc, Members: []string{"secret.bin"}, Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "encrypted") {
		t.Errorf("adding the encrypted member: %v", err)
	}

	dir := t.TempDir()
	id, err := b.Add(context.Background(), ui.AddRequest{Source: "a.meta4", Doc: doc, Members: []string{"data/big.txt"}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	added, err := q.Get(int64(id))
	if err != nil || added.Member == nil {
		t.Fatalf("the job is not a member job: %v", err)
	}
	rec := *added.Member
	_, count := rec.Covering(pieceLen)
	sawLive := false
	testkit.WaitFor(t, "the member to land", func() bool {
		for _, j := range b.Active() {
			if j.ID != id || j.State != ui.Running || j.Name != "data/big.txt" {
				continue
			}
			d, err := b.Detail(id, true)
			if err != nil || len(d.Files) != 1 {
				continue
			}
			done := 0
			for _, s := range d.Files[0].Pieces.State {
				if s == ui.PieceDone {
					done++
				}
			}
			if d.Files[0].Pieces.Len() == count && done > 0 && done < count && len(d.Files[0].Mirrors) == 2 {
				sawLive = true
			}
		}
		return jobByID(t, b, id).State == ui.Done
	})
	if !sawLive {
		t.Error("never saw the member's pieces filling while it ran")
	}
	got, err := os.ReadFile(filepath.Join(dir, "data", "big.txt"))
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("the extracted member: %d bytes, %v", len(got), err)
	}
	j := jobByID(t, b, id)
	if j.Name != "data/big.txt" || j.Size != int64(len(big)) || j.Outcome != "verified (CRC-32 and sha-256 piece hashes)" {
		t.Errorf("the done row: %q, %d bytes, %q", j.Name, j.Size, j.Outcome)
	}
	if qj, err := q.Get(int64(id)); err != nil || qj.State != queue.Done {
		t.Errorf("the queue's job: %v, %v", qj.State, err)
	}
	// Verify has no published hash to check it against: it says so, and
	// the job stays done.
	if err := b.Verify(id); err == nil || !strings.Contains(err.Error(), "CRC-32") {
		t.Errorf("Verify of a member job: %v", err)
	}
	if j := jobByID(t, b, id); j.State != ui.Done {
		t.Errorf("after Verify the job is %v", j.State)
	}
}

// TestArchiveWithoutRanges: an archive whose server sends only whole
// files cannot be looked inside, and the picker is told so in a sentence.
func TestArchiveWithoutRanges(t *testing.T) {
	t.Parallel()
	archive := ziptest.Make(t, ziptest.Entry{Name: "a.txt", Data: ziptest.Text(200<<10, 1), Method: zip.Deflate})
	m := mirrortest.New(t, archive, mirrortest.NoRanges())
	doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: "a.zip", Size: int64(len(archive)),
		URLs: []metalink.URL{{URL: m.URL(), Priority: 1}}}}}
	b := newBackend(t, openQueue(t))
	_, err := b.ReadArchive(context.Background(), m.URL(), doc)
	if err == nil || !strings.Contains(err.Error(), "byte ranges") {
		t.Fatalf("ReadArchive without ranges: %v", err)
	}
}

// TestMembersOfATorrent: a .torrent of one ZIP archive is looked inside
// through its web seed, each piece checked against the torrent's sha-1
// hashes, and its member job lands verified by both; a torrent that names
// no web seed says in a sentence why its files inside cannot be read.
func TestMembersOfATorrent(t *testing.T) {
	t.Parallel()
	inner := ziptest.Text(1<<20, 31)
	archive := ziptest.Make(t,
		ziptest.Entry{Name: "a.txt", Data: []byte("a\n"), Method: zip.Store},
		ziptest.Entry{Name: "big/inner.txt", Data: inner, Method: zip.Deflate},
	)
	seed := mirrortest.New(t, archive, mirrortest.Path("/files/pack.zip"))
	with := torrenttest.WriteFile(t, torrenttest.Make(t, t.TempDir(), "pack.zip", 32<<10,
		[]torrenttest.File{{Data: archive}}, seed.URL()), "pack.torrent")
	without := torrenttest.WriteFile(t, torrenttest.Make(t, t.TempDir(), "pack.zip", 32<<10,
		[]torrenttest.File{{Data: archive}}), "bare.torrent")
	q := openQueue(t)
	b := newBackend(t, q)
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}

	bare, err := b.Open(context.Background(), without)
	if err != nil {
		t.Fatal(err)
	}
	if !ui.IsArchiveDoc(bare) {
		t.Fatal("a torrent of one .zip is not offered for its files inside")
	}
	if _, err := b.ReadArchive(context.Background(), without, bare); err == nil || !strings.Contains(err.Error(), "no web seed") {
		t.Errorf("ReadArchive of a torrent without web seeds: %v", err)
	}

	doc, err := b.Open(context.Background(), with)
	if err != nil {
		t.Fatal(err)
	}
	list, err := b.ReadArchive(context.Background(), with, doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Members) != 2 || list.Members[1].Name != "big/inner.txt" || list.Members[1].Size != int64(len(inner)) {
		t.Fatalf("the torrent's archive lists %+v", list.Members)
	}
	dir := t.TempDir()
	id, err := b.Add(context.Background(), ui.AddRequest{Source: with, Doc: doc, Members: []string{"big/inner.txt"}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the torrent's member to land", func() bool {
		j := jobByID(t, b, id)
		return j.State == ui.Done || j.State == ui.Failed
	})
	j := jobByID(t, b, id)
	if j.State != ui.Done || j.Outcome != "verified (CRC-32 and sha-1 piece hashes)" {
		t.Fatalf("the member job: %v %q %q", j.State, j.Outcome, j.Err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "big", "inner.txt")); err != nil || !bytes.Equal(got, inner) {
		t.Fatalf("the extracted member: %d bytes, %v", len(got), err)
	}
}

// TestMembersAddedAsWholeFiles: members the picker adds go through
// runner.Add like whole files: sent to the download folder, each lands in
// its own category's folder (by the member's name, not the archive's),
// and added paused, none is queued.
func TestMembersAddedAsWholeFiles(t *testing.T) {
	t.Parallel()
	archive := ziptest.Make(t,
		ziptest.Entry{Name: "papers/report.pdf", Data: []byte("a report\n"), Method: zip.Store},
		ziptest.Entry{Name: "song.mp3", Data: bytes.Repeat([]byte("la "), 4000), Method: zip.Deflate},
	)
	m := mirrortest.New(t, archive)
	doc := &metalink.Document{Version: 4, Files: []metalink.File{describeData(t, "a.zip", archive, m.URL())}}
	q := openQueue(t)
	dl := t.TempDir()
	if err := q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = dl }); err != nil {
		t.Fatal(err)
	}
	b := newBackend(t, q)
	if _, err := b.ReadArchive(context.Background(), "a.meta4", doc); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Add(context.Background(), ui.AddRequest{Source: "a.meta4", Doc: doc, Members: []string{"papers/report.pdf", "song.mp3"}, Dir: dl, Paused: true}); err != nil {
		t.Fatal(err)
	}
	jobs, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"papers/report.pdf": filepath.Join(dl, "Documents"), "song.mp3": filepath.Join(dl, "Audio")}
	if len(jobs) != len(want) {
		t.Fatalf("%d jobs, want %d", len(jobs), len(want))
	}
	for _, j := range jobs {
		if j.Member == nil || j.Dest != want[j.Member.Name] || j.State != queue.Paused {
			t.Errorf("job %d: member %+v in %s, %s; want it paused in %s", j.ID, j.Member, j.Dest, j.State, want[j.Member.Name])
		}
	}
}
