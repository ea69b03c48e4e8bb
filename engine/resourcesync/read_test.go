package resourcesync

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
)

func parseFile(t *testing.T, name string) *Document {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

func mustTime(s string) time.Time {
	t, ok := ParseTime(s)
	if !ok {
		panic(s)
	}
	return t
}

// TestParseSpecExamples reads the specification's examples of every
// document Braid reads.
func TestParseSpecExamples(t *testing.T) {
	rl := parseFile(t, "resourcelist.xml")
	if rl.Capability != CapResourceList || !rl.At.Equal(mustTime("2013-01-03T09:00:00Z")) || len(rl.Entries) != 2 {
		t.Fatalf("resource list: %+v", rl)
	}
	if LinkTo(rl.Links, "up") != "http://example.com/dataset1/capabilitylist.xml" {
		t.Errorf("up link: %v", rl.Links)
	}
	res2 := rl.Entries[1]
	want := []metalink.Hash{{Type: "md5", Value: "1e0d5cb8ef6ba40c99b14c0237be735e"}, {Type: "sha-256", Value: "854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784"}}
	if fmt.Sprint(res2.Hashes) != fmt.Sprint(want) || res2.Length != 14599 || res2.Type != "application/pdf" || res2.Line != 16 {
		t.Errorf("res2: %+v", res2)
	}
	if len(res2.Links) != 3 || res2.Links[0].Priority != 1 || res2.Links[1].Priority != metalink.LowestPriority {
		t.Errorf("res2 links: %+v", res2.Links)
	}

	cl := parseFile(t, "changelist.xml")
	if cl.Capability != CapChangeList || !cl.From.Equal(mustTime("2013-01-03T00:00:00Z")) || !cl.Until.IsZero() || len(cl.Entries) != 4 {
		t.Fatalf("change list: %+v", cl)
	}
	if cl.Entries[2].Change != ChangeDeleted || !cl.Entries[3].Lastmod.Equal(mustTime("2013-01-03T21:00:00Z")) {
		t.Errorf("changes: %+v", cl.Entries)
	}

	ci := parseFile(t, "changelist-index.xml")
	if !ci.Index || len(ci.Entries) != 2 || !ci.Entries[0].Until.Equal(mustTime("2013-01-02T00:00:00Z")) {
		t.Fatalf("change list index: %+v", ci)
	}

	sd := parseFile(t, "description.xml")
	if sd.Capability != CapDescription || len(sd.Entries) != 1 || sd.Entries[0].Capability != CapCapabilityList {
		t.Fatalf("source description: %+v", sd)
	}
	cap := parseFile(t, "capabilitylist.xml")
	if cap.Capability != CapCapabilityList || len(cap.Entries) != 3 || cap.Entries[2].Capability != CapChangeList {
		t.Fatalf("capability list: %+v", cap)
	}
	dump := parseFile(t, "resourcedump.xml")
	if dump.Capability != CapResourceDump || LinkTo(dump.Entries[0].Links, "contents") != "http://example.com/resourcedump_manifest-part1.xml" {
		t.Fatalf("resource dump: %+v", dump)
	}
	man := parseFile(t, "manifest.xml")
	if man.Capability != CapDumpManifest || man.Entries[0].Path != "/resources/res1" {
		t.Fatalf("manifest: %+v", man)
	}
}

// TestParseTolerant: what real sitemaps do is read, and what is skipped
// is said.
func TestParseTolerant(t *testing.T) {
	doc := `<?xml version="1.0"?>
<!-- a comment -->
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/" xmlns:x="urn:x" x:foo="1">
 <rs:md capability=" ResourceList " at="2013-01-03" x:bar="2" unknown="3"/>
 <x:thing><url><loc>http://ignored/</loc></url></x:thing>
 <url>
   <loc>
     http://example.com/a
   </loc>
   <lastmod>2013-01-02T13:00+01:00</lastmod>
   <changefreq>daily</changefreq>
   <rs:md hash="  md5:1584ABDF8EBDC9802AC0C6A7402C03B6	sha-1:0000000000000000000000000000000000000000 crc32:abcd sha-256:xyz " length="12"/>
   <x:extra>whatever</x:extra>
 </url>
 <url><lastmod>2013</lastmod></url>
 <url><loc>http://example.com/b</loc><rs:md length="-3"/><rs:ln rel="duplicate" pri="0" href="http://m/b"/><rs:ln href="http://m/c"/></url>
</urlset>
trailing text after the root is not read`
	d, err := Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if d.Capability != CapResourceList || !d.At.Equal(mustTime("2013-01-03T00:00:00Z")) {
		t.Errorf("document: %+v", d)
	}
	if len(d.Entries) != 2 {
		t.Fatalf("entries: %+v", d.Entries)
	}
	a := d.Entries[0]
	if a.Loc != "http://example.com/a" || !a.Lastmod.Equal(mustTime("2013-01-02T12:00:00Z")) || len(a.Hashes) != 2 || a.Hashes[0].Value != "1584abdf8ebdc9802ac0c6a7402c03b6" || a.Hashes[1].Type != "sha-1" || a.Length != 12 {
		t.Errorf("a: %+v", a)
	}
	b := d.Entries[1]
	if b.Length != -1 || len(b.Links) != 1 || b.Links[0].Priority != metalink.LowestPriority {
		t.Errorf("b: %+v", b)
	}
	// without <loc>, crc32, bad sha-256, bad length, bad pri, ln without rel
	if len(d.Warnings) != 6 {
		t.Errorf("warnings: %q", d.Warnings)
	}
}

// TestParseErrors: bad input is a clear error with its line and sentinel.
func TestParseErrors(t *testing.T) {
	deep := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + strings.Repeat("<a>", 100) + strings.Repeat("</a>", 100) + `</urlset>`
	many := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + strings.Repeat("<url><loc>http://x/a</loc></url>\n", 11) + `</urlset>`
	tests := []struct {
		name, doc string
		lim       Limits
		err       error
		line      int
	}{
		{"empty", "", Limits{}, ErrNotResourceSync, 1},
		{"not xml", "hello", Limits{}, ErrNotResourceSync, 1},
		{"metalink root", "<?xml version=\"1.0\"?>\n<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\"/>", Limits{}, ErrNotResourceSync, 2},
		{"truncated", "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n<url>\n<loc>http://x/", Limits{}, ErrTruncated, 3},
		{"mismatched", "<urlset>\n<url>\n</urlset>", Limits{}, ErrNotResourceSync, 3},
		{"entity", "<!DOCTYPE urlset [<!ENTITY a \"aaaa\">]>\n<urlset>&a;</urlset>", Limits{}, ErrEntity, 1},
		{"unknown entity", "<urlset>\n<url><loc>&bomb;</loc></url></urlset>", Limits{}, ErrNotResourceSync, 2},
		{"too deep", deep, Limits{}, ErrTooDeep, 1},
		{"too many", many, Limits{MaxEntries: 10}, ErrTooMany, 11},
		{"too large", many, Limits{MaxBytes: 100}, ErrTooLarge, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.lim.Parse(strings.NewReader(tc.doc))
			var se *SyntaxError
			if !errors.Is(err, tc.err) || !errors.As(err, &se) {
				t.Fatalf("error %v, want %v as a *SyntaxError", err, tc.err)
			}
			if tc.line > 0 && se.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", se.Line, tc.line, err)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("line %d", se.Line)) {
				t.Errorf("message %q does not name the line", err)
			}
		})
	}
}

