package metalink

import (
	"bytes"
	"strings"
	"testing"
)

// TestBraidExtCorpus reads testdata/braid-ext.meta4, Braid's own Metalink
// 4 with its extension namespace, into the full model.
func TestBraidExtCorpus(t *testing.T) {
	want := &Document{
		Version: 4, Generator: "Braid/1.0",
		Files: []File{{
			Name: "kernel.tar.bz2", Size: 14471447, MaxConnections: 2,
			Publisher: Party{Name: "Example"},
			License:   Party{Name: "GPL", URL: "http://www.gnu.org/copyleft/gpl.html"},
			Hashes:    []Hash{{Type: "sha-256", Value: sha256a}},
			URLs: []URL{
				{URL: "ftp://ftp.example.com/kernel.tar.bz2", Location: "UK", Priority: 1, MaxConnections: 2},
				{URL: "http://www.example.com/kernel.tar.bz2", Location: "JP", Priority: 100, MaxConnections: 1},
				{URL: "http://mirror.example.org/kernel.tar.bz2", Priority: 100, MaxConnections: 2},
			},
		}, {
			Name: "example.ext", Size: 14471447,
			URLs: []URL{
				{URL: "http://www2.example.com/example.ext", Priority: 1, Pref: true},
				{URL: "ftp://ftp.example.com/example.ext", Location: "GB", Priority: 2, Depth: 1},
				{URL: "http://example.com/dir1/dir2/dir3/dir4/example.ext", Priority: 3, Pref: true, Depth: 4},
			},
		}, {
			Name:    "prefixes.bin",
			Size:    -1,
			License: Party{Name: "MIT"},
			URLs: []URL{
				{URL: "http://a.example/prefixes.bin", Priority: LowestPriority, MaxConnections: 3, Pref: true},
				{URL: "http://b.example/prefixes.bin", Priority: LowestPriority},
			},
		}},
	}
	checkDoc(t, parseTestdata(t, "braid-ext.meta4"), want)
}

