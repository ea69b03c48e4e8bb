package metalink

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// TestBadDocuments: malformed, truncated, hostile and foreign documents
// fail with an error that says where and what, and wraps the sentinel a
// caller can test for.
func TestBadDocuments(t *testing.T) {
	const v4 = `<metalink xmlns="urn:ietf:params:xml:ns:metalink">`
	tests := []struct {
		name     string
		doc      string
		file     string // testdata file instead of doc
		sentinel error  // nil: no sentinel, just a *SyntaxError
		line     int    // 0: no *SyntaxError expected
		msg      string // part of the message
	}{
		{name: "truncated", file: "bad/truncated.meta4", sentinel: ErrTruncated, line: 7, msg: "ends inside <url> opened on line 6: expected </url>"},
		{name: "truncated in a tag", doc: v4 + "\n<file name=\"a\"><url loc", sentinel: ErrTruncated, line: 2, msg: "ends inside the start tag <url"},
		{name: "truncated in an attribute", doc: v4 + "\n<file name=\"a", sentinel: ErrTruncated, line: 2, msg: `the value of attribute name of <file>`},
		{name: "truncated in a comment", doc: v4 + "\n\n<!-- never closed", sentinel: ErrTruncated, line: 3, msg: "a comment"},
		{name: "truncated in CDATA", doc: v4 + "<file name=\"a\"><url><![CDATA[http://x", sentinel: ErrTruncated, line: 1, msg: "a CDATA section"},
		{name: "truncated after the root start", doc: v4, sentinel: ErrTruncated, line: 1, msg: "expected </metalink>"},
		{name: "mismatched end tag", file: "bad/mismatched.meta4", line: 4, msg: "</url> closes <size> opened on line 4: expected </size>"},
		{name: "end tag closes nothing", doc: "</metalink>", line: 1, msg: "closes no element"},
		{name: "billion laughs", file: "bad/billion-laughs.meta4", sentinel: ErrEntity, line: 3, msg: "declares an XML entity"},
		{name: "external entity", file: "bad/external-entity.meta4", sentinel: ErrEntity, line: 2, msg: "declares an XML entity"},
		{name: "undefined entity", doc: v4 + "<file name=\"a\"><url>http://x/?a=1&nbsp;</url></file></metalink>", line: 1, msg: "undefined entity &nbsp;"},
		{name: "bare ampersand", doc: v4 + "<file name=\"a\">\n<url>http://x/?a=1&b=2</url></file></metalink>", line: 2, msg: "'&' must start a reference"},
		{name: "illegal character reference", doc: v4 + "<file name=\"a&#0;\"/></metalink>", line: 1, msg: "&#0; is not a legal XML character"},
		{name: "deep nesting", file: "bad/deep.meta4", sentinel: ErrTooDeep, line: 3, msg: "nested more than 32 elements deep"},
		{name: "unquoted attribute", doc: v4 + "\n\n<file name=a/></metalink>", line: 3, msg: "must be in quotes"},
		{name: "attribute without value", doc: v4 + "<file name/></metalink>", line: 1, msg: "has no value: expected '='"},
		{name: "attributes run together", doc: v4 + `<file name="a"size="1"/></metalink>`, line: 1, msg: "expected whitespace"},
		{name: "less-than in attribute", doc: v4 + `<file name="a<b"/></metalink>`, line: 1, msg: "'<' in an attribute value"},
		{name: "control character", doc: v4 + "<file name=\"a\"><description>\x01</description></file></metalink>", line: 1, msg: "control character U+0001"},
		{name: "invalid UTF-8", doc: v4 + "\n\n\n<file name=\"caf\xe9\"/></metalink>", line: 4, msg: "invalid UTF-8"},
		{name: "bad element name", doc: v4 + "<1file/></metalink>", line: 1, msg: "expected an element name"},
		{name: "malformed qualified name", doc: v4 + "<a:b:c/></metalink>", line: 1, msg: "malformed name"},
		{name: "unknown markup", doc: v4 + "<!ELEMENT x ANY></metalink>", line: 1, msg: "unknown markup"},
		{name: "too many attributes", doc: v4 + "<file" + strings.Repeat(" a=''", 300) + "/></metalink>", line: 1, msg: "more than 256 attributes"},
		{name: "empty", doc: "", sentinel: ErrNotMetalink, line: 1, msg: "the document is empty"},
		{name: "only whitespace", doc: " \n\t\n", sentinel: ErrNotMetalink, line: 3, msg: "the document is empty"},
		{name: "only a declaration", doc: `<?xml version="1.0"?>`, sentinel: ErrNotMetalink, line: 1, msg: "no root element"},
		{name: "HTML error page", doc: "<!DOCTYPE html>\n<html><body>502 Bad Gateway</body></html>", sentinel: ErrNotMetalink, line: 2, msg: "the root element is <html>"},
		{name: "JSON", doc: `{"files": []}`, sentinel: ErrNotMetalink, line: 1, msg: "does not start with XML markup"},
		{name: "a torrent file", doc: "d8:announce35:http://tracker.example/announce4:infod4:name1:xee", sentinel: ErrNotMetalink, line: 1, msg: "does not start with XML markup"},
		{name: "Atom feed", doc: `<feed xmlns="http://www.w3.org/2005/Atom"/>`, sentinel: ErrNotMetalink, line: 1, msg: "<feed>"},
		{name: "no namespace", doc: `<metalink><file name="a"/></metalink>`, sentinel: ErrNotMetalink, line: 1, msg: "has no namespace"},
		{name: "unknown namespace", doc: `<metalink xmlns="urn:example:metalink5"/>`, sentinel: ErrNotMetalink, line: 1, msg: `unknown namespace "urn:example:metalink5"`},
		{name: "undeclared root prefix", doc: `<ml:metalink><ml:file name="a"/></ml:metalink>`, sentinel: ErrNotMetalink, line: 1, msg: "unknown namespace"},
		{name: "unknown encoding", doc: `<?xml version="1.0" encoding="x-klingon"?>` + v4 + `</metalink>`, sentinel: ErrEncoding, line: 1, msg: `"x-klingon"`},
		{name: "no files", doc: v4 + "<generator>x</generator></metalink>", sentinel: ErrNoFiles},
		{name: "DOCTYPE inside", doc: v4 + "<!DOCTYPE x></metalink>", line: 1, msg: "DOCTYPE inside"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc []byte
			if tt.file != "" {
				var err error
				if doc, err = os.ReadFile(filepath.Join("testdata", tt.file)); err != nil {
					t.Fatal(err)
				}
			} else {
				doc = []byte(tt.doc)
			}
			got, err := Parse(bytes.NewReader(doc))
			if err == nil {
				t.Fatalf("Parse succeeded with %d files, want an error", len(got.Files))
			}
			if got != nil {
				t.Errorf("Parse returned a document along with the error %v", err)
			}
			if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
				t.Errorf("error %v does not wrap %v", err, tt.sentinel)
			}
			if tt.line != 0 {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("error %v is not a *SyntaxError", err)
				}
				if se.Line != tt.line {
					t.Errorf("line %d, want %d (%v)", se.Line, tt.line, err)
				}
				if !strings.HasPrefix(err.Error(), fmt.Sprintf("metalink: line %d: ", tt.line)) {
					t.Errorf("error %q does not start with the line", err)
				}
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
		})
	}
}

