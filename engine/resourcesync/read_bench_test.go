package resourcesync

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkParse100000 reads a Resource List of 100,000 entries (each with
// a lastmod, md5 and sha-256, and a length: some 30 MB) and turns them
// into resources, as a sync of such a list does.
func BenchmarkParse100000(b *testing.B) {
	const entries = 100_000
	var doc bytes.Buffer
	doc.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2026-01-02T03:04:05Z"/>
`)
	for i := range entries {
		fmt.Fprintf(&doc, "<url>\n  <loc>http://example.org/d%03d/f%06d.bin</loc>\n  <lastmod>2026-01-02T03:04:05.123456Z</lastmod>\n"+
			"  <rs:md hash=\"md5:%032x sha-256:%064x\"\n    length=\"%d\"/>\n</url>\n", i%100, i, i, i, 512+i)
	}
	doc.WriteString("</urlset>\n")
	base, err := Base("http://example.org/")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(doc.Len()))
	b.ReportAllocs()
	for b.Loop() {
		d, err := Limits{}.ParseBytes(doc.Bytes())
		if err != nil || len(d.Entries) != entries {
			b.Fatalf("%d entries, %v", len(d.Entries), err)
		}
		if rs, refused := Resources(d.Entries, base); len(rs) != entries || len(refused) != 0 {
			b.Fatalf("%d resources, %d refused", len(rs), len(refused))
		}
	}
}
