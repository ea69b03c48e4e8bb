package metalink

import (
	"slices"
	"strings"
	"testing"
)

// TestRelativeURLs: a relative <url> or <metaurl> resolves against where
// the document was read from, else its <origin>; with neither it is
// skipped with a warning, never kept as a mirror that leads nowhere.
func TestRelativeURLs(t *testing.T) {
	const v4 = `<metalink xmlns="urn:ietf:params:xml:ns:metalink">`
	tests := []struct {
		name     string
		location string
		doc      string
		urls     []string
		metas    []string
		warn     []string // each must be among the warnings
	}{
		{"against the location (aria2 base_uri.xml)", "http://base/dir/base_uri.xml",
			v4 + `<file name="example.ext"><url>example.ext</url></file></metalink>`,
			[]string{"http://base/dir/example.ext"}, nil, []string{"1 relative URL resolved against the document's location"}},
		{"against the origin when the location is not known", "",
			v4 + `<file name="f.iso"><url priority="1">../pub/f.iso</url><url priority="2">http://abs.example/f.iso</url></file><origin>https://o.example/meta/f.meta4</origin></metalink>`,
			[]string{"https://o.example/pub/f.iso", "http://abs.example/f.iso"}, nil, nil},
		{"the location goes before the origin", "ftp://ftp.example/x/doc.meta4",
			v4 + `<origin>https://o.example/meta/f.meta4</origin><file name="f"><url>/f</url><metaurl mediatype="torrent">f.torrent</metaurl></file></metalink>`,
			[]string{"ftp://ftp.example/f"}, []string{"ftp://ftp.example/x/f.torrent"}, nil},
		{"scheme-relative", "https://base.example/d/doc.meta4",
			v4 + `<file name="f"><url>//cdn.example/f</url></file></metalink>`,
			[]string{"https://cdn.example/f"}, nil, nil},
		{"credentials of the location are not copied", "http://alice:SECRET@base.example/d/doc.meta4",
			v4 + `<file name="f"><url>f</url></file></metalink>`,
			[]string{"http://base.example/d/f"}, nil, nil},
		{"no base: skipped with a warning", "",
			v4 + `<file name="f"><url>f</url><url>http://x/f</url><metaurl mediatype="torrent">f.torrent</metaurl></file></metalink>`,
			[]string{"http://x/f"}, nil, []string{
				`the mirror "f" is a relative URL and the document's location is not known; skipped`,
				`the metadata URL "f.torrent" is relative and the document's location is not known; skipped`}},
		{"a local path is no base", "/home/u/doc.meta4",
			v4 + `<file name="f"><url>f</url></file></metalink>`,
			nil, nil, []string{`the mirror "f" is a relative URL and the document's location is not known; skipped`,
				"no mirror or metadata URL to download it from"}},
		{"Metalink 3 too", "http://base/dir/doc.metalink",
			`<metalink version="3.0" xmlns="http://www.metalinker.org/"><files><file name="f"><resources><url type="http">f</url><url>f.torrent</url></resources></file></files></metalink>`,
			[]string{"http://base/dir/f"}, []string{"http://base/dir/f.torrent"}, nil},
		{"absolute and magnet stay as written", "http://base/dir/doc.meta4",
			v4 + `<file name="f"><url>ftp://x/f</url><url>magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567</url></file></metalink>`,
			[]string{"ftp://x/f"}, []string{"magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseAt(strings.NewReader(tc.doc), tc.location)
			if err != nil {
				t.Fatal(err)
			}
			f := d.Files[0]
			var urls, metas []string
			for _, u := range f.URLs {
				urls = append(urls, u.URL)
			}
			for _, m := range f.MetaURLs {
				metas = append(metas, m.URL)
			}
			if !slices.Equal(urls, tc.urls) || !slices.Equal(metas, tc.metas) {
				t.Errorf("urls %q metaurls %q, want %q %q", urls, metas, tc.urls, tc.metas)
			}
			for _, w := range tc.warn {
				if !slices.ContainsFunc(d.Warnings, func(s string) bool { return strings.Contains(s, w) }) {
					t.Errorf("no warning %q in %q", w, d.Warnings)
				}
			}
			if strings.Contains(strings.Join(d.Warnings, "\n"), "SECRET") {
				t.Errorf("a warning shows the location's password: %q", d.Warnings)
			}
		})
	}
}