// TestV4Extension: what Write keeps in ExtNamespace is read back from that
// namespace only, and values that are not numbers or out of range are
// dropped with a warning, never an error.
func TestV4Extension(t *testing.T) {
	const head = `<metalink xmlns="urn:ietf:params:xml:ns:metalink" xmlns:braid="urn:x-braid:metalink">`
	tests := []struct {
		name string
		doc  string
		want *Document
	}{
		{"every value", head + `<file name="f" braid:maxconnections="4"><braid:license name="GPL" url="http://gnu.org/"/>` +
			`<url priority="1" braid:maxconnections="2" braid:pref="true" braid:depth="3">http://a/</url>` +
			`<url priority="2" braid:pref="1" braid:depth="0">http://b/</url>` +
			`<url priority="3" braid:pref="false" braid:maxconnections="4">http://c/</url>` +
			`<url priority="4" braid:pref=" 0 " braid:depth="4096">http://d/</url></file></metalink>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: -1, MaxConnections: 4,
				License: Party{Name: "GPL", URL: "http://gnu.org/"},
				URLs: []URL{
					{URL: "http://a/", Priority: 1, MaxConnections: 2, Pref: true, Depth: 3},
					{URL: "http://b/", Priority: 2, MaxConnections: 4, Pref: true},
					{URL: "http://c/", Priority: 3, MaxConnections: 4},
					{URL: "http://d/", Priority: 4, MaxConnections: 4, Depth: MaxMirrorDepth},
				}}}}},
		{"the file's limit caps its mirrors'", head + `<file name="f" braid:maxconnections="2">` +
			`<url braid:maxconnections="5">http://a/</url><url braid:maxconnections="1">http://b/</url><url>http://c/</url>` +
			`<metaurl mediatype="torrent" braid:maxconnections="9">http://t/</metaurl></file>` +
			`<file name="g"><url braid:maxconnections="5">http://d/</url></file></metalink>`,
			&Document{Version: 4, Files: []File{
				{Name: "f", Size: -1, MaxConnections: 2, URLs: []URL{
					{URL: "http://a/", Priority: LowestPriority, MaxConnections: 2},
					{URL: "http://b/", Priority: LowestPriority, MaxConnections: 1},
					{URL: "http://c/", Priority: LowestPriority, MaxConnections: 2},
				}, MetaURLs: []MetaURL{torrent("http://t/", LowestPriority)}},
				{Name: "g", Size: -1, URLs: []URL{{URL: "http://d/", Priority: LowestPriority, MaxConnections: 5}}},
			}}},
		{"any prefix, only the namespace", `<metalink xmlns="urn:ietf:params:xml:ns:metalink" xmlns:x="urn:x-braid:metalink" xmlns:braid="urn:x-braid:metalink2">` +
			`<file name="f" braid:maxconnections="1"><braid:license name="Not ours"/><license name="Not RFC 5854"/>` +
			`<x:license name="MIT"/><url x:pref="true" braid:depth="2" maxconnections="1" pref="true" depth="2">http://a/</url>` +
			`<url nobody:pref="true" xmlns:nobody="urn:x-braid:metalink:v2">http://b/</url></file></metalink>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: -1, License: Party{Name: "MIT"}, URLs: []URL{
				{URL: "http://a/", Priority: LowestPriority, Pref: true},
				{URL: "http://b/", Priority: LowestPriority},
			}}}}},
		{"the first licence counts", head + `<file name="f"><braid:license name="A"/><braid:license name="B" url="http://b/"/><url>http://a/</url></file></metalink>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: -1, License: Party{Name: "A"},
				URLs: []URL{{URL: "http://a/", Priority: LowestPriority}}}}}},
		{"unreadable values", head + `<file name="f" braid:maxconnections="many">` +
			`<url braid:maxconnections="0" braid:pref="yes" braid:depth="-1">http://a/</url>` +
			`<url braid:maxconnections="65536" braid:pref="" braid:depth="4097">http://b/</url>` +
			`<url braid:maxconnections="99999999999999999999" braid:pref="TRUE" braid:depth="1.5">http://c/</url>` +
			`<url braid:maxconnections="" braid:depth="">http://d/</url></file></metalink>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: -1, URLs: []URL{
				{URL: "http://a/", Priority: LowestPriority},
				{URL: "http://b/", Priority: LowestPriority},
				{URL: "http://c/", Priority: LowestPriority},
				{URL: "http://d/", Priority: LowestPriority},
			}}}, Warnings: []string{
				`file "f" (line 1): the braid:maxconnections "many" of the file is not a whole number from 1 to 65535; ignored`,
				`file "f" (line 1): the braid:maxconnections "0" of mirror "http://a/" is not a whole number from 1 to 65535; ignored`,
				`file "f" (line 1): the braid:pref "yes" of mirror "http://a/" is not true or false; ignored`,
				`file "f" (line 1): the braid:depth "-1" of mirror "http://a/" is not a whole number from 0 to 4096; ignored`,
				`file "f" (line 1): the braid:maxconnections "65536" of mirror "http://b/" is not a whole number from 1 to 65535; ignored`,
				`file "f" (line 1): the braid:pref "" of mirror "http://b/" is not true or false; ignored`,
				`file "f" (line 1): the braid:depth "4097" of mirror "http://b/" is not a whole number from 0 to 4096; ignored`,
				`file "f" (line 1): the braid:maxconnections "99999999999999999999" of mirror "http://c/" is not a whole number from 1 to 65535; ignored`,
				`file "f" (line 1): the braid:pref "TRUE" of mirror "http://c/" is not true or false; ignored`,
				`file "f" (line 1): the braid:depth "1.5" of mirror "http://c/" is not a whole number from 0 to 4096; ignored`,
				`file "f" (line 1): the braid:maxconnections "" of mirror "http://d/" is not a whole number from 1 to 65535; ignored`,
				`file "f" (line 1): the braid:depth "" of mirror "http://d/" is not a whole number from 0 to 4096; ignored`,
			}}},
		{"a torrent keeps only its priority", head + `<file name="f"><url type="bittorrent" priority="2" braid:maxconnections="3" braid:pref="true" braid:depth="1">http://t/f.torrent</url>` +
			`<url braid:pref="true">magnet:?xt=urn:btih:aa</url></file></metalink>`,
			&Document{Version: 4, Files: []File{{Name: "f", Size: -1, MetaURLs: []MetaURL{
				torrent("http://t/f.torrent", 2), torrent("magnet:?xt=urn:btih:aa", LowestPriority)}}}}},
		{"Metalink 3 has no extension", `<metalink version="3.0" xmlns="http://www.metalinker.org/" xmlns:braid="urn:x-braid:metalink">` +
			`<files><file name="f" braid:maxconnections="1"><braid:license name="GPL"/><resources><url braid:pref="true" braid:depth="1" braid:maxconnections="1">http://a/</url></resources></file></files></metalink>`,
			&Document{Version: 3, Files: []File{{Name: "f", Size: -1, URLs: []URL{mirror("http://a/", "", 100)}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkDoc(t, parseString(t, tt.doc), tt.want)
		})
	}
}

