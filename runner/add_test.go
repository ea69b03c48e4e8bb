package runner

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/netconf"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// A plain link is read (Metalink/HTTP) and added queued, with what its
// server said; added paused it is not queued.
func TestAddPlainLink(t *testing.T) {
	t.Parallel()
	data := testkit.Data(200 << 10)
	m := mirrortest.New(t, data, mirrortest.Path("/pub/a.bin"))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()
	added, err := Add(context.Background(), q, m.URL(), AddOptions{Dir: dest, Referer: "https://example.com/page"})
	if err != nil {
		t.Fatal(err)
	}
	if !added.Queued || added.Found || added.Failed != nil || added.Waiting {
		t.Errorf("a readable link: %+v", added)
	}
	j := mustJob(t, q, added.ID)
	if j.State != queue.Queued || j.Dest != dest || len(j.Files) != 1 || j.Files[0].Name != "a.bin" || j.Files[0].Size != int64(len(data)) {
		t.Errorf("the job: state %s, dest %s, files %+v", j.State, j.Dest, j.Files)
	}
	if j.Origin.Referer != "https://example.com/page" {
		t.Errorf("the job's referrer %q", j.Origin.Referer)
	}

	added, err = Add(context.Background(), q, m.URL(), AddOptions{Dir: dest, Paused: true, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if j := mustJob(t, q, added.ID); added.Queued || j.State != queue.Paused || j.Limit != 1000 {
		t.Errorf("added paused with a limit: %+v, state %s, limit %d", added, j.State, j.Limit)
	}
}

// A plain link that cannot be read is listed as ListUnread says: a server
// that cannot be reached makes a job that waits (queued), any other
// reason a job failed with it; RefuseUnread and WaitUnreached refuse the
// latter, and a link to a metalink is refused whatever is asked.
func TestAddUnreadLinks(t *testing.T) {
	t.Parallel()
	gone := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(gone.Close)
	down := mirrortest.New(t, testkit.Data(1000), mirrortest.Down(), mirrortest.Path("/down.iso"))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()
	add := func(link string, u Unread) (Added, error) {
		return Add(context.Background(), q, link, AddOptions{Dir: dest, Resolve: ResolveOptions{Unread: u}})
	}

	added, err := add(gone.URL+"/missing.iso", ListUnread)
	if err != nil {
		t.Fatal(err)
	}
	j := mustJob(t, q, added.ID)
	if added.Failed == nil || added.Queued || j.State != queue.Failed || !strings.Contains(j.Error, "404") || j.Files[0].Name != "missing.iso" {
		t.Errorf("a link answering 404: %+v; job %s %q %+v", added, j.State, j.Error, j.Files)
	}
	added, err = add(down.URL(), ListUnread)
	if err != nil {
		t.Fatal(err)
	}
	if j := mustJob(t, q, added.ID); !added.Waiting || !added.Queued || added.Failed != nil || j.State != queue.Queued || j.Files[0].Name != "down.iso" {
		t.Errorf("a link whose server is down: %+v; job %s", added, j.State)
	}
	if _, err := add(down.URL(), WaitUnreached); err != nil {
		t.Errorf("WaitUnreached refused a link whose server is down: %v", err)
	}
	before := len(mustList(t, q))
	for _, u := range []Unread{RefuseUnread, WaitUnreached} {
		if _, err := add(gone.URL+"/missing.iso", u); err == nil || !strings.Contains(err.Error(), "404") {
			t.Errorf("Unread %d took a link answering 404 (%v)", u, err)
		}
	}
	if _, err := add(gone.URL+"/list.meta4", ListUnread); err == nil {
		t.Error("a metalink that cannot be read was listed: its one file would be the metalink itself")
	}
	if n := len(mustList(t, q)); n != before {
		t.Errorf("refused links made %d jobs", n-before)
	}
}

// A caller's document is added with the files Select chooses (or those
// given), in its category's folder when asked; FindSource finds the job
// of the same source and folder instead of adding another.
func TestAddSelectsAndFinds(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	home := t.TempDir()
	if err := q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = home }); err != nil {
		t.Fatal(err)
	}
	doc := func() *metalink.Document {
		return &metalink.Document{Version: 4, Files: []metalink.File{
			{Name: "film.de.mkv", Size: 10, Languages: []string{"de"}, URLs: []metalink.URL{{URL: "http://example.com/de.mkv", Priority: 1}}},
			{Name: "film.en.mkv", Size: 10, Languages: []string{"en"}, URLs: []metalink.URL{{URL: "http://example.com/en.mkv", Priority: 1}}},
		}}
	}
	sel := &Selection{Given: metalink.Prefs{Languages: []string{"de"}}}
	added, err := Add(context.Background(), q, "film.meta4", AddOptions{Dir: home, Sort: true, Doc: doc(), Select: sel, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	j := mustJob(t, q, added.ID)
	if !j.Files[0].Selected || j.Files[1].Selected {
		t.Errorf("Select by language de chose %+v", j.Files)
	}
	if want := filepath.Join(home, "Video"); j.Dest != want {
		t.Errorf("sorted into %s, want the video category's %s", j.Dest, want)
	}
	again, err := Add(context.Background(), q, "./film.meta4", AddOptions{Dir: j.Dest, Doc: doc(), Again: FindSource})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Found || again.ID != added.ID {
		t.Errorf("FindSource of the same source and folder: %+v, want job %d found", again, added.ID)
	}
	other, err := Add(context.Background(), q, "film.meta4", AddOptions{Dir: j.Dest, Doc: doc(), Files: []string{"film.en.mkv"}, Again: FindTorrent})
	if err != nil {
		t.Fatal(err)
	}
	if other.Found || other.ID == added.ID {
		t.Errorf("FindTorrent found a metalink's job: %+v", other)
	}
	if j := mustJob(t, q, other.ID); j.Files[0].Selected || !j.Files[1].Selected {
		t.Errorf("the files given: %+v", j.Files)
	}
	if _, err := Add(context.Background(), q, "film.meta4", AddOptions{Dir: home, Doc: doc(), Select: &Selection{Given: metalink.Prefs{Languages: []string{"fr"}}}}); err == nil {
		t.Error("filters that fit no file added a job of none")
	}
}

// A .torrent file is added with its torrent stored, so no run reads the
// file again; FindTorrent finds its job when it is added again, AddAgain
// adds another.
func TestAddTorrentFile(t *testing.T) {
	t.Parallel()
	mi := torrenttest.Make(t, t.TempDir(), "album", 32<<10, []torrenttest.File{{Path: "one.bin", Data: mirrortest.Bytes(70000, 1)}, {Path: "two.bin", Data: mirrortest.Bytes(5000, 2)}})
	tf := torrenttest.WriteFile(t, mi, "album.TORRENT")
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()
	added, err := Add(context.Background(), q, tf, AddOptions{Dir: dest, Paused: true, Mirrors: []string{"http://seed.example/"}})
	if err != nil {
		t.Fatal(err)
	}
	spec, ok, err := q.TorrentSpec(added.ID)
	if err != nil || !ok || spec.InfoHash != mi.HashInfoBytes() {
		t.Fatalf("the torrent stored with the job: %v %v %v", spec, ok, err)
	}
	if !strings.Contains(strings.Join(spec.WebSeeds, " "), "http://seed.example/") {
		t.Errorf("the web seed given is not the torrent's: %v", spec.WebSeeds)
	}
	if j := mustJob(t, q, added.ID); len(j.Files) != 2 || j.State != queue.Paused {
		t.Errorf("the torrent's job: %s %+v", j.State, j.Files)
	}
	if err := os.Remove(tf); err != nil {
		t.Fatal(err)
	}
	again, err := Add(context.Background(), q, "magnet:?xt=urn:btih:"+mi.HashInfoBytes().HexString(), AddOptions{Dir: dest, Again: FindTorrent})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Found || again.ID != added.ID {
		t.Errorf("the same torrent by its magnet link: %+v, want job %d found", again, added.ID)
	}
	second, err := Add(context.Background(), q, "magnet:?xt=urn:btih:"+mi.HashInfoBytes().HexString(), AddOptions{Dir: dest, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	if second.Found || second.ID == added.ID {
		t.Errorf("AddAgain found the torrent's job: %+v", second)
	}
}

// Headers given with a source are the job's, their values out of
// state.db; the keyring's note, if any, is for the user.
func TestAddKeepsNetOutOfTheDB(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-cookie-value"
	dir := t.TempDir()
	q := queuetest.Open(t, queue.Open, dir)
	doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: "a.bin", Size: 10, URLs: []metalink.URL{{URL: "http://example.com/a.bin", Priority: 1}}}}}
	net := &netconf.Settings{Headers: []string{"Cookie: session=" + secret}, Links: []string{"http://example.com/a.bin"}}
	added, err := Add(context.Background(), q, "http://example.com/a.bin", AddOptions{Dir: t.TempDir(), Doc: doc, Net: net, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	s, ok, _, err := q.Net(added.ID)
	if err != nil || !ok || len(s.Headers) != 1 || !strings.Contains(s.Headers[0], secret) {
		t.Errorf("the job's network settings: %v %v %v", s, ok, err)
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if raw, err := os.ReadFile(p); err == nil && bytes.Contains(raw, []byte(secret)) {
			t.Errorf("%s holds the cookie in clear", p)
		}
		return nil
	})
}

// Resolve's errors reading a torrent keep their parts, for a face to say
// them in the user's language.
func TestResolveTorrentError(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "gone.torrent")
	_, err := Resolve(context.Background(), missing, ResolveOptions{})
	var re *ResolveError
	if !errors.As(err, &re) || re.Format != "read the torrent %s: %w" || re.Source != missing || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing .torrent: %v (%#v)", err, re)
	}
	// Said as a sentence, the path once, then the system's words.
	_, oerr := os.Open(missing)
	var pe *fs.PathError
	if !errors.As(oerr, &pe) {
		t.Fatalf("open a missing file: %v", oerr)
	}
	if want := "read the torrent " + missing + ": " + pe.Err.Error(); err == nil || err.Error() != want {
		t.Errorf("a missing .torrent says %q, want %q", err, want)
	}
}

func mustList(t *testing.T, q *queue.Queue) []queue.Job {
	t.Helper()
	jobs, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}
