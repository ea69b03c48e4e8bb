package torrent

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/anacrolix/torrent/metainfo"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
)

const testPieceLen = 32 << 10

// discard is the logger of every test client: the library's logs must not
// reach the terminal.
var discard = slog.New(slog.DiscardHandler)

// randomBytes returns n bytes of reproducible test data, a sequence of
// its own for each length.
func randomBytes(t testing.TB, n int) []byte { return mirrortest.Bytes(n, uint64(n)<<8|11) }

// testFile is one file of a test torrent, by path inside it.
type testFile = torrenttest.File

func makeTorrent(t testing.TB, dir, name string, files []testFile, urlList ...string) *metainfo.MetaInfo {
	return torrenttest.Make(t, dir, name, testPieceLen, files, urlList...)
}

func seeder(t testing.TB, dir string, mi *metainfo.MetaInfo) string {
	return torrenttest.Seed(t, dir, mi)
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
	s, err := Resolve(context.Background(), torrenttest.WriteFile(t, mi, "x.torrent"), nil)
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

// pastLimit waits, up to a minute, until read has grown since the call by
// more than rate (bytes a second) and slack allow, and returns how long
// that took; after the minute it fails tb with what read said.
func pastLimit(tb testing.TB, read func() int64, rate, slack float64, what string) time.Duration {
	tb.Helper()
	n0, t0 := read(), time.Now()
	for float64(read()-n0) <= rate*time.Since(t0).Seconds()+slack {
		if time.Since(t0) > time.Minute {
			tb.Fatalf("a minute after the limit was raised fourfold %s had read %d bytes, no more than %.0f B/s allows", what, read()-n0, rate)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(t0)
}
