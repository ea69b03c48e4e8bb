package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
)

// --limit holds for an HTTP source and a torrent downloaded at once (the
// torrent from a peer): together they take at least as long as the limit
// allows for both, the burst aside, where two separate limits let them
// finish in about half the time. A limit is a floor on the time taken,
// so a slow machine cannot make this fail.
func TestGetLimitSharedWithTorrent(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	httpData, btData := getData(3<<20+1), getData(3<<20+7)
	hm := mirrortest.New(t, httpData, mirrortest.Addr("127.0.0.2"))
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "t.bin", 256<<10, []torrenttest.File{{Data: btData}})
	addr := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=t.bin&x.pe=%s", mi.HashInfoBytes().HexString(), addr)
	out := t.TempDir()
	start := time.Now()
	code, stdout, stderr := runGet(t, "-d", out, "--limit", "1M", "--jobs", "2", "--bt-discovery=false", hm.URL(), magnet)
	el := time.Since(start)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for name, want := range map[string][]byte{filepath.Base(hm.URL()): httpData, "t.bin": btData} {
		if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %v (equal %v)", name, err, bytes.Equal(got, want))
		}
	}
	// Every byte is paid for before it is used, and the bucket starts
	// with one burst (128 KiB at 1 MiB/s): both files need at least this
	// long, with a margin for rounding.
	both := len(httpData) + len(btData)
	floor := time.Duration(0.95 * float64(both-128<<10) / limit * float64(time.Second))
	t.Logf("%d bytes in %v under --limit 1M (floor %v)", both, el, floor)
	if el < floor {
		t.Fatalf("took %v, faster than one %d B/s limit for both allows (%v)", el, limit, floor)
	}
}
