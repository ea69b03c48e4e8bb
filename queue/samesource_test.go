package queue

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/anacrolix/torrent/metainfo"

	"braid/engine"
	"braid/engine/torrent"
)

// TestRemoveWithFilesSaysWhatItDeleted removes jobs with their files and
// checks that the paths it names are the ones gone from the disk: the
// .part of an unfinished file, the finished file the job wrote, and
// neither a file that was there before the job nor one already gone.
func TestRemoveWithFilesSaysWhatItDeleted(t *testing.T) {
	q := openTest(t, t.TempDir())
	dest := t.TempDir()
	write := func(name string) {
		t.Helper()
		p := filepath.Join(dest, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"a.iso.part", "b/b.iso", "b/b.iso.part", "c.iso"} {
		write(n)
	}
	part, err := q.Add("a", dest, testDoc(1, 0, "a.iso"), nil)
	if err != nil {
		t.Fatal(err)
	}
	wrote, err := q.Add("b", dest, testDoc(1, 0, "b/b.iso", "b/never.iso"), nil)
	if err == nil {
		err = q.Landed(wrote, "b/b.iso", &engine.Snapshot{SavedAs: "b/b.iso", Created: true})
	}
	if err != nil {
		t.Fatal(err)
	}
	found, err := q.Add("c", dest, testDoc(1, 0, "c.iso"), nil)
	if err == nil {
		err = q.Landed(found, "c.iso", &engine.Snapshot{SavedAs: "c.iso", VerifiedBy: "sha-256"})
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   int64
		want []string
	}{
		{part, []string{"a.iso.part"}},
		{wrote, []string{"b/b.iso.part", "b/b.iso"}},
		{found, nil},
	} {
		got, err := q.RemoveWithFiles(tt.id)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, n := range tt.want {
			want = append(want, filepath.Join(dest, filepath.FromSlash(n)))
		}
		if !slices.Equal(got, want) {
			t.Errorf("job %d: deleted %q, want %q", tt.id, got, want)
		}
		for _, p := range got {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("%s is named deleted and is on the disk: %v", p, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dest, "c.iso")); err != nil {
		t.Errorf("a file that was there before its job was deleted: %v", err)
	}
	if jobs, _ := q.List(); len(jobs) != 0 {
		t.Errorf("%d jobs left", len(jobs))
	}
}

// TestJobWithSourceAndTorrentJob finds a job by its link however it is
// spelled, and a torrent's job by its info hash however the torrent was
// added: by the torrent stored with the job, or by its magnet alone.
func TestJobWithSourceAndTorrentJob(t *testing.T) {
	q := openTest(t, t.TempDir())
	dest := t.TempDir()
	link, err := q.Add("https://Example.org/pub/a.iso#top", dest, testDoc(1, 0, "a.iso"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, spelled := range []string{"https://example.org/pub/a.iso", "HTTPS://EXAMPLE.ORG:443/pub/a.iso"} {
		if id, ok, err := q.JobWithSource(spelled); err != nil || !ok || id != link {
			t.Errorf("JobWithSource(%s) = %d, %v, %v; want %d", spelled, id, ok, err, link)
		}
	}
	if id, ok, err := q.JobWithSource("https://example.org/pub/b.iso"); err != nil || ok {
		t.Errorf("JobWithSource of another link = %d, %v, %v", id, ok, err)
	}

	stored := metainfo.HashBytes([]byte("stored"))
	bare := metainfo.HashBytes([]byte("bare"))
	withSpec, err := q.Add("/some/where/s.torrent", dest, testDoc(1, 0, "s.bin"), nil)
	if err == nil {
		err = q.SetTorrentSpec(withSpec, &torrent.Spec{Name: "s", InfoHash: stored})
	}
	if err != nil {
		t.Fatal(err)
	}
	magnet, err := q.Add("magnet:?xt=urn:btih:"+bare.HexString()+"&dn=m", dest, testDoc(1, 0, "m.bin"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		ih   metainfo.Hash
		want int64
	}{{stored, withSpec}, {bare, magnet}, {metainfo.HashBytes([]byte("none")), 0}} {
		id, ok, err := q.TorrentJob(tt.ih)
		if err != nil || ok != (tt.want != 0) || id != tt.want {
			t.Errorf("TorrentJob(%s) = %d, %v, %v; want %d", tt.ih.HexString(), id, ok, err, tt.want)
		}
	}
}
