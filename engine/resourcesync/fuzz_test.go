package resourcesync

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"braid/engine/metalink"
)

// FuzzParse feeds Parse hostile documents, seeded from testdata: it must
// never panic, and whatever it accepts must turn into resources whose
// names are safe to write.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.xml")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<urlset><url><loc>http://example.com/../x</loc></url></urlset>`))
	base, _ := url.Parse("http://example.com/")
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Limits{MaxBytes: 1 << 20, MaxEntries: 1000}.Parse(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, e := range d.Entries {
			if e.Loc == "" || e.Length < -1 {
				t.Fatalf("entry %+v", e)
			}
		}
		rs, _ := Resources(d.Entries, base)
		for _, r := range rs {
			if err := metalink.SafeName(r.File.Name); err != nil {
				t.Fatalf("unsafe name %q accepted: %v", r.File.Name, err)
			}
		}
	})
}
