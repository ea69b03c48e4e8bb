package resolve_test

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/ftptest"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/resolve"
	"braid/engine/transport"
	"braid/internal/testkit"
)

// meta4 is a Metalink 4 document for data named name, with sha-256 piece
// hashes of pieceLen bytes and the given whole-file hashes.
func meta4(name string, data []byte, pieceLen int, hashes ...metalink.Hash) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<metalink xmlns="urn:ietf:params:xml:ns:metalink">
  <file name="%s">
    <size>%d</size>
`, name, len(data))
	for _, h := range hashes {
		fmt.Fprintf(&b, "    <hash type=\"%s\">%s</hash>\n", h.Type, h.Value)
	}
	fmt.Fprintf(&b, "    <pieces length=\"%d\" type=\"sha-256\">\n", pieceLen)
	for off := 0; off < len(data); off += pieceLen {
		sum := sha256.Sum256(data[off:min(off+pieceLen, len(data))])
		fmt.Fprintf(&b, "      <hash>%x</hash>\n", sum)
	}
	b.WriteString("    </pieces>\n    <url priority=\"1\">http://mirror.example/" + name + "</url>\n  </file>\n</metalink>\n")
	return []byte(b.String())
}

func sha256Of(data []byte) (metalink.Hash, string) {
	sum := sha256.Sum256(data)
	return metalink.Hash{Type: "sha-256", Value: hex.EncodeToString(sum[:])},
		"SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
}

func resolveOK(t *testing.T, source string) *resolve.Result {
	t.Helper()
	r, err := resolve.Resolve(context.Background(), source, resolve.Options{})
	if err != nil {
		t.Fatalf("Resolve(%s): %v", source, err)
	}
	if r.Document == nil || len(r.Document.Files) == 0 {
		t.Fatalf("Resolve(%s): no files", source)
	}
	return r
}

func TestLocalFile(t *testing.T) {
	data := testkit.Data(5000)
	dir := t.TempDir()
	p := filepath.Join(dir, "x.meta4")
	if err := os.WriteFile(p, meta4("x.bin", data, 1024), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file URL's path starts with a slash: file:///tmp/x.meta4,
	// file:///C:/Users/x.meta4.
	u := filepath.ToSlash(p)
	if !strings.HasPrefix(u, "/") {
		u = "/" + u
	}
	for _, src := range []string{p, "file://" + u} {
		r := resolveOK(t, src)
		f := r.Document.Files[0]
		if r.Kind != resolve.KindFile || f.Name != "x.bin" || f.Size != 5000 || f.Pieces == nil || len(f.Pieces.Hashes) != 5 || r.Origin != nil {
			t.Fatalf("%s: %v %+v", src, r.Kind, f)
		}
	}
	bad := filepath.Join(dir, "bad.meta4")
	if err := os.WriteFile(bad, []byte("<html>not a metalink</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{bad, filepath.Join(dir, "missing.meta4")} {
		if _, err := resolve.Resolve(context.Background(), src, resolve.Options{}); err == nil || !strings.Contains(err.Error(), dir) {
			t.Errorf("Resolve(%s): %v, want an error naming the file", src, err)
		}
	}
}

// resourceList is a ResourceSync Resource List of one resource.
const resourceList = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="resourcelist" at="2026-11-01T09:00:00Z"/>
  <url><loc>http://example.com/res1</loc></url>
</urlset>`

// A local ResourceSync document is not taken for a broken metalink: its
// error says what it is. Another XML document is not a metalink, as before.
func TestLocalResourceSync(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "resourcelist.xml")
	sitemap := filepath.Join(dir, "sitemap.xml")
	if err := os.WriteFile(list, []byte(resourceList), 0o644); err != nil {
		t.Fatal(err)
	}
	// A plain sitemap: the same root, without the ResourceSync namespace.
	if err := os.WriteFile(sitemap, []byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://example.com/</loc></url></urlset>`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := resolve.Resolve(context.Background(), list, resolve.Options{})
	if !errors.Is(err, resolve.ErrResourceSync) || !strings.Contains(err.Error(), list) {
		t.Errorf("Resolve(%s): %v, want ErrResourceSync naming the file", list, err)
	}
	_, err = resolve.Resolve(context.Background(), sitemap, resolve.Options{})
	if errors.Is(err, resolve.ErrResourceSync) || !errors.Is(err, metalink.ErrNotMetalink) {
		t.Errorf("Resolve(%s): %v, want ErrNotMetalink only", sitemap, err)
	}
}