// TestV4ExtensionWarningsBounded: a document with a bad value on every
// mirror earns no more warnings than any other.
func TestV4ExtensionWarningsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<metalink xmlns="urn:ietf:params:xml:ns:metalink" xmlns:braid="urn:x-braid:metalink"><file name="f">`)
	for range 5000 {
		b.WriteString(`<url braid:maxconnections="x" braid:pref="x" braid:depth="x">http://a/</url>`)
	}
	b.WriteString(`</file></metalink>`)
	doc, err := Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Files) != 1 || len(doc.Files[0].URLs) != 5000 {
		t.Fatalf("read %d files, want 1 with 5000 mirrors", len(doc.Files))
	}
	if n := len(doc.Warnings); n != maxWarnings+1 || !strings.HasPrefix(doc.Warnings[n-1], "... and 14900 more warnings") {
		t.Errorf("%d warnings, the last %q; want %d and a count of the 14900 dropped", n, doc.Warnings[n-1], maxWarnings+1)
	}
}

// TestWriteRoundTripV3: a Metalink 3 document's licences (its own and
// inherited from the top level) and connection limits (the file's and
// each mirror's) survive Write and Parse.
func TestWriteRoundTripV3(t *testing.T) {
	const v3 = `<?xml version="1.0" encoding="UTF-8"?>
<metalink version="3.0" xmlns="http://www.metalinker.org/">
<license><name>GPL</name><url>http://www.gnu.org/copyleft/gpl.html</url></license>
<files>
<file name="a.iso"><resources maxconnections="2">
<url type="http" location="de" preference="90" maxconnections="1">http://a.example/a.iso</url>
<url type="ftp" preference="100" maxconnections="4">ftp://b.example/a.iso</url>
<url type="http">http://c.example/a.iso</url>
</resources></file>
<file name="b.txt"><license><name>CC-BY-4.0</name></license><resources>
<url maxconnections="3">http://a.example/b.txt</url>
<url>http://b.example/b.txt</url>
</resources></file>
</files></metalink>`
	want := &Document{Version: 3, Files: []File{{
		Name: "a.iso", Size: -1, MaxConnections: 2,
		License: Party{Name: "GPL", URL: "http://www.gnu.org/copyleft/gpl.html"},
		URLs: []URL{
			{URL: "ftp://b.example/a.iso", Priority: 1, MaxConnections: 2},
			{URL: "http://a.example/a.iso", Location: "DE", Priority: 11, MaxConnections: 1},
			{URL: "http://c.example/a.iso", Priority: 100, MaxConnections: 2},
		},
	}, {
		Name: "b.txt", Size: -1, License: Party{Name: "CC-BY-4.0"},
		URLs: []URL{
			{URL: "http://a.example/b.txt", Priority: 100, MaxConnections: 3},
			{URL: "http://b.example/b.txt", Priority: 100},
		},
	}}}
	first := parseString(t, v3)
	checkDoc(t, first, want)
	back, out := writeRoundTrip(t, first)
	want.Version = 4
	checkDoc(t, back, want)
	if t.Failed() {
		t.Logf("written:\n%s", out)
	}
}

// TestWriteCapsMirrorLimits: a document built in code with a mirror's
// connection limit above its file's, or without one, reads back as Parse
// reads every document: capped at the file's.
func TestWriteCapsMirrorLimits(t *testing.T) {
	d := &Document{Files: []File{{Name: "f", Size: -1, MaxConnections: 2, URLs: []URL{
		{URL: "http://a/", Priority: 1, MaxConnections: 8},
		{URL: "http://b/", Priority: 2},
		{URL: "http://c/", Priority: 3, MaxConnections: 1},
	}}}}
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	back := parseString(t, buf.String())
	checkDoc(t, back, &Document{Version: 4, Files: []File{{Name: "f", Size: -1, MaxConnections: 2, URLs: []URL{
		{URL: "http://a/", Priority: 1, MaxConnections: 2},
		{URL: "http://b/", Priority: 2, MaxConnections: 2},
		{URL: "http://c/", Priority: 3, MaxConnections: 1},
	}}}})
	if d.Files[0].URLs[0].MaxConnections != 8 || d.Files[0].URLs[1].MaxConnections != 0 {
		t.Errorf("Write changed the document's limits: %+v", d.Files[0].URLs)
	}
}
