package metalink_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"reflect"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/resolve"
)

// TestWriteRoundTripMetalinkHTTP: the document resolve derives from a real
// Metalink/HTTP origin (RFC 6249 Link and Digest headers, served over
// loopback) keeps its mirrors' pref flags, depths, locations and
// priorities through Write and Parse, so a download saved as .meta4
// still sends If-Match to its preferred mirrors.
func TestWriteRoundTripMetalinkHTTP(t *testing.T) {
	data := bytes.Repeat([]byte("braid metalink/http\n"), 500)
	sum := sha256.Sum256(data)
	origin := mirrortest.New(t, data,
		mirrortest.Path("/dist/file.iso"),
		mirrortest.Header("ETag", `"e1"`),
		mirrortest.Header("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:])),
		// RFC 6249 §3's examples; the mirrors are listed, never contacted.
		mirrortest.Header("Link", `<http://www2.example.com/dist/file.iso>; rel=duplicate; pri=1; pref`),
		mirrortest.Header("Link", `<ftp://ftp.example.com/dist/file.iso>; rel=duplicate; pri=2; geo=gb; depth=1`),
		mirrortest.Header("Link", `</mirror/dist/file.iso>; rel=duplicate; pri=3; pref; depth=4`),
		mirrortest.Header("Link", `<http://deep.example.com/a/file.iso>; rel=duplicate; depth=4096`),
	)
	res, err := resolve.Resolve(context.Background(), origin.URL(), resolve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := res.Document
	if len(first.Files) != 1 {
		t.Fatalf("resolve made %d files, want 1", len(first.Files))
	}
	// Without pref and depth in the derived document the round trip
	// below would prove nothing.
	var pref, depth int
	for _, u := range first.Files[0].URLs {
		if u.Pref {
			pref++
		}
		depth += u.Depth
	}
	if pref != 2 || depth != 1+4+metalink.MaxMirrorDepth {
		t.Fatalf("derived mirrors %+v: %d pref, depths adding to %d; want 2 and %d",
			first.Files[0].URLs, pref, depth, 1+4+metalink.MaxMirrorDepth)
	}

	var buf bytes.Buffer
	if err := metalink.Write(&buf, first); err != nil {
		t.Fatalf("Write: %v", err)
	}
	back, err := metalink.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("Parse of what Write wrote: %v\n%s", err, buf.String())
	}
	if len(back.Files) != 1 {
		t.Fatalf("read back %d files, want 1\n%s", len(back.Files), buf.String())
	}
	g, w := reflect.ValueOf(back.Files[0]), reflect.ValueOf(first.Files[0])
	for i := range g.NumField() {
		if !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			t.Errorf("%s = %+v\nwant %+v", g.Type().Field(i).Name, g.Field(i).Interface(), w.Field(i).Interface())
		}
	}
	if len(back.Warnings) != 0 {
		t.Errorf("warnings reading back: %q", back.Warnings)
	}
	if t.Failed() {
		t.Logf("written:\n%s", buf.String())
	}
}
