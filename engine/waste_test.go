package engine

import (
	"testing"

	"braid/engine/ftptest"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
)

// An HTTP mirror, an FTP server and an HTTP mirror that ignores Range
// serve one file: the servers send it about once. The FTP mirror keeps one
// transfer running across its ranges instead of aborting and restarting
// it, and the range-less mirror's stream ends once the rest is others'.
func TestMixedProtocolsWasteLittle(t *testing.T) {
	t.Parallel()
	const pl = 256 << 10
	data := testkit.Data(12<<20 + 99)
	srv := ftptest.New(t, ftptest.File("pub/f.bin", data), ftptest.Anonymous(), ftptest.Rate(6<<20))
	h := mirrortest.New(t, data, addr(0), mirrortest.Rate(6<<20))
	whole := mirrortest.New(t, data, addr(1), mirrortest.Rate(6<<20), mirrortest.NoRanges())
	dir := t.TempDir()
	f := fileFor("f.bin", data, pl, h.URL(), srv.URL("pub/f.bin"), whole.URL())
	snap, err := get(t, &Client{}, &Request{Dir: dir, File: f})
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	served := h.BytesServed() + srv.BytesServed() + whole.BytesServed()
	t.Logf("HTTP %d, FTP %d in %v, range-less %d: %.3f× the file",
		h.BytesServed(), srv.BytesServed(), srv.Retrs(), whole.BytesServed(), float64(served)/float64(len(data)))
	if limit := int64(len(data)) * 105 / 100; served > limit {
		t.Fatalf("servers sent %d bytes for a %d-byte file; want at most 1.05×", served, len(data))
	}
	for _, m := range snap.Mirrors {
		if m.State == MirrorDropped {
			t.Errorf("mirror %s dropped: %s", m.URL, m.Reason)
		}
	}
}