// TestLimits: a document over the size limit is refused after reading at
// most one byte more than the limit, however long the input runs.
func TestLimits(t *testing.T) {
	doc := parseableDoc(40)
	t.Run("size below the limit", func(t *testing.T) {
		if _, err := (Limits{MaxBytes: int64(len(doc))}).Parse(strings.NewReader(doc)); err != nil {
			t.Fatalf("a document of exactly MaxBytes: %v", err)
		}
	})
	t.Run("size above the limit", func(t *testing.T) {
		_, err := (Limits{MaxBytes: int64(len(doc)) - 1}).Parse(strings.NewReader(doc))
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprint(len(doc)-1)) {
			t.Fatalf("err = %v, want ErrTooLarge naming the limit", err)
		}
	})
	t.Run("endless nesting", func(t *testing.T) {
		// A gigabyte of "<a>" is cut off at the limit, not read to its end.
		r := &countingReader{r: io.LimitReader(&repeatReader{s: "<a>"}, 1<<30)}
		_, err := (Limits{MaxBytes: 1 << 20}).Parse(r)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
		if r.n > 1<<20+64<<10 {
			t.Errorf("read %d bytes for a 1 MiB limit", r.n)
		}
	})
	t.Run("nesting within the size limit", func(t *testing.T) {
		deep := `<metalink xmlns="urn:ietf:params:xml:ns:metalink">` + strings.Repeat("<a>", 100000)
		_, err := Parse(strings.NewReader(deep))
		var se *SyntaxError
		if !errors.Is(err, ErrTooDeep) || !errors.As(err, &se) || se.Line != 1 {
			t.Fatalf("err = %v, want ErrTooDeep on line 1", err)
		}
	})
	t.Run("custom depth", func(t *testing.T) {
		// metalink/files/file/verification/pieces/hash is six deep.
		v3 := parseableV3()
		if _, err := (Limits{MaxDepth: 6}).Parse(strings.NewReader(v3)); err != nil {
			t.Fatalf("MaxDepth 6: %v", err)
		}
		_, err := (Limits{MaxDepth: 5}).Parse(strings.NewReader(v3))
		if !errors.Is(err, ErrTooDeep) || !strings.Contains(err.Error(), "<hash>") {
			t.Fatalf("MaxDepth 5: err = %v, want ErrTooDeep at <hash>", err)
		}
	})
	t.Run("files", func(t *testing.T) {
		if _, err := (Limits{MaxFiles: 40}).Parse(strings.NewReader(doc)); err != nil {
			t.Fatalf("40 files with MaxFiles 40: %v", err)
		}
		_, err := (Limits{MaxFiles: 39}).Parse(strings.NewReader(doc))
		var se *SyntaxError
		if !errors.Is(err, ErrTooLarge) || !errors.As(err, &se) || se.Line != 42 || !strings.Contains(err.Error(), "more than 39 files") {
			t.Fatalf("err = %v, want ErrTooLarge on line 42 about more than 39 files", err)
		}
	})
	t.Run("read error", func(t *testing.T) {
		boom := errors.New("connection reset")
		_, err := Parse(io.MultiReader(strings.NewReader(doc[:100]), iotest.ErrReader(boom)))
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "reading the document") {
			t.Fatalf("err = %v, want the read error wrapped", err)
		}
	})
	t.Run("warnings are bounded", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(`<metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="f"><url>http://x/f</url>`)
		for i := range 500 {
			fmt.Fprintf(&b, `<hash type="x-%d">ab</hash>`, i)
		}
		b.WriteString(`</file></metalink>`)
		d := parseString(t, b.String())
		// 32 hashes kept with a warning each, 468 refused with one each.
		if len(d.Warnings) != maxWarnings+1 || d.Warnings[maxWarnings] != "... and 400 more warnings" {
			t.Fatalf("%d warnings ending %q; want %d and a count of the rest", len(d.Warnings), d.Warnings[len(d.Warnings)-1], maxWarnings+1)
		}
		if len(d.Files[0].Hashes) != maxHashes {
			t.Errorf("%d unknown hashes kept as data, want %d", len(d.Files[0].Hashes), maxHashes)
		}
		if want := `file "f" (line 1): more than 32 whole-file hashes; the rest are ignored`; d.Warnings[maxHashes] != want {
			t.Errorf("warning %d = %q, want %q", maxHashes, d.Warnings[maxHashes], want)
		}
	})
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// repeatReader repeats s for ever.
type repeatReader struct {
	s   string
	off int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.s[r.off]
		r.off = (r.off + 1) % len(r.s)
	}
	return len(p), nil
}

