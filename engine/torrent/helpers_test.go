package torrent

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/anacrolix/torrent"
	"github.com/anacrolix/torrent/bencode"
	"github.com/anacrolix/torrent/metainfo"
	"github.com/anacrolix/torrent/storage"
)

const testPieceLen = 32 << 10

// discard is the logger of every test client: the library's logs must not
// reach the terminal.
var discard = slog.New(slog.DiscardHandler)

// randomBytes returns n random bytes.
func randomBytes(t testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// testFile is one file of a test torrent, by path inside it.
type testFile struct {
	path string
	data []byte
}

// makeTorrent writes files under dir/name and returns the metainfo of a
// torrent of them: one file when files has one entry with path "", else a
// folder.
func makeTorrent(t testing.TB, dir, name string, files []testFile, urlList ...string) *metainfo.MetaInfo {
	t.Helper()
	root := filepath.Join(dir, name)
	for _, f := range files {
		p := root
		if f.path != "" {
			p = filepath.Join(root, filepath.FromSlash(f.path))
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	info := metainfo.Info{PieceLength: testPieceLen}
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

// seeder starts an anacrolix client on loopback that seeds mi from dir
// (where makeTorrent wrote it) and returns its address.
func seeder(t testing.TB, dir string, mi *metainfo.MetaInfo) string {
	t.Helper()
	cfg := torrent.NewDefaultClientConfig()
	cfg.ListenHost = torrent.LoopbackListenHost
	cfg.ListenPort = 0
	cfg.NoDHT, cfg.DisableTrackers, cfg.NoDefaultPortForwarding = true, true, true
	cfg.DisableIPv6 = true
	cfg.Seed = true
	cfg.Slogger = discard
	cfg.DefaultStorage = storage.NewFileOpts(storage.NewFileClientOpts{
		ClientBaseDir: dir, PieceCompletion: storage.NewMapPieceCompletion(),
	})
	cl, err := torrent.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	tt, err := cl.AddTorrent(mi)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
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

// newTestClient is a Braid client with everything but direct peers off.
func newTestClient(t testing.TB) *Client {
	t.Helper()
	c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard})
	t.Cleanup(func() { c.Close() })
	return c
}

// specOf reads mi as Braid reads a .torrent file.
func specOf(t testing.TB, mi *metainfo.MetaInfo) *Spec {
	t.Helper()
	f := filepath.Join(t.TempDir(), "x.torrent")
	w, err := os.Create(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := mi.Write(w); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s, err := Resolve(context.Background(), f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// run starts req and waits for its end with a generous timeout.
func run(t testing.TB, c *Client, req *Request) (*Job, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := c.Start(ctx, req)
	if err != nil {
		return nil, err
	}
	return j, j.Err()
}

// sameFile fails unless dir/name holds want and no NAME.part is left.
func sameFile(t testing.TB, dir, name string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("%s: %d bytes differ from the %d expected", name, len(got), len(want))
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)) + partSuffix); err == nil {
		t.Fatalf("%s.part is still there", name)
	}
}