// TestNameOf: the local path of a resource, and the attacks on it.
func TestNameOf(t *testing.T) {
	base, err := Base("http://example.com:8080/dataset1/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	if base.String() != "http://example.com:8080/" {
		t.Fatalf("base %s", base)
	}
	tests := []struct {
		loc, name string
		err       error
	}{
		{"http://example.com:8080/res1", "res1", nil},
		{"http://EXAMPLE.com:8080/data/set%201/a.csv", "data/set 1/a.csv", nil},
		{"http://example.com:8080/../etc/passwd", "", metalink.ErrUnsafeName},
		{"http://example.com:8080/a/../../etc/passwd", "", metalink.ErrUnsafeName},
		{"http://example.com:8080/%2e%2e/x", "", metalink.ErrUnsafeName},
		{"http://example.com:8080/a/%2F..%2F..%2Fx", "", metalink.ErrUnsafeName},
		{"http://example.com:8080/C:%5Cwindows", "", metalink.ErrUnsafeName},
		{"http://example.com:8080/a%5C..%5C..%5Cx", "", metalink.ErrUnsafeName},
		{"http://example.com:8080/nul%00x", "", metalink.ErrUnsafeName},
		{"http://example.com:8080/dir/", "", metalink.ErrUnsafeName},
		{"http://example.com:8080/", "", metalink.ErrUnsafeName},
		{"http://example.com:8080/q?id=1", "", metalink.ErrUnsafeName},
		{"http://example.com/res1", "", ErrOutside},
		{"https://example.com:8080/res1", "", ErrOutside},
		{"http://evil.example/res1", "", ErrOutside},
		{"file:///etc/passwd", "", ErrOutside},
		{"/relative", "", ErrOutside},
	}
	for _, tc := range tests {
		name, err := NameOf(tc.loc, base)
		if name != tc.name || (tc.err == nil) != (err == nil) || (tc.err != nil && !errors.Is(err, tc.err)) {
			t.Errorf("NameOf(%q) = %q, %v; want %q, %v", tc.loc, name, err, tc.name, tc.err)
		}
	}
}