func TestMetalinkURL(t *testing.T) {
	data := testkit.Data(3000)
	doc := meta4("y.bin", data, 1000)
	tests := []struct {
		name string
		opts []mirrortest.Option
	}{
		{"by extension", []mirrortest.Option{mirrortest.Path("/y.bin.meta4")}},
		{"by content type", []mirrortest.Option{mirrortest.Path("/get"), mirrortest.Header("Content-Type", resolve.TypeMetalink4)}},
		{"metalink 3 content type", []mirrortest.Option{mirrortest.Path("/get"), mirrortest.Header("Content-Type", resolve.TypeMetalink3+"; charset=utf-8")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mirrortest.New(t, doc, tc.opts...)
			r := resolveOK(t, m.URL())
			if r.Kind != resolve.KindMetalinkURL || r.Document.Files[0].Name != "y.bin" {
				t.Fatalf("%v %+v", r.Kind, r.Document.Files[0])
			}
		})
	}
	t.Run("too large", func(t *testing.T) {
		m := mirrortest.New(t, doc, mirrortest.Path("/y.meta4"))
		_, err := resolve.Resolve(context.Background(), m.URL(), resolve.Options{Limits: metalink.Limits{MaxBytes: 100}})
		if err == nil {
			t.Fatal("a document past the limit was accepted")
		}
	})
}

func TestMetalinkHTTP(t *testing.T) {
	data := testkit.Data(10000)
	want, digest := sha256Of(data)
	m1 := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	m2 := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"))
	origin := mirrortest.New(t, data,
		mirrortest.Path("/dist/file.iso"),
		mirrortest.Header("ETag", `"e1"`),
		mirrortest.Header("Digest", digest),
		mirrortest.Header("Link", fmt.Sprintf(`<%s>; rel=duplicate; pri=2; geo=de, <%s>; rel=duplicate; pri=1; pref`, m1.URL(), m2.URL())),
		mirrortest.Header("Link", `</mirror/file.iso>; rel=duplicate; depth=1`),
		mirrortest.Header("Link", `<ftp://ftp.example/pub/file.iso>; rel=duplicate`),
		mirrortest.Header("Link", `<magnet:?xt=urn:btih:abc>; rel=duplicate`),
		mirrortest.Header("Link", `<http://127.0.0.1:9/file.iso.asc>; rel=describedby; type="application/pgp-signature"`),
	)
	// The origin listed again must not appear twice.
	origin2 := mirrortest.New(t, data, mirrortest.Header("Digest", digest), mirrortest.Path("/f"),
		mirrortest.Header("Link", "<"+"/f"+">; rel=duplicate"))

	r := resolveOK(t, origin.URL())
	if r.Kind != resolve.KindPlainURL {
		t.Fatalf("kind %v", r.Kind)
	}
	f := r.Document.Files[0]
	if f.Name != "file.iso" || f.Size != 10000 || len(f.Hashes) != 1 || f.Hashes[0] != want {
		t.Fatalf("file %+v", f)
	}
	host := strings.TrimSuffix(origin.URL(), "/dist/file.iso")
	wantURLs := []metalink.URL{
		{URL: origin.URL(), Priority: 1},
		{URL: m2.URL(), Priority: 1, Pref: true},
		{URL: m1.URL(), Priority: 2, Location: "DE"},
		{URL: host + "/mirror/file.iso", Priority: metalink.LowestPriority, Depth: 1},
		{URL: "ftp://ftp.example/pub/file.iso", Priority: metalink.LowestPriority},
	}
	if fmt.Sprint(f.URLs) != fmt.Sprint(wantURLs) {
		t.Fatalf("URLs\n got %+v\nwant %+v", f.URLs, wantURLs)
	}
	if r.Origin == nil || r.Origin.ETag != `"e1"` || r.Origin.Size != 10000 || !r.Origin.Ranges || r.Origin.URL != origin.URL() {
		t.Fatalf("origin %+v", r.Origin)
	}
	if !strings.Contains(strings.Join(r.Document.Warnings, "\n"), "magnet") {
		t.Errorf("no warning about the magnet mirror: %q", r.Document.Warnings)
	}
	// Only the origin is asked; mirrors' own Link headers never count.
	if m1.Requests()+m2.Requests() != 0 {
		t.Errorf("mirrors were contacted: %d and %d requests", m1.Requests(), m2.Requests())
	}
	if got := resolveOK(t, origin2.URL()).Document.Files[0].URLs; len(got) != 1 {
		t.Errorf("origin listed as its own duplicate: %+v", got)
	}
}

