package metalink

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// largeDocument generates a Metalink 4 document of files files, each with
// a size, a sha-256 hash and mirrors mirrors in the shape MirrorBrain
// writes (location, priority, long paths).
func largeDocument(files, mirrors int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<metalink xmlns="urn:ietf:params:xml:ns:metalink">` + "\n" +
		"  <generator>MirrorBrain/2.19.0</generator>\n" +
		`  <origin dynamic="true">http://download.example.org/tree.meta4</origin>` + "\n" +
		"  <published>2025-11-22T16:53:00Z</published>\n")
	countries := []string{"de", "nl", "us", "cz", "fr", "se", "jp", "br", "za", "au"}
	for i := range files {
		name := fmt.Sprintf("distribution/leap/15.6/repo/oss/x86_64/package-%05d-1.2.3-150600.1.1.x86_64.rpm", i)
		fmt.Fprintf(&b, "  <file name=\"%s\">\n    <size>%d</size>\n    <hash type=\"sha-256\">%x</hash>\n",
			name, 100000+i, sha256.Sum256([]byte(name)))
		for m := range mirrors {
			fmt.Fprintf(&b, "    <url location=\"%s\" priority=\"%d\">https://mirror%02d.example.net/opensuse/%s</url>\n",
				countries[m%len(countries)], m+1, m, name)
		}
		b.WriteString("  </file>\n")
	}
	b.WriteString("</metalink>\n")
	return b.Bytes()
}

// BenchmarkParseLarge parses a 10,000-file, 100,000-mirror document.
func BenchmarkParseLarge(b *testing.B) {
	data := largeDocument(10000, 10)
	doc, err := Parse(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	if len(doc.Files) != 10000 || len(doc.Files[9999].URLs) != 10 || len(doc.Warnings) != 0 {
		b.Fatalf("%d files, %d warnings", len(doc.Files), len(doc.Warnings))
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data))/(1<<20), "MiB/doc")
}

// BenchmarkParseHostile parses documents shaped to make a careless parser
// slow: the time per document should stay in proportion to its size.
func BenchmarkParseHostile(b *testing.B) {
	const target = 4 << 20
	const head = `<metalink xmlns="urn:ietf:params:xml:ns:metalink">`
	fill := func(unit func(i int) string) []byte {
		var buf bytes.Buffer
		buf.WriteString(head)
		for i := 0; buf.Len() < target; i++ {
			buf.WriteString(unit(i))
		}
		buf.WriteString("</metalink>")
		return buf.Bytes()
	}
	deepName := strings.Repeat("d/", 2000)
	nsDecls := ""
	for i := range maxBindings - 1 {
		nsDecls += fmt.Sprintf(` xmlns:p%d="urn:x:%d"`, i, i)
	}
	docs := []struct {
		name string
		data []byte
	}{
		{"deep names", fill(func(i int) string {
			return fmt.Sprintf(`<file name="%s%d"><url>http://x/</url></file>`, deepName, i)
		})},
		{"many hashes", fill(func(i int) string {
			return fmt.Sprintf(`<file name="f%d">`+strings.Repeat(`<hash type="x">ab</hash>`, 2000)+`</file>`, i)
		})},
		{"many namespaces", []byte(head + `<file name="f"` + nsDecls + `>` +
			strings.Repeat(`<p0:x/><url>http://x/</url>`, target/30) + `</file></metalink>`)},
		{"unnamed files", fill(func(int) string { return `<file><url>http://example.com/x</url></file>` })}, // under MaxFiles
		{"deep elements", fill(func(int) string {
			return `<file name="f">` + strings.Repeat("<a>", 30) + strings.Repeat("</a>", 30) + `</file>`
		})},
	}
	for _, d := range docs {
		b.Run(d.name, func(b *testing.B) {
			if _, err := Parse(bytes.NewReader(d.data)); err != nil && !errors.Is(err, ErrNoFiles) {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(d.data)))
			b.ReportAllocs()
			for b.Loop() {
				Parse(bytes.NewReader(d.data))
			}
		})
	}
}