func TestResources(t *testing.T) {
	rl := parseFile(t, "resourcelist.xml")
	base, _ := url.Parse("http://example.com/")
	rs, refused := Resources(rl.Entries, base)
	if len(rs) != 2 || len(refused) != 0 {
		t.Fatalf("resources %+v, refused %+v", rs, refused)
	}
	f := rs[1].File
	if f.Name != "res2" || f.Size != 14599 || len(f.Hashes) != 2 {
		t.Errorf("file %+v", f)
	}
	var urls []string
	for _, u := range f.URLs {
		urls = append(urls, u.URL)
	}
	if fmt.Sprint(urls) != "[http://example.com/res2 http://mirror1.example.com/res2 ftp://mirror2.example.com/res2]" {
		t.Errorf("mirrors in order: %v", urls)
	}
	if rs[1].DescribedBy != "http://example.com/res2.meta4" {
		t.Errorf("describedby %q", rs[1].DescribedBy)
	}

	cl := parseFile(t, "changelist.xml")
	rs, _ = Resources(cl.Entries, base)
	var got []string
	for _, r := range rs {
		got = append(got, r.File.Name+":"+r.Change)
	}
	if fmt.Sprint(got) != "[res1.html:created res3.tiff:deleted res2.pdf:updated]" {
		t.Errorf("changes reduced to the last per resource: %v", got)
	}
	doc := ToDocument(rs, nil, nil)
	if len(doc.Files) != 2 {
		t.Errorf("the document of a change list holds %d files, want the 2 not deleted", len(doc.Files))
	}

	dup := []Entry{{Loc: "http://example.com/a%2Fb"}, {Loc: "http://example.com/a/b"}}
	if rs, refused := Resources(dup, base); len(rs) != 1 || len(refused) != 1 {
		t.Errorf("two resources with one path: %d kept, %d refused", len(rs), len(refused))
	}
}