func TestMetalinkHTTPWithoutDigest(t *testing.T) {
	data := testkit.Data(100)
	m := mirrortest.New(t, data, mirrortest.Header("Link", `<http://m.example/f>; rel=duplicate`))
	r := resolveOK(t, m.URL())
	f := r.Document.Files[0]
	if len(f.URLs) != 1 || len(f.Hashes) != 0 || f.Size != 100 {
		t.Fatalf("file %+v: want the origin alone", f)
	}
	if !strings.Contains(strings.Join(r.Document.Warnings, "\n"), "Digest") {
		t.Fatalf("no warning about ignored mirrors: %q", r.Document.Warnings)
	}
}

func TestDescribedBy(t *testing.T) {
	data := testkit.Data(5000)
	want, digest := sha256Of(data)
	s1 := sha1.Sum(data)
	sha1Hash := metalink.Hash{Type: "sha-1", Value: hex.EncodeToString(s1[:])}
	other, _ := sha256Of(data[1:])
	tests := []struct {
		name       string
		doc        []byte
		pieces     bool
		hashes     []metalink.Hash
		warning    string
		linkSuffix string
	}{
		{"merged", meta4("other-name.bin", data, 1024, sha1Hash, want), true, []metalink.Hash{want, sha1Hash}, "", ""},
		{"conflicting hash", meta4("f.bin", data, 1024, other), false, []metalink.Hash{want}, "differs", ""},
		{"wrong size", meta4("f.bin", data[:4000], 1024), false, []metalink.Hash{want}, "4000 bytes", ""},
		{"broken document", []byte("<metalink"), false, []metalink.Hash{want}, "metalink", ""},
		{"missing document", nil, false, []metalink.Hash{want}, "404", "missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			desc := mirrortest.New(t, tc.doc, mirrortest.Path("/f.meta4"))
			link := desc.URL() + tc.linkSuffix
			origin := mirrortest.New(t, data, mirrortest.Path("/f.bin"), mirrortest.Header("Digest", digest),
				mirrortest.Header("Link", fmt.Sprintf(`<%s>; rel=describedby; type="application/metalink4+xml"`, link)))
			r := resolveOK(t, origin.URL())
			f := r.Document.Files[0]
			if (f.Pieces != nil) != tc.pieces {
				t.Fatalf("pieces %+v, want present=%v", f.Pieces, tc.pieces)
			}
			if tc.pieces && (f.Pieces.Length != 1024 || len(f.Pieces.Hashes) != 5) {
				t.Fatalf("pieces %+v", f.Pieces)
			}
			if fmt.Sprint(f.Hashes) != fmt.Sprint(tc.hashes) {
				t.Fatalf("hashes %+v, want %+v", f.Hashes, tc.hashes)
			}
			// A describing metalink that agrees adds its mirrors (issue 15).
			if wantURLs := map[bool]int{false: 1, true: 2}[tc.pieces]; f.Name != "f.bin" || len(f.URLs) != wantURLs {
				t.Fatalf("name %q, URLs %+v: want the name kept and %d mirrors", f.Name, f.URLs, wantURLs)
			}
			warnings := strings.Join(r.Document.Warnings, "\n")
			if tc.warning != "" && !strings.Contains(warnings, tc.warning) {
				t.Fatalf("warnings %q, want one mentioning %q", warnings, tc.warning)
			}
			if tc.warning == "" && warnings != "" {
				t.Fatalf("unexpected warnings %q", warnings)
			}
		})
	}
}

