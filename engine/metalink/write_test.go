package metalink

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// writeRoundTrip writes d and parses the result.
func writeRoundTrip(t *testing.T, d *Document) (*Document, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatalf("Write: %v", err)
	}
	back, err := Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("Parse of what Write wrote: %v\n%s", err, buf.String())
	}
	return back, buf.String()
}

// writeDiff compares two documents field by field, as far as a document
// carries them (not Version, Rejected, Warnings), and names every
// difference.
func writeDiff(got, want *Document) []string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	if got.Generator != want.Generator {
		add("Generator %q, want %q", got.Generator, want.Generator)
	}
	// Metalink 4 says dynamic only on an origin; without one it says nothing.
	wantDynamic := want.Dynamic && want.Origin != ""
	if got.Origin != want.Origin || got.Dynamic != wantDynamic {
		add("Origin %q dynamic %v, want %q dynamic %v", got.Origin, got.Dynamic, want.Origin, wantDynamic)
	}
	if !got.Published.Equal(want.Published) {
		add("Published %v, want %v", got.Published, want.Published)
	}
	if !got.Updated.Equal(want.Updated) {
		add("Updated %v, want %v", got.Updated, want.Updated)
	}
	if len(got.Files) != len(want.Files) {
		add("%d files, want %d", len(got.Files), len(want.Files))
		return diffs
	}
	for i := range got.Files {
		g, w := reflect.ValueOf(got.Files[i]), reflect.ValueOf(want.Files[i])
		for j := 0; j < g.NumField(); j++ {
			if !reflect.DeepEqual(g.Field(j).Interface(), w.Field(j).Interface()) {
				add("file %q: %s = %#v, want %#v", want.Files[i].Name, g.Type().Field(j).Name,
					g.Field(j).Interface(), w.Field(j).Interface())
			}
		}
	}
	return diffs
}

const (
	sha256a = "f0ad929cd259957e160ea442eb80986b5f01f0ad929cd259957e160ea442eb80"
	sha1a   = "a97fcf6ba9358f8a6f62beee4421863d3e52b080"
	sha1b   = "d96b9a4b92a899c2099b7b31bddb5ca423bb9b30"
	sha1c   = "10d68f4b1119014c123da2a0a6baf5c8a6d5ba1e"
)

// richDocument uses every field of the model. Its connection limits are
// as Parse leaves them: no mirror's above or without its file's.
func richDocument() *Document {
	return &Document{
		Version:   4,
		Generator: "Braid/1.0",
		Origin:    "https://example.com/a&b.meta4?x=1&y=2",
		Dynamic:   true,
		Published: time.Date(2009, 5, 15, 12, 23, 23, 0, time.UTC),
		Updated:   time.Date(2010, 5, 1, 11, 15, 2, 250_000_000, time.UTC),
		Files: []File{{
			Name:           "dir/example.ext",
			Size:           2*1048576 + 17,
			MaxConnections: 3,
			Identity:       "Example",
			Version:        "1.0",
			Description:    "A description with <markup>, & ampersands, \"quotes\" and 'apostrophes'.\nSecond line\tand a tab.",
			Copyright:      "© 2009 Example",
			Logo:           "https://example.com/logo.png",
			Publisher:      Party{Name: "Example Org", URL: "https://example.com/"},
			License:        Party{Name: "GPL", URL: "https://www.gnu.org/licenses/gpl.html"},
			Languages:      []string{"en", "de-DE"},
			OS:             []string{"Linux-x64", "Windows-x64"},
			Hashes:         []Hash{{Type: "sha-256", Value: sha256a}, {Type: "sha-1", Value: sha1a}},
			Pieces:         &Pieces{Type: "sha-1", Length: 1048576, Hashes: []string{sha1a, sha1b, sha1c}},
			Signature: &Signature{MediaType: "application/pgp-signature",
				Value: "-----BEGIN PGP SIGNATURE-----\n\niEYEABECAAYFAkrxdXQACgkQ\n=ggAf\n-----END PGP SIGNATURE-----"},
			URLs: []URL{
				{URL: "ftp://ftp.example.com/example.ext", Location: "DE", Priority: 1, MaxConnections: 2},
				{URL: "http://example.com/example.ext?a=1&b=<2>", Location: "FR", Priority: 1, MaxConnections: 3, Pref: true, Depth: 2},
				{URL: "https://mirror.example.org/example.ext", Priority: 50, MaxConnections: 1, Depth: MaxMirrorDepth},
				{URL: "http://last.example.net/example.ext", Priority: LowestPriority, MaxConnections: 3},
			},
			MetaURLs: []MetaURL{
				{URL: "http://example.com/example.ext.torrent", MediaType: "torrent", Name: "dir/example.ext", Priority: 2},
				{URL: "https://example.com/other.meta4", MediaType: "application/metalink4+xml", Priority: LowestPriority},
			},
		}, {
			Name: "second file & 'friends'.txt",
			Size: 0,
			URLs: []URL{{URL: "http://example.com/2", Priority: LowestPriority}},
		}, {
			Name: "unknown-size.bin",
			Size: -1,
			URLs: []URL{{URL: "http://example.com/3", Location: "GB", Priority: 7, MaxConnections: MaxConnLimit}},
		}},
	}
}

func TestWriteRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		doc  *Document
	}{
		{"every field", richDocument()},
		{"minimal", &Document{Version: 4, Files: []File{{Name: "a", Size: -1,
			URLs: []URL{{URL: "http://example.com/a", Priority: LowestPriority}}}}}},
		{"no mirrors, only hashes", &Document{Version: 4, Files: []File{{Name: "sum-only", Size: 3,
			Hashes: []Hash{{Type: "sha-256", Value: sha256a}}}}}},
		{"v3-style priorities", &Document{Version: 3, Files: []File{{Name: "a", Size: -1, URLs: []URL{
			{URL: "http://a.example/", Location: "US", Priority: 1},
			{URL: "http://b.example/", Location: "DE", Priority: 61},
			{URL: "http://c.example/", Location: "DE", Priority: 61},
			{URL: "http://d.example/", Priority: 100},
		}}}}},
		{"unicode text", &Document{Version: 4, Files: []File{{Name: "文档/ファイル.txt", Size: 5,
			Description: "Ünïcödé — 名前 🎉", Identity: "x]]>y",
			URLs: []URL{{URL: "http://例え.jp/ファイル", Priority: LowestPriority}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			back, out := writeRoundTrip(t, tt.doc)
			if back.Version != 4 {
				t.Errorf("read back as version %d, want 4", back.Version)
			}
			if len(back.Rejected) != 0 {
				t.Errorf("Parse rejected files: %+v", back.Rejected)
			}
			for _, d := range writeDiff(back, tt.doc) {
				t.Error(d)
			}
			if t.Failed() {
				t.Logf("written:\n%s", out)
			}
		})
	}
}

// TestWriteCorpusRoundTrip reads every document of the reader's corpus,
// writes it as Metalink 4 and reads that: the model must not change, and
// in particular a Metalink 3 document keeps its mirror order.
func TestWriteCorpusRoundTrip(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.meta*")
	if err != nil {
		t.Fatal(err)
	}
	tested, v3 := 0, 0
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		first, err := Parse(bytes.NewReader(raw))
		if err != nil {
			continue // the corpus also holds documents Parse refuses
		}
		tested++
		if first.Version == 3 {
			v3++
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			if len(first.Files) == 0 {
				t.Skip("no file passed the safety checks")
			}
			back, out := writeRoundTrip(t, first)
			for _, d := range writeDiff(back, first) {
				t.Error(d)
			}
			for i := range first.Files {
				var want, got []string
				for _, u := range first.Files[i].URLs {
					want = append(want, u.URL)
				}
				for _, u := range back.Files[i].URLs {
					got = append(got, u.URL)
				}
				if !slices.Equal(got, want) {
					t.Errorf("file %q: mirror order %q, want %q", first.Files[i].Name, got, want)
				}
			}
			if t.Failed() {
				t.Logf("written:\n%s", out)
			}
		})
	}
	if tested < 10 || v3 < 3 {
		t.Fatalf("only %d documents (%d Metalink 3) in testdata parsed; the round trip proves little", tested, v3)
	}
}