// parseableDoc returns a valid Metalink 4 document of n files.
func parseableDoc(n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<metalink xmlns="urn:ietf:params:xml:ns:metalink">` + "\n")
	for i := range n {
		fmt.Fprintf(&b, "  <file name=\"f%d\"><size>%d</size><url priority=\"%d\">http://example.com/f%d</url></file>\n", i, i, i+1, i)
	}
	b.WriteString("</metalink>\n")
	return b.String()
}

func parseableV3() string {
	return `<metalink version="3.0" xmlns="http://www.metalinker.org/"><files><file name="f"><size>4</size>
<verification><pieces type="sha1" length="4"><hash piece="0">a9993e364706816aba3e25717850c26c9cd0d89d</hash></pieces></verification>
<resources><url>http://example.com/f</url></resources></file></files></metalink>`
}

func TestEncodings(t *testing.T) {
	const body = `<metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="Ünïcödé €.txt"><description>naïve — “quoted”</description><url>http://x/f</url></file></metalink>`
	utf16be, _ := unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewEncoder().String(`<?xml version="1.0" encoding="UTF-16"?>` + body)
	utf16le, _ := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().String(`<?xml version="1.0" encoding="UTF-16"?>` + body)
	cp1252, _ := charmap.Windows1252.NewEncoder().String(`<?xml version="1.0" encoding="windows-1252"?>` + body)
	latin9, _ := charmap.ISO8859_15.NewEncoder().String(`<?xml version='1.0' encoding = 'ISO-8859-15' ?>` + strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(body, "—", "-"), "“", `"`), "”", `"`))
	tests := []struct {
		name, doc, file, desc string
	}{
		{"UTF-8", body, "Ünïcödé €.txt", "naïve — “quoted”"},
		{"UTF-8 with BOM", "\xef\xbb\xbf" + `<?xml version="1.0" encoding="UTF-8"?>` + body, "Ünïcödé €.txt", "naïve — “quoted”"},
		{"UTF-16BE without BOM", utf16be, "Ünïcödé €.txt", "naïve — “quoted”"},
		{"UTF-16LE with BOM", utf16le, "Ünïcödé €.txt", "naïve — “quoted”"},
		{"windows-1252", cp1252, "Ünïcödé €.txt", "naïve — “quoted”"},
		{"ISO-8859-15", latin9, "Ünïcödé €.txt", `naïve - "quoted"`},
		{"declared UTF-16 but 8-bit", `<?xml version="1.0" encoding="UTF-16"?>` + body, "Ünïcödé €.txt", "naïve — “quoted”"},
		{"character references", `<metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="&#xDC;n&#239;c&#246;d&#233; &#8364;.txt"><description>na&#xef;ve &amp; &lt;b&gt; &apos;&quot;</description><url>http://x/f</url></file></metalink>`,
			"Ünïcödé €.txt", `naïve & <b> '"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := parseString(t, tt.doc)
			if len(d.Files) != 1 || d.Files[0].Name != tt.file || d.Files[0].Description != tt.desc {
				t.Fatalf("files %+v, want %q described %q", d.Files, tt.file, tt.desc)
			}
		})
	}
}

func TestPriorities(t *testing.T) {
	tests := []struct {
		name    string
		attr    string // the attribute as written, "" for none
		v3      bool
		want    int
		warning bool
	}{
		{"v4 absent", "", false, LowestPriority, false},
		{"v4 1", `priority="1"`, false, 1, false},
		{"v4 999999", `priority="999999"`, false, 999999, false},
		{"v4 spaces", `priority=" 42 "`, false, 42, false},
		{"v4 0 counts as absent", `priority="0"`, false, LowestPriority, true},
		{"v4 negative counts as absent, never first", `priority="-5"`, false, LowestPriority, true},
		{"v4 huge negative", `priority="-99999999999999999999999"`, false, LowestPriority, true},
		{"v4 over the maximum", `priority="1000000"`, false, LowestPriority, true},
		{"v4 overflows int64", `priority="99999999999999999999999"`, false, LowestPriority, true},
		{"v4 junk counts as absent", `priority="high"`, false, LowestPriority, true},
		{"v4 fraction counts as absent", `priority="1.5"`, false, LowestPriority, true},
		{"v4 empty counts as absent", `priority=""`, false, LowestPriority, true},
		{"v3 absent is 1", "", true, 100, false},
		{"v3 100 first", `preference="100"`, true, 1, false},
		{"v3 1 last", `preference="1"`, true, 100, false},
		{"v3 50", `preference="50"`, true, 51, false},
		{"v3 0 counts as absent", `preference="0"`, true, 100, true}, // MirrorBrain, past 100 mirrors
		{"v3 over 100 counts as absent, never first", `preference="250"`, true, 100, true},
		{"v3 junk counts as absent", `preference="top"`, true, 100, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := `<metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="f"><url ` + tt.attr + `>http://x/f</url></file></metalink>`
			if tt.v3 {
				doc = `<metalink version="3.0" xmlns="http://www.metalinker.org/"><files><file name="f"><resources><url ` + tt.attr + `>http://x/f</url></resources></file></files></metalink>`
			}
			d := parseString(t, doc)
			if got := d.Files[0].URLs[0].Priority; got != tt.want {
				t.Errorf("priority %d, want %d", got, tt.want)
			}
			if warned := len(d.Warnings) > 0; warned != tt.warning {
				t.Errorf("warnings %q, want a warning: %v", d.Warnings, tt.warning)
			}
		})
	}
}