func TestFileName(t *testing.T) {
	data := testkit.Data(10)
	tests := []struct {
		name    string
		opts    []mirrortest.Option
		want    string
		warning bool
	}{
		{"from the URL", []mirrortest.Option{mirrortest.Path("/a/b/report.pdf")}, "report.pdf", false},
		{"escaped URL", []mirrortest.Option{mirrortest.Path("/a/my file.txt")}, "my file.txt", false},
		{"disposition", []mirrortest.Option{mirrortest.Path("/get"), mirrortest.Name("Übersicht.pdf")}, "Übersicht.pdf", false},
		{"disposition path keeps last element", []mirrortest.Option{mirrortest.Path("/get"), mirrortest.Header("Content-Disposition", `attachment; filename="../../etc/passwd"`)}, "passwd", false},
		{"hostile disposition", []mirrortest.Option{mirrortest.Path("/get.bin"), mirrortest.Header("Content-Disposition", `attachment; filename="..\\..\\evil.exe"`)}, "get.bin", true},
		{"device name", []mirrortest.Option{mirrortest.Path("/con.txt")}, resolve.DefaultName, true},
		{"root", []mirrortest.Option{mirrortest.Path("/")}, resolve.DefaultName, true},
		{"bidi override", []mirrortest.Option{mirrortest.Path("/x"), mirrortest.Name("invoice\u202Efdp.exe")}, "x", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mirrortest.New(t, data, tc.opts...)
			r := resolveOK(t, m.URL())
			if got := r.Document.Files[0].Name; got != tc.want {
				t.Fatalf("name %q, want %q", got, tc.want)
			}
			if err := metalink.SafeName(r.Document.Files[0].Name); err != nil {
				t.Fatalf("unsafe name accepted: %v", err)
			}
			if (len(r.Document.Warnings) > 0) != tc.warning {
				t.Fatalf("warnings %q, want some=%v", r.Document.Warnings, tc.warning)
			}
		})
	}
}

func TestFTP(t *testing.T) {
	data := testkit.Data(7777)
	s := ftptest.New(t, ftptest.File("pub/img.raw", data))
	r := resolveOK(t, s.URL("pub/img.raw"))
	f := r.Document.Files[0]
	if r.Kind != resolve.KindPlainURL || f.Name != "img.raw" || f.Size != 7777 || len(f.URLs) != 1 || f.URLs[0].URL != s.URL("pub/img.raw") {
		t.Fatalf("%v %+v", r.Kind, f)
	}
	if _, err := resolve.Resolve(context.Background(), s.URL("pub/none"), resolve.Options{}); !errors.Is(err, transport.ErrNotFound) {
		t.Fatalf("missing FTP file: %v", err)
	}
}

func TestErrors(t *testing.T) {
	gone := mirrortest.New(t, nil, mirrortest.Status(404))
	tests := []struct {
		source string
		want   error
	}{
		{"magnet:?xt=urn:btih:abc", transport.ErrUnsupportedScheme},
		{"gopher://h.example/x", transport.ErrUnsupportedScheme},
		{gone.URL(), transport.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.source, func(t *testing.T) {
			if _, err := resolve.Resolve(context.Background(), tc.source, resolve.Options{}); !errors.Is(err, tc.want) {
				t.Fatalf("%v, want %v", err, tc.want)
			}
		})
	}
}
