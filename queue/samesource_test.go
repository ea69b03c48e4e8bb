package queue

import (
	"testing"

	"github.com/anacrolix/torrent/metainfo"

	"braid/engine/torrent"
	"braid/queue/queuetest"
)

// TestJobForAnyFolderAndTorrentJob finds a job by its link however it is
// spelled, and a torrent's job by its info hash however the torrent was
// added: by the torrent stored with the job, or by its magnet alone.
func TestJobForAnyFolderAndTorrentJob(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	dest := t.TempDir()
	link, err := q.Add(NewJob{Source: "https://Example.org/pub/a.iso#top", Dest: dest, Doc: queuetest.Doc(1, 0, "a.iso")})
	if err != nil {
		t.Fatal(err)
	}
	for _, spelled := range []string{"https://example.org/pub/a.iso", "HTTPS://EXAMPLE.ORG:443/pub/a.iso"} {
		if id, ok, err := q.JobFor(spelled, ""); err != nil || !ok || id != link {
			t.Errorf("JobFor(%s) in any folder = %d, %v, %v; want %d", spelled, id, ok, err, link)
		}
	}
	if id, ok, err := q.JobFor("https://example.org/pub/b.iso", ""); err != nil || ok {
		t.Errorf("JobFor of another link = %d, %v, %v", id, ok, err)
	}

	stored := metainfo.HashBytes([]byte("stored"))
	bare := metainfo.HashBytes([]byte("bare"))
	withSpec, err := q.Add(NewJob{Source: "/some/where/s.torrent", Dest: dest, Doc: queuetest.Doc(1, 0, "s.bin")})
	if err == nil {
		err = q.SetTorrentSpec(withSpec, &torrent.Spec{Name: "s", InfoHash: stored})
	}
	if err != nil {
		t.Fatal(err)
	}
	magnet, err := q.Add(NewJob{Source: "magnet:?xt=urn:btih:" + bare.HexString() + "&dn=m", Dest: dest, Doc: queuetest.Doc(1, 0, "m.bin")})
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
