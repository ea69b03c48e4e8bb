package ziprange

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/engine/piece"
)

// benchArchive is an archive of about mib MiB: stored members of noise,
// with a deflated 64 MiB log member near its end, as data sets and SDKs
// are laid out.
func benchArchive(b *testing.B, mib int) []byte {
	b.Helper()
	var buf bytes.Buffer
	buf.Grow(mib << 20)
	zw := zip.NewWriter(&buf)
	add := func(name string, method uint16, data []byte) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			b.Fatal(err)
		}
	}
	blob := mirrortest.Bytes(64<<20, 30)
	stored := max(mib-64, 0)
	for i := 0; i < stored/64; i++ {
		blob[0] = byte(i) // no two members alike
		add(fmt.Sprintf("data/blob%02d.bin", i), zip.Store, blob)
	}
	add("logs/events.log", zip.Deflate, text(64<<20, 31))
	add("data/tail.bin", zip.Store, blob[:stored%64<<20])
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkNginxMirrorsMember times one deflated member (64 MiB, about
// 32 MiB packed) out of a large ZIP from two nginx mirrors, read by
// checked pieces through engine.Ranges, beside downloading the whole
// archive from the same mirrors with the engine. The archive is about
// 256 MiB; BRAID_ZIP_BENCH_MIB sets another size (the figures in the
// README are for 1024). It reports the bytes the servers sent per run.
// On loopback the network costs nothing, and the member's time is that of
// inflating it (compress/flate, a few tens of MB/s of this hex text on a
// busy machine); the whole archive's is that of writing it. Over a real
// link the member costs its packed bytes and the whole archive all of its
// bytes.
func BenchmarkNginxMirrorsMember(b *testing.B) {
	mib := 256
	if v, err := strconv.Atoi(os.Getenv("BRAID_ZIP_BENCH_MIB")); err == nil && v > 0 {
		mib = v
	}
	archive := benchArchive(b, mib)
	n1 := netconftest.Nginx(b, map[string][]byte{"big.zip": archive}, "u", "p")
	n2 := netconftest.Nginx(b, map[string][]byte{"big.zip": archive}, "u", "p")
	file, err := piece.Describe(context.Background(), bytes.NewReader(archive), int64(len(archive)), "big.zip", 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	for i, u := range []string{n1.URL + "/open/big.zip", n2.URL + "/open/big.zip"} {
		file.URLs = append(file.URLs, metalink.URL{URL: u, Priority: i + 1})
	}
	archive = nil // the servers hold it on disk

	b.Run("member", func(b *testing.B) {
		var sent int64
		for b.Loop() {
			ctx := context.Background()
			r, err := (&engine.Client{}).OpenRanges(ctx, &engine.Request{File: file})
			if err != nil {
				b.Fatal(err)
			}
			a, err := Open(ctx, r, r.Size())
			if err != nil {
				b.Fatal(err)
			}
			if _, err := a.Extract(ctx, a.Member("logs/events.log"), b.TempDir()); err != nil {
				b.Fatal(err)
			}
			sent += r.Stats().Bytes()
			r.Close()
		}
		b.ReportMetric(float64(sent)/float64(b.N), "bytes-sent/op")
	})
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			dir := b.TempDir()
			err := (&engine.Client{}).Do(ctx, &engine.Request{Dir: dir, File: file}).Err()
			cancel()
			if err != nil {
				b.Fatal(err)
			}
			os.Remove(filepath.Join(dir, file.Name))
		}
		b.ReportMetric(float64(file.Size), "bytes-sent/op")
	})
}
