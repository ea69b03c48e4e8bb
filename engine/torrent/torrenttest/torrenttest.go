// Package torrenttest makes real torrents and real seeders on loopback for
// tests: files written to a folder, their metainfo, and an anacrolix
// client seeding them with DHT, trackers and port forwarding off.
package torrenttest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anacrolix/torrent"
	"github.com/anacrolix/torrent/bencode"
	"github.com/anacrolix/torrent/metainfo"
	"github.com/anacrolix/torrent/storage"
)

// File is one file of a test torrent, by its slash-separated path inside
// the torrent's folder; a torrent of one File with Path "" is a
// single-file torrent.
type File struct {
	Path string
	Data []byte
}

// ServeDir serves dir over HTTP on loopback until the test ends and
// returns its base URL: a web seed for torrents Make wrote there, or a
// place to fetch a .torrent from.
func ServeDir(t testing.TB, dir string) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Make writes files under dir/name and returns the metainfo of a torrent
// of them with the given piece length and web seed URLs (url-list).
func Make(t testing.TB, dir, name string, pieceLength int64, files []File, urlList ...string) *metainfo.MetaInfo {
	t.Helper()
	root := filepath.Join(dir, name)
	for _, f := range files {
		p := root
		if f.Path != "" {
			p = filepath.Join(root, filepath.FromSlash(f.Path))
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	info := metainfo.Info{PieceLength: pieceLength}
	if err := info.BuildFromFilePath(root); err != nil {
		t.Fatal(err)
	}
	mi := &metainfo.MetaInfo{UrlList: urlList}
	var err error
	if mi.InfoBytes, err = bencode.Marshal(info); err != nil {
		t.Fatal(err)
	}
	return mi
}

// WriteFile writes mi as a .torrent file in a new temporary folder and
// returns its path.
func WriteFile(t testing.TB, mi *metainfo.MetaInfo, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	w, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := mi.Write(w); err != nil {
		t.Fatal(err)
	}
	return p
}

// Seed starts an anacrolix client on 127.0.0.1 that seeds mi from dir
// (where Make wrote it), waits until it has verified every piece, and
// returns its address. The client's logs are discarded; it is closed by
// t.Cleanup.
func Seed(t testing.TB, dir string, mi *metainfo.MetaInfo) string {
	t.Helper()
	cl, tt := start(t, dir, mi, true)
	t.Cleanup(func() { // before start's Close
		if t.Failed() {
			var st strings.Builder
			cl.WriteStatus(&st)
			// Clean-ups run last first: the clients the test made after
			// this seeder are closed by now, and their connections gone
			// from this status; its byte counts still hold them.
			t.Logf("the seeder on port %d, after the test's own clean-ups (its clients closed):\n%s", cl.LocalPort(), st.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := tt.VerifyDataContext(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-tt.Complete().On():
	case <-ctx.Done():
		t.Fatal("the seeder does not have the whole torrent")
	}
	return fmt.Sprintf("127.0.0.1:%d", cl.LocalPort())
}

// MetadataOnly starts an anacrolix client on 127.0.0.1 that knows mi's
// info dictionary but holds none of its data (its folder starts empty),
// and returns its address: a peer that gives a magnet link its metadata
// and has no piece to give. It wants the data (a client that neither
// wants data nor has a piece refuses every connection,
// Torrent.newConnsAllowed), so it may copy pieces from the peers it
// meets, never the other way round. It is closed by t.Cleanup.
func MetadataOnly(t testing.TB, mi *metainfo.MetaInfo) string {
	t.Helper()
	bare := *mi
	bare.UrlList = nil // it must not fetch the data itself
	cl, tt := start(t, t.TempDir(), &bare, false)
	tt.DownloadAll()
	return fmt.Sprintf("127.0.0.1:%d", cl.LocalPort())
}

// NewClient is torrent.NewClient, over TCP only where the system refuses
// UDP sockets: Wine 8 answers WSAEOPNOTSUPP to the SIO_UDP_NETRESET that
// Go sets on every UDP socket on Windows, as Braid's own client finds
// (engine/torrent's udp_windows.go).
func NewClient(cfg *torrent.ClientConfig) (*torrent.Client, error) {
	cl, err := torrent.NewClient(cfg)
	var se *os.SyscallError
	if err != nil && errors.As(err, &se) && se.Syscall == "wsaioctl" {
		cfg.DisableUTP, cfg.NoDHT = true, true
		cl, err = torrent.NewClient(cfg)
	}
	return cl, err
}

// start runs an anacrolix client on 127.0.0.1 with DHT, trackers and port
// forwarding off, its logs discarded, its data in dir, and adds mi.
func start(t testing.TB, dir string, mi *metainfo.MetaInfo, seed bool) (*torrent.Client, *torrent.Torrent) {
	t.Helper()
	cfg := torrent.NewDefaultClientConfig()
	cfg.ListenHost = torrent.LoopbackListenHost
	cfg.ListenPort = 0
	cfg.NoDHT, cfg.DisableTrackers, cfg.NoDefaultPortForwarding = true, true, true
	cfg.DisableIPv6 = true
	cfg.Seed = seed
	// See torrent.MaxPeerRequestData: the default deadlocks uploads.
	cfg.MaxAllocPeerRequestDataPerConn = 1024 * 16 << 10
	// A connection's writer in anacrolix v1.59.1 misses a wake-up when a
	// request's data is read from storage between its look for work and
	// its wait (it takes the condition's channel after releasing the
	// client's lock): the chunk then waits for the keep-alive timer. With
	// the library's minute, a leecher whose only request was that one got
	// nothing for 60 s (ui/bridge's TestRowAndPeersAgreeOnSpeed timed out
	// on it in CI). Braid's own client wakes every 5 s for the same
	// reason (engine/torrent's keepAliveEvery); a test's seeder does as
	// Braid seeding would.
	cfg.KeepAliveTimeout = 5 * time.Second
	cfg.Slogger = slog.New(slog.DiscardHandler)
	cfg.DefaultStorage = storage.NewFileOpts(storage.NewFileClientOpts{
		ClientBaseDir: dir, PieceCompletion: storage.NewMapPieceCompletion(),
	})
	// The library's file storage makes the files it completes read-only;
	// Windows then refuses to delete them, and the test's temporary
	// folder could not be removed. Made writable again after the client
	// closed (clean-ups run last first).
	t.Cleanup(func() { writable(dir) })
	cl, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	tt, err := cl.AddTorrent(mi)
	if err != nil {
		t.Fatal(err)
	}
	return cl, tt
}

// writable gives the owner write permission on every file under dir.
func writable(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil && fi.Mode().Perm()&0o200 == 0 {
				os.Chmod(p, fi.Mode().Perm()|0o200)
			}
		}
		return nil
	})
}
