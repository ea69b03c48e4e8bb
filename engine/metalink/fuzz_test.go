package metalink

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds Parse every document in testdata/ and mutations of them.
// Parse must not panic, and whatever it accepts must keep the promises the
// model makes to the engine.
func FuzzParse(f *testing.F) {
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(path, string(filepath.Separator)+"fuzz"+string(filepath.Separator)) {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil {
			f.Add(data)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	// Braid's extension namespace, with another prefix, a rebound prefix,
	// an undeclared one, and values at and beyond their bounds.
	f.Add([]byte(`<metalink xmlns="urn:ietf:params:xml:ns:metalink" xmlns:braid="urn:x-braid:metalink">` +
		`<file name="a" braid:maxconnections="2"><braid:license name="GPL" url="http://gnu.org/"/>` +
		`<url priority="1" braid:maxconnections="65535" braid:pref="true" braid:depth="4096">http://a/</url>` +
		`<url braid:maxconnections="65536" braid:pref="yes" braid:depth="-1">http://b/</url></file>` +
		`<file name="b" xmlns:x="urn:x-braid:metalink"><x:license name="MIT"/><url x:pref="1" x:maxconnections="0">http://c/</url>` +
		`<url xmlns:braid="urn:other" braid:pref="true">http://d/</url><url y:depth="3">http://e/</url></file></metalink>`))
	f.Add([]byte(`<metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="a" xmlns:b="urn:x-braid:metalink" b:maxconnections="1">` +
		`<license xmlns="urn:x-braid:metalink" name="x"><name>y</name></license>` +
		`<url b:maxconnections="3" b:depth="1" b:pref="0">http://a/</url><url type="bittorrent" b:pref="true">http://t/a.torrent</url></file></metalink>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Limits{MaxBytes: 1 << 20}.Parse(bytes.NewReader(data))
		if err != nil {
			if doc != nil {
				t.Fatalf("a document along with the error %v", err)
			}
			var se *SyntaxError
			if errors.As(err, &se) {
				if lines := bytes.Count(data, []byte{'\n'}) + 1; se.Line < 1 || se.Line > lines {
					t.Fatalf("error on line %d of a %d-line document: %v", se.Line, lines, err)
				}
				if se.Msg == "" {
					t.Fatalf("a syntax error without a message")
				}
			}
			return
		}
		checkInvariants(t, doc)
		checkRoundTrip(t, doc)
	})
}

// checkRoundTrip asserts Write's promise for a parsed document: either it
// refuses the document as not writable, or Parse reads back what it wrote,
// field by field.
func checkRoundTrip(t *testing.T, doc *Document) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, doc); err != nil {
		if !errors.Is(err, ErrNotWritable) {
			t.Fatalf("Write failed, and not for the document: %v", err)
		}
		return
	}
	back, err := Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("Parse of what Write wrote: %v\n%s", err, buf.String())
	}
	if diffs := writeDiff(back, doc); len(diffs) > 0 {
		t.Fatalf("the document changed through Write and Parse:\n%s\nwritten:\n%s", strings.Join(diffs, "\n"), buf.String())
	}
}

// checkInvariants asserts what every parsed document promises.
func checkInvariants(t *testing.T, doc *Document) {
	t.Helper()
	if doc.Version != 3 && doc.Version != 4 {
		t.Fatalf("version %d", doc.Version)
	}
	if len(doc.Warnings) > maxWarnings+1 {
		t.Fatalf("%d warnings", len(doc.Warnings))
	}
	names := map[string]bool{}
	for _, f := range doc.Files {
		if err := SafeName(f.Name); err != nil {
			t.Fatalf("accepted an unsafe file: %v", err)
		}
		key := strings.ToLower(f.Name)
		if names[key] {
			t.Fatalf("two files called %q", f.Name)
		}
		names[key] = true
		if f.Size < -1 {
			t.Fatalf("%s: size %d", f.Name, f.Size)
		}
		if f.MaxConnections < 0 || f.MaxConnections > MaxConnLimit {
			t.Fatalf("%s: max connections %d", f.Name, f.MaxConnections)
		}
		for i, u := range f.URLs {
			if u.URL == "" || u.Priority < 1 || u.Priority > LowestPriority || (i > 0 && f.URLs[i-1].Priority > u.Priority) {
				t.Fatalf("%s: URL %d %+v out of order or out of range", f.Name, i, u)
			}
			if u.Location != "" && (len(u.Location) != 2 || strings.ToUpper(u.Location) != u.Location) {
				t.Fatalf("%s: location %q", f.Name, u.Location)
			}
			if u.MaxConnections < 0 || u.MaxConnections > MaxConnLimit ||
				(f.MaxConnections > 0 && (u.MaxConnections == 0 || u.MaxConnections > f.MaxConnections)) {
				t.Fatalf("%s: max connections %d of the mirror, %d of the file", f.Name, u.MaxConnections, f.MaxConnections)
			}
			if u.Depth < 0 || u.Depth > MaxMirrorDepth {
				t.Fatalf("%s: depth %d", f.Name, u.Depth)
			}
		}
		for i, m := range f.MetaURLs {
			if m.URL == "" || m.Priority < 1 || m.Priority > LowestPriority || (i > 0 && f.MetaURLs[i-1].Priority > m.Priority) {
				t.Fatalf("%s: MetaURL %d %+v out of order or out of range", f.Name, i, m)
			}
			if m.Name != "" && SafeName(m.Name) != nil {
				t.Fatalf("%s: unsafe metaurl name %q", f.Name, m.Name)
			}
		}
		for _, h := range f.Hashes {
			typ, known := NormalizeHash(h.Type)
			if typ != h.Type || (known && !validHex(h.Type, h.Value)) || h.Value == "" || cleanHex(h.Value) != h.Value {
				t.Fatalf("%s: hash %+v", f.Name, h)
			}
		}
		if p := f.Pieces; p != nil {
			if p.Length <= 0 || len(p.Hashes) == 0 {
				t.Fatalf("%s: pieces of length %d with %d hashes", f.Name, p.Length, len(p.Hashes))
			}
			if f.Size >= 0 && int64(len(p.Hashes)) != (f.Size+p.Length-1)/p.Length {
				t.Fatalf("%s: %d pieces of %d for %d bytes", f.Name, len(p.Hashes), p.Length, f.Size)
			}
			for _, h := range p.Hashes {
				if !validHex(p.Type, h) {
					t.Fatalf("%s: piece hash %q of type %s", f.Name, h, p.Type)
				}
			}
		}
	}
	for _, r := range doc.Rejected {
		if r.Reason == "" {
			t.Fatalf("file %q rejected without a reason", r.Name)
		}
	}
}

// TestCorpusInvariants runs the fuzz invariants over the corpus, so a plain
// go test checks them too.
func TestCorpusInvariants(t *testing.T) {
	files, err := filepath.Glob("testdata/*.meta*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Parse(bytes.NewReader(data))
			if err != nil {
				if errors.Is(err, ErrTruncated) && strings.HasPrefix(filepath.Base(path), "spec-v3-4.1.2.5") {
					return // the spec's own typo, see TestSpecV3MinimalExamples
				}
				t.Fatal(err)
			}
			checkInvariants(t, doc)
		})
	}
}
