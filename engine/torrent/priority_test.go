package torrent

import (
	"context"
	"testing"
	"time"

	"braid/internal/testkit"
)

// A file named in Request.High is fetched before the others: from a real
// seeder, through a limit slow enough to see the order, the second file
// of two (High) is at its final name while the first is still under way.
func TestHighFileFirst(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	files := []testFile{{Path: "a.bin", Data: randomBytes(t, 512<<10)}, {Path: "b.bin", Data: randomBytes(t, 512<<10+1)}}
	mi := makeTorrent(t, src, "two", files)
	addr := seeder(t, src, mi)
	c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, DownloadLimit: 192 << 10})
	t.Cleanup(func() { c.Close() })
	spec := specOf(t, mi)
	spec.Peers = []string{addr}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := c.Start(ctx, &Request{Dir: t.TempDir(), Spec: spec, High: []string{"two/b.bin"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Stop)
	var fs []File
	testkit.WaitWithin(t, time.Minute, "a file to be done", func() bool {
		fs = j.Snapshot().Files
		return len(fs) == 2 && (fs[0].Done || fs[1].Done)
	})
	if !fs[1].Done || fs[0].Done {
		t.Fatalf("first done: a.bin %v (%d bytes), b.bin (high) %v (%d bytes)", fs[0].Done, fs[0].Bytes, fs[1].Done, fs[1].Bytes)
	}
	if fs[0].Bytes >= int64(len(files[0].Data)) {
		t.Fatalf("a.bin has every byte before it was due: %d", fs[0].Bytes)
	}
}