// TestOrdering: URLs and MetaURLs are sorted by priority, ties in
// document order, whatever order the document lists them in.
func TestOrdering(t *testing.T) {
	d := parseString(t, `<metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="f">
		<url priority="3">http://c/</url><url>http://none/</url><url priority="1">http://a1/</url>
		<metaurl mediatype="torrent" priority="9">http://t9/</metaurl><url priority="2">http://b/</url>
		<url priority="1">http://a2/</url><metaurl mediatype="torrent" priority="4">http://t4/</metaurl>
	</file></metalink>`)
	var urls, metas []string
	for _, u := range d.Files[0].URLs {
		urls = append(urls, u.URL)
	}
	for _, u := range d.Files[0].MetaURLs {
		metas = append(metas, u.URL)
	}
	if got := strings.Join(urls, " "); got != "http://a1/ http://a2/ http://b/ http://c/ http://none/" {
		t.Errorf("URLs in order %s", got)
	}
	if got := strings.Join(metas, " "); got != "http://t4/ http://t9/" {
		t.Errorf("MetaURLs in order %s", got)
	}
}

// TestV4Details covers the Metalink 4 rules the corpus does not.
func TestV4Details(t *testing.T) {
	const head = `<metalink xmlns="urn:ietf:params:xml:ns:metalink" xmlns:x="urn:example:ext">`
	tests := []struct {
		name string
		body string
		want *Document
	}{
		{"RFC publisher attributes and xml:lang", `<file name="f" xml:lang="de"><publisher name="Example AG" url="http://example.de/"/><url xml:lang="de">http://x/f</url></file>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: -1,
				Publisher: Party{Name: "Example AG", URL: "http://example.de/"},
				URLs:      []URL{mirror("http://x/f", "", LowestPriority)}}}}},
		{"file publisher wins over the top-level one", `<publisher><name>Top</name></publisher><file name="f"><publisher name="Own"/><url>http://x/f</url></file><file name="g"><url>http://x/g</url></file>`,
			&Document{Version: 4, Files: []File{
				{Name: "f", Size: -1, Publisher: Party{Name: "Own"}, URLs: []URL{mirror("http://x/f", "", LowestPriority)}},
				{Name: "g", Size: -1, Publisher: Party{Name: "Top"}, URLs: []URL{mirror("http://x/g", "", LowestPriority)}},
			}}},
		{"foreign markup is skipped, with what it holds", `<x:stats><size>1</size></x:stats><file name="f"><x:alt><size>99</size><hash type="md5">00000000000000000000000000000000</hash><url>http://evil/f</url></x:alt><size>5</size><x:note>hi</x:note><url>http://x/f</url><license name="GPL"/></file>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: 5, URLs: []URL{mirror("http://x/f", "", LowestPriority)}}}}},
		{"metaurl media types", `<file name="f"><metaurl mediatype="application/x-bittorrent" priority="1">http://x/1.torrent</metaurl><metaurl mediatype="magnet" priority="2">magnet:?xt=urn:btih:00</metaurl><metaurl mediatype="Application/Metalink4+XML" priority="3">http://x/f.meta4</metaurl><metaurl mediatype="application/json" priority="4">MAGNET:?xt=urn:btih:01</metaurl><metaurl mediatype="torrent"></metaurl></file>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: -1, MetaURLs: []MetaURL{
				torrent("http://x/1.torrent", 1), torrent("magnet:?xt=urn:btih:00", 2),
				{URL: "http://x/f.meta4", MediaType: "application/metalink4+xml", Priority: 3},
				torrent("MAGNET:?xt=urn:btih:01", 4),
			}}}}},
		{"magnet and bittorrent urls are metaurls", `<file name="f"><url priority="5">magnet:?xt=urn:btih:ab</url><url type="bittorrent" priority="6">http://x/f.torrent</url><url>http://x/f.torrent</url></file>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: -1,
				URLs:     []URL{mirror("http://x/f.torrent", "", LowestPriority)}, // untyped Metalink 4 URLs are what they say
				MetaURLs: []MetaURL{torrent("magnet:?xt=urn:btih:ab", 5), torrent("http://x/f.torrent", 6)}}}}},
		{"CDATA, comments, entities and self-closing elements", `<file name="a&amp;b"><url location="de"><![CDATA[http://x/?a=1&b=2]]></url><url><!-- c -->http://y/<!-- d -->f</url><os/><language> </language></file>`,
			&Document{Version: 4, Files: []File{{Name: "a&b", Size: -1, URLs: []URL{
				mirror("http://x/?a=1&b=2", "DE", LowestPriority), mirror("http://y/f", "", LowestPriority)}}}}},
		{"locations", `<file name="f"><url location="gb">http://a/</url><url location="--">http://b/</url><url location="EUR">http://c/</url><url location=" us ">http://d/</url><url location="é1">http://e/</url></file>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: -1, URLs: []URL{
				mirror("http://a/", "GB", LowestPriority), mirror("http://b/", "", LowestPriority), mirror("http://c/", "", LowestPriority),
				mirror("http://d/", "US", LowestPriority), mirror("http://e/", "", LowestPriority)}}}}},
		{"origin not dynamic, repeated singletons keep the first", `<origin dynamic="false">http://o/1</origin><origin dynamic="true">http://o/2</origin><generator>g1</generator><generator>g2</generator><file name="f"><size>1</size><size>2</size><identity>i1</identity><identity>i2</identity><url>http://x/f</url></file>`,
			&Document{Version: 4, Origin: "http://o/1", Generator: "g1", Files: []File{{Name: "f", Size: 1, Identity: "i1", URLs: []URL{mirror("http://x/f", "", LowestPriority)}}}}},
		{"duplicate hashes", `<file name="f"><hash type="sha-1">a9993e364706816aba3e25717850c26c9cd0d89d</hash><hash type="SHA1">A9993E364706816ABA3E25717850C26C9CD0D89D</hash><hash type="md5">900150983cd24fb0d6963f7d28e17f72</hash><hash type="md5">00000000000000000000000000000000</hash><hash>0123</hash><url>http://x/f</url></file>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: -1,
				Hashes: []Hash{{Type: "sha-1", Value: "a9993e364706816aba3e25717850c26c9cd0d89d"}, {Type: "md5", Value: "900150983cd24fb0d6963f7d28e17f72"}},
				URLs:   []URL{mirror("http://x/f", "", LowestPriority)}}},
				Warnings: []string{`file "f" (line 1): two different md5 hashes; the first is kept`,
					`file "f" (line 1): a <hash> without a type outside <pieces>; ignored`}}},
		{"sizes that are not byte counts", `<file name="f"><size>-1</size><url>http://x/f</url></file><file name="g"><size>1e6</size><url>http://x/g</url></file><file name="h"><size>99999999999999999999</size><url>http://x/h</url></file>`,
			&Document{Version: 4, Files: []File{
				{Name: "f", Size: -1, URLs: []URL{mirror("http://x/f", "", LowestPriority)}},
				{Name: "g", Size: -1, URLs: []URL{mirror("http://x/g", "", LowestPriority)}},
				{Name: "h", Size: -1, URLs: []URL{mirror("http://x/h", "", LowestPriority)}}},
				Warnings: []string{`file "f" (line 1): the size "-1" is not a byte count; ignored`,
					`file "g" (line 1): the size "1e6" is not a byte count; ignored`,
					`file "h" (line 1): the size "99999999999999999999" is not a byte count; ignored`}}},
		{"dates that are not RFC 3339", `<published>Mon, 15 May 2006 00:00:01 GMT</published><updated>yesterday</updated><file name="f"><url>http://x/f</url></file>`,
			&Document{Version: 4, Published: date("2006-05-15T00:00:01Z"), Files: []File{{Name: "f", Size: -1, URLs: []URL{mirror("http://x/f", "", LowestPriority)}}},
				Warnings: []string{`line 1: the published date "Mon, 15 May 2006 00:00:01 GMT" is not RFC 3339; read as 2006-05-15T00:00:01Z`,
					`line 1: the updated date "yesterday" is not a date; ignored`}}},
		{"an empty signature is none", `<file name="f"><signature mediatype="application/pgp-signature"> </signature><signature mediatype="application/pkcs7-signature">two</signature><url>http://x/f</url></file>` +
			`<file name="g"><signature mediatype="application/pgp-signature"/><url>http://x/g</url></file>`,
			&Document{Version: 4, Files: []File{
				{Name: "f", Size: -1, Signature: &Signature{MediaType: "application/pkcs7-signature", Value: "two"}, URLs: []URL{mirror("http://x/f", "", LowestPriority)}},
				{Name: "g", Size: -1, URLs: []URL{mirror("http://x/g", "", LowestPriority)}}},
				Warnings: []string{`file "f" (line 1): an empty signature; ignored`,
					`file "f" (line 1): the signature is of type "application/pkcs7-signature", which Braid cannot check (only application/pgp-signature); the file is judged by its hashes`,
					`file "g" (line 1): an empty signature; ignored`}}},
		{"a signature without a media type", `<file name="f"><signature>-----BEGIN PGP SIGNATURE-----</signature><url>http://x/f</url></file>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: -1, Signature: &Signature{Value: "-----BEGIN PGP SIGNATURE-----"}, URLs: []URL{mirror("http://x/f", "", LowestPriority)}}},
				Warnings: []string{`file "f" (line 1): the signature has no media type (a Metalink must give one); it cannot be checked, so the file is judged by its hashes`}}},
		{"several signatures", `<file name="f"><signature mediatype="application/pgp-signature">one</signature><signature mediatype="application/pkcs7-signature">two</signature><url>http://x/f</url></file>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: -1, Signature: &Signature{MediaType: "application/pgp-signature", Value: "one"}, URLs: []URL{mirror("http://x/f", "", LowestPriority)}}},
				Warnings: []string{`file "f" (line 1): only the first signature is kept; 1 more ignored`}}},
		{"a file with nowhere to download from", `<file name="f"><size>1</size></file>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: 1}},
				Warnings: []string{`file "f" (line 1): no mirror or metadata URL to download it from`}}},
		{"text after the root is not read", `<file name="f"><url>http://x/f</url></file></metalink><garbage>&undefined;`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: -1, URLs: []URL{mirror("http://x/f", "", LowestPriority)}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := head + tt.body
			if !strings.Contains(tt.body, "</metalink>") {
				doc += "</metalink>"
			}
			checkDoc(t, parseString(t, doc), tt.want)
		})
	}
}

