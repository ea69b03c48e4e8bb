package engine

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"braid/engine/ftptest"
	"braid/engine/mirrortest"
	"braid/engine/resolve"
	"braid/internal/testkit"
)

// A mirror sends a corrupt copy of a file that has only a whole-file hash:
// the check finds it by comparing its pieces with the other mirrors', drops
// it, and the file is saved verified without its bytes.
func TestCorruptDuplicateWholeHashOnly(t *testing.T) {
	t.Parallel()
	data := testkit.Data(3<<20 + 77)
	for _, honest := range []int{1, 2} {
		t.Run(map[int]string{1: "one honest mirror", 2: "two honest mirrors"}[honest], func(t *testing.T) {
			liar := mirrortest.New(t, data, addr(0), mirrortest.Corrupt(256<<10, func(i int) bool { return i%3 == 1 }))
			ms := []*mirrortest.Mirror{liar}
			for i := range honest {
				ms = append(ms, mirrortest.New(t, data, addr(i+1), mirrortest.Rate(4<<20)))
			}
			dir := t.TempDir()
			snap, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor("f.bin", data, 0, urls(ms...)...)})
			if err != nil {
				t.Fatal(err)
			}
			wantFile(t, dir, "f.bin", data)
			lm := mirrorByURL(t, snap, liar.URL())
			if lm.State != MirrorDropped || !strings.Contains(lm.Reason, "corrupt copy") {
				t.Fatalf("liar is %s (%q), want dropped for its corrupt copy", lm.State, lm.Reason)
			}
			for _, m := range ms[1:] {
				if h := mirrorByURL(t, snap, m.URL()); h.State == MirrorDropped {
					t.Fatalf("honest mirror dropped: %s", h.Reason)
				}
			}
			var served int64
			for _, m := range ms {
				served += m.BytesServed()
			}
			if served > 3*int64(len(data)) {
				t.Fatalf("served %d bytes for a %d-byte file", served, len(data))
			}
		})
	}
}

// A MirrorBrain-style origin answers 302 to a corrupt copy, with Link
// rel=duplicate naming a good mirror and the file's Digest on the
// redirect. The corrupt copy must never be called verified.
func TestRedirectorInFrontOfCorruptCopy(t *testing.T) {
	t.Parallel()
	data := testkit.Data(2<<20 + 5)
	sum := sha256.Sum256(data)
	digest := "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
	for _, tc := range []struct {
		name      string
		ownDigest bool // the corrupt copy sends a Digest of its own bytes
	}{{"copy without Digest", false}, {"copy with its own Digest", true}} {
		t.Run(tc.name, func(t *testing.T) {
			// One piece in every four comes corrupt, so whichever part of
			// the file the copy is given (that depends on timing), some of
			// what it sends is wrong.
			bad := func(i int) bool { return i%4 == 3 }
			opts := []mirrortest.Option{addr(0), mirrortest.Corrupt(128<<10, bad)}
			if tc.ownDigest {
				wrong := sha256.Sum256(append([]byte("x"), data...))
				opts = append(opts, mirrortest.Header("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(wrong[:])))
			}
			copy := mirrortest.New(t, data, opts...)
			good := mirrortest.New(t, data, addr(1), mirrortest.Rate(4<<20))
			origin := mirrortest.New(t, data, addr(2), mirrortest.Redirect(copy.URL()),
				mirrortest.Header("Link", "<"+good.URL()+">; rel=duplicate; pri=2"),
				mirrortest.Header("Digest", digest))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := resolve.Resolve(ctx, origin.URL(), resolve.Options{})
			if err != nil {
				t.Fatal(err)
			}
			f := res.Document.Files[0]
			if len(f.Hashes) != 1 || len(f.URLs) != 2 {
				t.Fatalf("resolved %d hashes and %d URLs, want the redirect's digest and both mirrors", len(f.Hashes), len(f.URLs))
			}
			dir := t.TempDir()
			snap, err := get(t, &Client{}, &Request{Dir: dir, File: f})
			if err != nil {
				t.Fatal(err)
			}
			wantFile(t, dir, f.Name, data)
			om := mirrorByURL(t, snap, origin.URL())
			if om.State != MirrorDropped {
				t.Fatalf("the redirector's corrupt copy is %s, want dropped", om.State)
			}
			if n := origin.Requests(); n > 3 {
				t.Fatalf("the redirector was asked %d times; want once per look, not once per range", n)
			}
		})
	}
}

// An http URL that redirects to ftp:// is downloaded over FTP, the
// redirector asked once.
func TestRedirectHTTPToFTP(t *testing.T) {
	t.Parallel()
	data := testkit.Data(2<<20 + 9)
	srv := ftptest.New(t, ftptest.File("pub/f.bin", data), ftptest.Anonymous())
	origin := mirrortest.New(t, data, addr(0), mirrortest.Redirect(srv.URL("pub/f.bin")))
	dir := t.TempDir()
	if _, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor("f.bin", data, 256<<10, origin.URL())}); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	if srv.BytesServed() < int64(len(data)) {
		t.Fatalf("the FTP server sent %d bytes of %d", srv.BytesServed(), len(data))
	}
	if n := origin.Requests(); n != 1 {
		t.Fatalf("the redirector was asked %d times, want once", n)
	}
}