func TestChangesSince(t *testing.T) {
	idx := func(from, until string, lastmods ...string) *Document {
		d := &Document{Capability: CapChangeList, From: mustTime(from)}
		if until != "" {
			d.Until = mustTime(until)
		}
		for _, m := range lastmods {
			d.Entries = append(d.Entries, Entry{Loc: "http://x/" + m, Lastmod: mustTime(m), Change: ChangeUpdated})
		}
		return d
	}
	day1 := idx("2013-01-01T00:00:00Z", "2013-01-02T00:00:00Z", "2013-01-01T05:00:00Z", "2013-01-01T20:00:00Z")
	day2 := idx("2013-01-02T00:00:00Z", "", "2013-01-02T03:00:00Z")
	late := idx("2013-01-05T00:00:00Z", "", "2013-01-05T03:00:00Z")

	cs := ChangesSince([]*Document{day2, day1}, mustTime("2013-01-01T12:00:00Z"))
	if !cs.Covered || len(cs.Entries) != 2 || !cs.Until.Equal(mustTime("2013-01-02T03:00:00Z")) {
		t.Errorf("covered: %+v", cs)
	}
	if cs := ChangesSince([]*Document{late}, mustTime("2013-01-01T12:00:00Z")); cs.Covered {
		t.Errorf("a list that begins after the last sync covers it: %+v", cs)
	}
	if cs := ChangesSince([]*Document{day1, late}, mustTime("2013-01-01T12:00:00Z")); cs.Covered {
		t.Errorf("a gap between lists is covered: %+v", cs)
	}
	if cs := ChangesSince([]*Document{day1}, mustTime("2013-01-03T00:00:00Z")); !cs.Covered || len(cs.Entries) != 0 || !cs.Until.Equal(mustTime("2013-01-03T00:00:00Z")) {
		t.Errorf("nothing since: %+v", cs)
	}
	if cs := ChangesSince(nil, mustTime("2013-01-03T00:00:00Z")); cs.Covered {
		t.Errorf("no lists cover anything: %+v", cs)
	}
}

func TestMerge(t *testing.T) {
	r := Resource{Loc: "http://x/d/f.bin", File: metalink.File{Name: "d/f.bin", Size: 10,
		Hashes: []metalink.Hash{{Type: "md5", Value: "aa"}}, URLs: []metalink.URL{{URL: "http://x/d/f.bin", Priority: 1}}}}
	desc := &metalink.Document{Files: []metalink.File{{Name: "f.bin", Size: 10,
		Hashes: []metalink.Hash{{Type: "sha-256", Value: "bb"}},
		Pieces: &metalink.Pieces{Type: "sha-256", Length: 4, Hashes: []string{"1", "2", "3"}},
		URLs:   []metalink.URL{{URL: "http://m/f.bin", Priority: 5}}}}}
	if err := Merge(&r, desc); err != nil {
		t.Fatal(err)
	}
	if len(r.File.Hashes) != 2 || r.File.Pieces == nil || len(r.File.URLs) != 2 || r.File.URLs[0].URL != "http://x/d/f.bin" {
		t.Errorf("merged %+v", r.File)
	}
	bad := &metalink.Document{Files: []metalink.File{{Name: "f.bin", Size: 11}}}
	if err := Merge(&r, bad); err == nil {
		t.Error("a metalink with another size was merged")
	}
}

func TestSniff(t *testing.T) {
	for _, name := range []string{"resourcelist.xml", "changelist-index.xml", "description.xml"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !Sniff(b) {
			t.Errorf("%s is not sniffed as ResourceSync", name)
		}
	}
	for _, doc := range []string{
		`<?xml version="1.0"?><metalink xmlns="urn:ietf:params:xml:ns:metalink"/>`,
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://x/</loc></url></urlset>`, // a plain sitemap
		"\x00\x01binary",
		"",
	} {
		if Sniff([]byte(doc)) {
			t.Errorf("%q sniffed as ResourceSync", doc)
		}
	}
}

// TestParseTwoLocs: an entry with two <loc>s names two resources as one;
// Braid cannot tell which is meant, so the entry is skipped with a
// warning, not silently taken as its last <loc>, and the entries around
// it are read.
func TestParseTwoLocs(t *testing.T) {
	doc := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://example.com/before</loc></url>
<url><loc>http://example.com/a</loc><loc>http://example.com/b</loc></url>
<url><loc>http://example.com/after</loc></url>
</urlset>`
	d, err := Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var locs []string
	for _, e := range d.Entries {
		locs = append(locs, e.Loc)
	}
	if strings.Join(locs, " ") != "http://example.com/before http://example.com/after" {
		t.Errorf("entries %q; the one with two <loc>s must be skipped", locs)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "the entry on line 3 has 2 <loc>s") {
		t.Errorf("warnings %q", d.Warnings)
	}
}