// TestV3Details covers the Metalink 3 rules the corpus does not.
func TestV3Details(t *testing.T) {
	const head = `<metalink version="3.0" xmlns="http://www.metalinker.org/">`
	tests := []struct {
		name string
		doc  string
		want *Document
	}{
		{"no namespace but version 3", `<metalink version="3.0"><files><file name="f"><resources><url>http://x/f</url></resources></file></files></metalink>`,
			&Document{Version: 3, Files: []File{{Name: "f", Size: -1, URLs: []URL{mirror("http://x/f", "", 100)}}},
				Warnings: []string{"the <metalink> element has no namespace; read as Metalink 3.0"}}},
		{"namespace without the trailing slash", `<metalink xmlns="http://www.metalinker.org"><files><file name="f"><resources><url>http://x/f</url></resources></file></files></metalink>`,
			&Document{Version: 3, Files: []File{{Name: "f", Size: -1, URLs: []URL{mirror("http://x/f", "", 100)}}}}},
		{"file without files, top-level defaults after the files", head + `<file name="f"><resources><url>http://x/f</url></resources></file><language>en</language><os>Linux-x86</os><logo>http://x/logo.png</logo></metalink>`,
			&Document{Version: 3, Files: []File{{Name: "f", Size: -1, Languages: []string{"en"}, OS: []string{"Linux-x86"}, Logo: "http://x/logo.png",
				URLs: []URL{mirror("http://x/f", "", 100)}}}}},
		{"per-mirror and per-file connection limits", head + `<files><file name="f"><resources maxconnections="2"><url maxconnections="1">http://a/</url><url maxconnections="5">http://b/</url><url>http://c/</url><url maxconnections="x">http://d/</url></resources></file><file name="g"><resources><url maxconnections="4">http://e/</url></resources></file></files></metalink>`,
			&Document{Version: 3, Files: []File{
				{Name: "f", Size: -1, MaxConnections: 2, URLs: []URL{
					{URL: "http://a/", Priority: 100, MaxConnections: 1}, {URL: "http://b/", Priority: 100, MaxConnections: 2},
					{URL: "http://c/", Priority: 100, MaxConnections: 2}, {URL: "http://d/", Priority: 100, MaxConnections: 2}}},
				{Name: "g", Size: -1, URLs: []URL{{URL: "http://e/", Priority: 100, MaxConnections: 4}}}},
				Warnings: []string{`file "f" (line 1): the maxconnections "x" of mirror "http://d/" is not a whole number from 1 to 65535; ignored`}}},
		{"connection limits out of range", head + `<files><file name="f"><resources maxconnections="0"><url maxconnections="65536">http://a/</url><url maxconnections="65535">http://b/</url><url maxconnections="-1">http://c/</url><url maxconnections="99999999999999999999">http://d/</url></resources></file><file name="g"><resources maxconnections=" 1e3 "><url>http://e/</url></resources></file></files></metalink>`,
			&Document{Version: 3, Files: []File{
				{Name: "f", Size: -1, URLs: []URL{
					{URL: "http://a/", Priority: 100}, {URL: "http://b/", Priority: 100, MaxConnections: MaxConnLimit},
					{URL: "http://c/", Priority: 100}, {URL: "http://d/", Priority: 100}}},
				{Name: "g", Size: -1, URLs: []URL{{URL: "http://e/", Priority: 100}}}},
				Warnings: []string{
					`file "f" (line 1): the maxconnections "0" of <resources> is not a whole number from 1 to 65535; ignored`,
					`file "f" (line 1): the maxconnections "65536" of mirror "http://a/" is not a whole number from 1 to 65535; ignored`,
					`file "f" (line 1): the maxconnections "-1" of mirror "http://c/" is not a whole number from 1 to 65535; ignored`,
					`file "f" (line 1): the maxconnections "99999999999999999999" of mirror "http://d/" is not a whole number from 1 to 65535; ignored`,
					`file "g" (line 1): the maxconnections "1e3" of <resources> is not a whole number from 1 to 65535; ignored`,
				}}},
		{"torrents by type, by scheme and by suffix", head + `<files><file name="f"><resources><url type="magnet">magnet:?xt=urn:btih:aa</url><url>http://x/f.torrent?dl=1</url><url type="http">http://x/typed.torrent</url><url>magnet:?xt=urn:btih:bb</url></resources></file><file name="g.torrent"><resources><url>http://x/g.torrent</url></resources></file></files></metalink>`,
			&Document{Version: 3, Files: []File{
				{Name: "f", Size: -1, URLs: []URL{mirror("http://x/typed.torrent", "", 100)}, MetaURLs: []MetaURL{
					torrent("magnet:?xt=urn:btih:aa", 100), torrent("http://x/f.torrent?dl=1", 100), torrent("magnet:?xt=urn:btih:bb", 100)}},
				// a .torrent file is downloaded like any other
				{Name: "g.torrent", Size: -1, URLs: []URL{mirror("http://x/g.torrent", "", 100)}}}}},
		{"pieces by number, out of order", head + `<files><file name="f"><size>9</size><verification><pieces type="SHA1" length="4"><hash piece="2">cccccccccccccccccccccccccccccccccccccccc</hash><hash piece="0">AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA</hash><hash piece="1">bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb</hash></pieces></verification><resources><url>http://x/f</url></resources></file></files></metalink>`,
			&Document{Version: 3, Files: []File{{Name: "f", Size: 9, URLs: []URL{mirror("http://x/f", "", 100)},
				Pieces: &Pieces{Type: "sha-1", Length: 4, Hashes: []string{strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)}}}}}},
		{"pieces with a number missing", head + `<files><file name="f"><size>8</size><verification><pieces type="sha1" length="4"><hash piece="0">aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</hash><hash piece="2">bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb</hash></pieces></verification><resources><url>http://x/f</url></resources></file></files></metalink>`,
			&Document{Version: 3, Files: []File{{Name: "f", Size: 8, URLs: []URL{mirror("http://x/f", "", 100)}}},
				Warnings: []string{`file "f" (line 1): the sha-1 piece hashes (line 1) are dropped: the piece numbers are missing, repeated or out of range; the whole-file hash still decides`}}},
		{"pieces with a number repeated", head + `<files><file name="f"><size>8</size><verification><pieces type="sha1" length="4"><hash piece="0">aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</hash><hash piece="0">bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb</hash></pieces></verification><resources><url>http://x/f</url></resources></file></files></metalink>`,
			&Document{Version: 3, Files: []File{{Name: "f", Size: 8, URLs: []URL{mirror("http://x/f", "", 100)}}},
				Warnings: []string{`file "f" (line 1): the sha-1 piece hashes (line 1) are dropped: the piece numbers are missing, repeated or out of range; the whole-file hash still decides`}}},
		{"pieces partly numbered", head + `<files><file name="f"><size>8</size><verification><pieces type="sha1" length="4"><hash piece="0">aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</hash><hash>bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb</hash></pieces></verification><resources><url>http://x/f</url></resources></file></files></metalink>`,
			&Document{Version: 3, Files: []File{{Name: "f", Size: 8, URLs: []URL{mirror("http://x/f", "", 100)}}},
				Warnings: []string{`file "f" (line 1): the sha-1 piece hashes (line 1) are dropped: the piece numbers are missing, repeated or out of range; the whole-file hash still decides`}}},
		{"signature types", head + `<files><file name="f"><verification><signature type="GPG">sig</signature></verification><resources><url>http://x/f</url></resources></file><file name="g"><verification><signature type="x509">sig</signature></verification><resources><url>http://x/g</url></resources></file></files></metalink>`,
			&Document{Version: 3, Files: []File{
				{Name: "f", Size: -1, Signature: &Signature{MediaType: "application/pgp-signature", Value: "sig"}, URLs: []URL{mirror("http://x/f", "", 100)}},
				{Name: "g", Size: -1, Signature: &Signature{MediaType: "x509", Value: "sig"}, URLs: []URL{mirror("http://x/g", "", 100)}}},
				Warnings: []string{`file "g" (line 1): the signature is of type "x509", which Braid cannot check (only application/pgp-signature); the file is judged by its hashes`}}},
		{"hashes named by element", head + `<files><file name="f"><verification><sha1>A9993E364706816ABA3E25717850C26C9CD0D89D</sha1><sha256>ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad</sha256><crc32>352441c2</crc32></verification><resources><url>http://x/f</url></resources></file></files></metalink>`,
			&Document{Version: 3, Files: []File{{Name: "f", Size: -1, URLs: []URL{mirror("http://x/f", "", 100)}, Hashes: []Hash{
				{Type: "sha-1", Value: "a9993e364706816aba3e25717850c26c9cd0d89d"},
				{Type: "sha-256", Value: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}}}}}},
		{"an XML signature in a v3 document", `<metalink version="3.0" xmlns="http://www.metalinker.org/"><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/></Signature><files><file name="f"><resources><url>http://x/f</url></resources></file></files></metalink>`,
			&Document{Version: 3, Files: []File{{Name: "f", Size: -1, URLs: []URL{mirror("http://x/f", "", 100)}}},
				Warnings: []string{"line 1: the document carries an XML signature, which Braid does not verify"}}},
		{"unreadable pubdate", `<metalink version="3.0" xmlns="http://www.metalinker.org/" pubdate="sometime" refreshdate="Tue, 1 Apr 2025 10:00:00 +0200"><files><file name="f"><resources><url>http://x/f</url></resources></file></files></metalink>`,
			&Document{Version: 3, Updated: date("2025-04-01T08:00:00Z"), Files: []File{{Name: "f", Size: -1, URLs: []URL{mirror("http://x/f", "", 100)}}},
				Warnings: []string{`line 1: the pubdate date "sometime" is not a date; ignored`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkDoc(t, parseString(t, tt.doc), tt.want)
		})
	}
}