// TestWriteV3MirrorOrder: a Metalink 3 document, written as Metalink 4,
// keeps the order of its mirrors, ties and missing preferences included.
func TestWriteV3MirrorOrder(t *testing.T) {
	const v3 = `<?xml version="1.0" encoding="UTF-8"?>
<metalink version="3.0" xmlns="http://www.metalinker.org/">
<files><file name="a.iso"><resources maxconnections="3">
<url type="http" location="us">http://none-1.example/a.iso</url>
<url type="http" location="de" preference="50">http://fifty-1.example/a.iso</url>
<url type="ftp" preference="100" maxconnections="1">ftp://hundred.example/a.iso</url>
<url type="http" location="fr" preference="50">http://fifty-2.example/a.iso</url>
<url type="http">http://none-2.example/a.iso</url>
<url type="http" location="jp" preference="50">http://fifty-3.example/a.iso</url>
</resources></file></files></metalink>`
	want := []string{
		"ftp://hundred.example/a.iso",
		"http://fifty-1.example/a.iso", "http://fifty-2.example/a.iso", "http://fifty-3.example/a.iso",
		"http://none-1.example/a.iso", "http://none-2.example/a.iso",
	}
	first, err := Parse(strings.NewReader(v3))
	if err != nil {
		t.Fatal(err)
	}
	back, out := writeRoundTrip(t, first)
	for _, d := range writeDiff(back, first) {
		t.Error(d)
	}
	var got []string
	for _, u := range back.Files[0].URLs {
		got = append(got, u.URL)
	}
	if !slices.Equal(got, want) {
		t.Errorf("mirror order after v3 -> v4 -> model: %q\nwant %q\nwritten:\n%s", got, want, out)
	}
	// The connection limits survive in the extension namespace: the
	// file's, and each mirror's as the file's caps it.
	if !strings.Contains(out, `<file name="a.iso" braid:maxconnections="3">`) ||
		!strings.Contains(out, `braid:maxconnections="1">ftp://hundred.example/a.iso`) ||
		strings.Count(out, `braid:maxconnections="3"`) != 6 {
		t.Errorf("connection limits not written:\n%s", out)
	}
}

func TestWriteShape(t *testing.T) {
	d := &Document{
		Generator: "Braid/1.0",
		Origin:    "http://example.com/x.meta4",
		Published: time.Date(2009, 5, 15, 14, 23, 23, 0, time.FixedZone("CEST", 2*3600)),
		Files: []File{{
			Name: "example.ext", Size: 14471447, MaxConnections: 4, Identity: "Example", Version: "1.0",
			Description: `A <b>bold</b> "claim" & more`,
			Languages:   []string{"en"}, OS: []string{"Linux-x86"},
			Publisher: Party{Name: "Example"},
			License:   Party{Name: "GPL", URL: "http://gnu.org/?a=1&b=2"},
			Hashes:    []Hash{{Type: "SHA-256", Value: "ABCDEF"}},
			Pieces:    &Pieces{Type: "sha-1", Length: 1048576, Hashes: []string{"D96B"}},
			Signature: &Signature{MediaType: "application/pgp-signature", Value: "sig\nline"},
			URLs: []URL{
				{URL: "ftp://ftp.example.com/example.ext", Location: "de", Priority: 1, MaxConnections: 4},
				{URL: "http://example.com/example.ext", Location: "uk", Priority: 0, Pref: true, Depth: 1},
			},
			MetaURLs: []MetaURL{{URL: "http://example.com/example.ext.torrent", MediaType: "torrent", Priority: 2}},
		}},
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
<metalink xmlns="urn:ietf:params:xml:ns:metalink" xmlns:braid="urn:x-braid:metalink">
  <generator>Braid/1.0</generator>
  <origin>http://example.com/x.meta4</origin>
  <published>2009-05-15T12:23:23Z</published>
  <file name="example.ext" braid:maxconnections="4">
    <size>14471447</size>
    <identity>Example</identity>
    <version>1.0</version>
    <description>A &lt;b&gt;bold&lt;/b&gt; &#34;claim&#34; &amp; more</description>
    <language>en</language>
    <os>Linux-x86</os>
    <publisher name="Example"/>
    <braid:license name="GPL" url="http://gnu.org/?a=1&amp;b=2"/>
    <hash type="sha-256">abcdef</hash>
    <pieces length="1048576" type="sha-1">
      <hash>d96b</hash>
    </pieces>
    <signature mediatype="application/pgp-signature">sig&#xA;line</signature>
    <url location="DE" priority="1" braid:maxconnections="4">ftp://ftp.example.com/example.ext</url>
    <url location="UK" braid:pref="true" braid:depth="1">http://example.com/example.ext</url>
    <metaurl priority="2" mediatype="torrent">http://example.com/example.ext.torrent</metaurl>
  </file>
</metalink>
`
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != want {
		t.Errorf("Write wrote\n%s\nwant\n%s", got, want)
	}

	// Without anything for the extension namespace, it is not declared.
	d.Files[0].License = Party{}
	d.Files[0].MaxConnections = 0
	d.Files[0].URLs = d.Files[0].URLs[:1]
	d.Files[0].URLs[0].MaxConnections = 0
	buf.Reset()
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "braid") {
		t.Errorf("extension namespace written without need:\n%s", buf.String())
	}
}

// TestWriteWellFormed decodes Write's output with encoding/xml, a parser
// independent of ours, and checks where every element and attribute lives.
func TestWriteWellFormed(t *testing.T) {
	var buf bytes.Buffer
	d := richDocument()
	d.Files[0].Description = "control \x00\x01\x1b chars, a lone surrogate-ish \xff byte, and ]]> too"
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(&buf)
	dec.Strict = true
	elements, extAttrs := 0, map[string]int{}
	var description string
	inDescription := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("encoding/xml refuses the output: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			elements++
			want := Namespace
			if tok.Name.Local == "license" {
				want = ExtNamespace
			}
			if tok.Name.Space != want {
				t.Errorf("<%s> in namespace %q, want %q", tok.Name.Local, tok.Name.Space, want)
			}
			for _, a := range tok.Attr {
				switch a.Name.Space {
				case "", "xmlns":
				case ExtNamespace:
					extAttrs[tok.Name.Local+" "+a.Name.Local]++
				default:
					t.Errorf("<%s> attribute %s in namespace %q", tok.Name.Local, a.Name.Local, a.Name.Space)
				}
			}
			inDescription = tok.Name.Local == "description"
		case xml.CharData:
			if inDescription {
				description += string(tok)
			}
		case xml.EndElement:
			inDescription = false
		}
	}
	if elements < 30 {
		t.Errorf("only %d elements decoded", elements)
	}
	wantExt := map[string]int{}
	for _, f := range d.Files {
		if f.MaxConnections > 0 {
			wantExt["file maxconnections"]++
		}
		for _, u := range f.URLs {
			if u.MaxConnections > 0 {
				wantExt["url maxconnections"]++
			}
			if u.Pref {
				wantExt["url pref"]++
			}
			if u.Depth > 0 {
				wantExt["url depth"]++
			}
		}
	}
	if !maps.Equal(extAttrs, wantExt) || len(wantExt) != 4 {
		t.Errorf("attributes in the extension namespace, by element: %v, want %v", extAttrs, wantExt)
	}
	if want := "control \uFFFD\uFFFD\uFFFD chars, a lone surrogate-ish \uFFFD byte, and ]]> too"; description != want {
		t.Errorf("description decoded as %q, want %q", description, want)
	}
}

func TestWriteRefuses(t *testing.T) {
	mirror := []URL{{URL: "http://example.com/", Priority: 1}}
	one := func(f File) *Document {
		if f.Name == "" {
			f.Name = "ok.bin"
		}
		f.URLs = mirror
		return &Document{Files: []File{f}}
	}
	tests := []struct {
		name string
		doc  *Document
		want string
	}{
		{"nil document", nil, "no files"},
		{"no files", &Document{Generator: "x"}, "no files"},
		{"traversal", one(File{Name: "../etc/passwd"}), `"../etc/passwd"`},
		{"absolute", one(File{Name: "/etc/passwd"}), "absolute"},
		{"backslash", one(File{Name: `a\..\b`}), "backslash"},
		{"duplicate", &Document{Files: []File{{Name: "a", URLs: mirror}, {Name: "a", URLs: mirror}}}, "duplicate"},
		{"duplicate by case", &Document{Files: []File{{Name: "A.iso", URLs: mirror}, {Name: "a.ISO", URLs: mirror}}}, "case"},
		{"file where a folder is", &Document{Files: []File{{Name: "a", URLs: mirror}, {Name: "a/b", URLs: mirror}}}, "folder"},
		{"hash without type", one(File{Hashes: []Hash{{Value: sha1a}}}), "no type"},
		{"pieces without length", one(File{Pieces: &Pieces{Type: "sha-1", Hashes: []string{sha1a}}}), "piece length 0"},
		{"pieces without type", one(File{Pieces: &Pieces{Length: 10, Hashes: []string{sha1a}}}), "no hash type"},
		{"signature without media type", one(File{Signature: &Signature{Value: "sig"}}), "signature"},
		{"publisher without name", one(File{Publisher: Party{URL: "http://x/"}}), "publisher"},
		{"licence without name", one(File{License: Party{URL: "http://x/"}}), "licence"},
		{"metaurl without media type", one(File{MetaURLs: []MetaURL{{URL: "http://x/t"}}}), "media type"},
		{"metaurl unsafe name", one(File{MetaURLs: []MetaURL{{URL: "http://x/t", MediaType: "torrent", Name: "../x"}}}), "metaurl"},
		{"negative file connection limit", one(File{MaxConnections: -1}), "connection limit -1"},
		{"file connection limit too high", one(File{MaxConnections: MaxConnLimit + 1}), "connection limit 65536 is outside 0 to 65535"},
		{"negative mirror connection limit", &Document{Files: []File{{Name: "a", URLs: []URL{{URL: "http://m/", MaxConnections: -2}}}}}, "mirror http://m/: connection limit -2"},
		{"mirror connection limit too high", &Document{Files: []File{{Name: "a", URLs: []URL{{URL: "http://m/", MaxConnections: MaxConnLimit + 1}}}}}, "mirror http://m/: connection limit 65536"},
		{"negative depth", &Document{Files: []File{{Name: "a", URLs: []URL{{URL: "http://m/", Depth: -1}}}}}, "mirror http://m/: depth -1"},
		{"depth too high", &Document{Files: []File{{Name: "a", URLs: []URL{{URL: "http://m/", Depth: MaxMirrorDepth + 1}}}}}, "depth 4097 is outside 0 to 4096"},
		{"year 10000", &Document{Updated: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
			Files: []File{{Name: "a", URLs: mirror}}}, "updated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Write(&buf, tt.doc)
			if !errors.Is(err, ErrNotWritable) {
				t.Fatalf("Write = %v, want an error wrapping ErrNotWritable", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes before refusing", buf.Len())
			}
		})
	}
}

// TestNeedsEscape: whenever the fast path skips xml.EscapeText, EscapeText
// would not have changed the text.
func TestNeedsEscape(t *testing.T) {
	var inputs []string
	for b := range 256 {
		inputs = append(inputs, "a"+string(rune(b))+"z", "a"+string([]byte{byte(b)})+"z")
	}
	inputs = append(inputs, "", "http://example.com/a?b=c;d", "sha-256", "\u202e", "\U0001F389")
	for _, in := range inputs {
		var buf bytes.Buffer
		if err := xml.EscapeText(&buf, []byte(in)); err != nil {
			t.Fatal(err)
		}
		if changed := buf.String() != in; changed && !needsEscape(in) {
			t.Errorf("needsEscape(%q) = false, but EscapeText gives %q", in, buf.String())
		}
	}
	if needsEscape("http://example.com/pub/file.iso") {
		t.Error("needsEscape is true for a plain URL: the fast path is never taken")
	}
}

// failingWriter fails once more than n bytes have been written to it.
type failingWriter struct{ n int }

var errDiskFull = errors.New("no space left on device")

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errDiskFull
	}
	w.n -= len(p)
	return len(p), nil
}

func TestWriteWriterError(t *testing.T) {
	var full bytes.Buffer
	if err := Write(&full, richDocument()); err != nil {
		t.Fatal(err)
	}
	// Fail at the start, in the middle of the buffered body, and at the
	// very last byte of the final flush.
	for _, n := range []int{0, 100, full.Len() / 2, full.Len() - 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			err := Write(&failingWriter{n: n}, richDocument())
			if !errors.Is(err, errDiskFull) {
				t.Errorf("Write = %v, want the writer's error", err)
			}
		})
	}
	if err := Write(&failingWriter{n: full.Len()}, richDocument()); err != nil {
		t.Errorf("Write to a writer with exactly enough room: %v", err)
	}
}

func TestWriteDoesNotModify(t *testing.T) {
	d := richDocument()
	d.Files[0].URLs[0].Location = "de" // written upper case, kept as is here
	d.Files[0].Hashes[0].Value = strings.ToUpper(sha256a)
	before := fmt.Sprintf("%#v", *d)
	if err := Write(io.Discard, d); err != nil {
		t.Fatal(err)
	}
	if after := fmt.Sprintf("%#v", *d); after != before {
		t.Errorf("Write modified the document:\nbefore %s\nafter  %s", before, after)
	}
}

// BenchmarkWrite writes a document of 1,000 files with 10 mirrors and 40
// piece hashes each (about 5 MB).
func BenchmarkWrite(b *testing.B) {
	d := &Document{}
	for i := range 1000 {
		f := File{Name: fmt.Sprintf("dir/file-%04d.bin", i), Size: 40 << 20,
			Hashes: []Hash{{Type: "sha-256", Value: sha256a}},
			Pieces: &Pieces{Type: "sha-256", Length: 1 << 20}}
		for range 40 {
			f.Pieces.Hashes = append(f.Pieces.Hashes, sha256a)
		}
		for m := range 10 {
			f.URLs = append(f.URLs, URL{URL: fmt.Sprintf("http://mirror%d.example.com/pub/file-%04d.bin", m, i),
				Location: "DE", Priority: m + 1})
		}
		d.Files = append(d.Files, f)
	}
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, d); err != nil {
			b.Fatal(err)
		}
	}
}
