package metalink_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/peercorpus"
	"braid/engine/signature"
)

// The peer corpus is other projects' own Metalink test documents (aria2,
// libmetalink, librepo for Fedora's MirrorManager, curl, wget2,
// pymetalink with a real MirrorBrain document), collected with their
// origins in MANIFEST.tsv beside the repository (../shared/peer-corpus
// from its root). It is not copied into the repository: the test finds it
// there, or where BRAID_PEER_CORPUS says, and skips when it is absent.
//
// Every document of the manifest has a row below that cites the peer's
// test that uses it and holds Braid to what that test asserts. Where
// Braid deliberately differs, the row says so in differs, argued from the
// RFC; the check then asserts Braid's own answer, so neither can drift
// unnoticed.

// peerCase is what Braid must make of one corpus document.
type peerCase struct {
	// cite names the peer project's test that uses the document and what
	// it asserts.
	cite string
	// location is where the peer's test says the document was read from
	// (aria2's base URI); "" for none.
	location string
	// fail: the peer's test expects the document to be refused; Braid must
	// refuse it with an error that says why (wrapping want when set).
	fail bool
	want error
	// check asserts the rest on a parsed document.
	check func(t *testing.T, d *metalink.Document)
	// differs says where Braid deliberately differs from the peer, and why.
	differs string
}

// Small accessors, so the rows read like the peers' assertions.

func file(t *testing.T, d *metalink.Document, name string) metalink.File {
	t.Helper()
	for _, f := range d.Files {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no file %q among %q", name, names(d))
	return metalink.File{}
}

func names(d *metalink.Document) []string {
	var out []string
	for _, f := range d.Files {
		out = append(out, f.Name)
	}
	return out
}

func rejected(d *metalink.Document) []string {
	var out []string
	for _, r := range d.Rejected {
		out = append(out, r.Name)
	}
	return out
}

func urls(f metalink.File) []string {
	var out []string
	for _, u := range f.URLs {
		out = append(out, u.URL)
	}
	return out
}

func metaURLs(f metalink.File) []string {
	var out []string
	for _, u := range f.MetaURLs {
		out = append(out, u.URL)
	}
	return out
}

func hash(f metalink.File, typ string) string {
	for _, h := range f.Hashes {
		if h.Type == typ {
			return h.Value
		}
	}
	return ""
}

func warned(d *metalink.Document, part string) bool {
	return slices.ContainsFunc(d.Warnings, func(w string) bool { return strings.Contains(w, part) })
}

func expect(t *testing.T, what string, got, want any) {
	t.Helper()
	if !equalAny(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func equalAny(a, b any) bool {
	switch x := a.(type) {
	case []string:
		y, ok := b.([]string)
		return ok && slices.Equal(x, y)
	}
	return a == b
}

// Expected values repeated across rows.
const (
	curlSHA1    = "96fbe5abe8ecfb923e4ab0a579b3d6be43ef0e96" // pymetalink FILELIST
	curlSize    = 3494481
	curlTarball = "curl-7.46.0.tar.bz2"
)

// pymetalinkCase holds a pymetalink console test's document to what its
// run_test asserts of the download: the file, its size and its SHA-1
// (FILELIST), or a failure for names with "fail". Downloading needs the
// original curl-7.46.0 tarball and the internet, neither of which a test
// may use; what can be held at the document is that Braid reads the
// same file, size and hashes, so the engine's verification decides as
// pymetalink's does.
func pymetalinkCase(name string, check func(t *testing.T, d *metalink.Document)) peerCase {
	return peerCase{
		cite:  "pymetalink tests/test_console.py::test_" + strings.TrimSuffix(name, ".meta4") + " (run_test)",
		check: check,
	}
}

// goodCurl: the document leads to curl-7.46.0.tar.bz2 of the right size,
// checked by the SHA-1 pymetalink compares (or by no hash at all).
func goodCurl(fileName string, withHash bool) func(t *testing.T, d *metalink.Document) {
	return func(t *testing.T, d *metalink.Document) {
		f := file(t, d, fileName)
		if f.Size != -1 {
			expect(t, "size", f.Size, int64(curlSize))
		}
		if withHash {
			if h := hash(f, "sha-1"); h != "" {
				expect(t, "sha-1", h, curlSHA1)
			} else if len(f.Hashes) == 0 {
				t.Errorf("no hash kept: %v", f.Hashes)
			}
		} else if len(f.Hashes) != 0 {
			t.Errorf("hashes %v in a document without checksums", f.Hashes)
		}
	}
}

// badCurl: every whole-file hash Braid would check disagrees with the real
// tarball (they all start with ffff), so the download fails verification,
// as pymetalink's "fail" tests expect.
func badCurl(t *testing.T, d *metalink.Document) {
	f := file(t, d, curlTarball)
	if len(f.Hashes) == 0 {
		t.Fatal("no hash left: the bad file would pass unverified")
	}
	for _, h := range f.Hashes {
		if !strings.HasPrefix(h.Value, "ffff") {
			t.Errorf("hash %s %s is the good one; pymetalink expects this document to fail", h.Type, h.Value)
		}
	}
}

// badPieces: the piece hashes at the given indexes are wrong (they start
// with ffff), the others and the whole-file SHA-1 right, so a download
// re-fetches those pieces and the whole-file hash decides.
func badPieces(bad ...int) func(t *testing.T, d *metalink.Document) {
	return func(t *testing.T, d *metalink.Document) {
		goodCurl(curlTarball, true)(t, d)
		p := file(t, d, curlTarball).Pieces
		if p == nil || len(p.Hashes) != 14 {
			t.Fatalf("pieces %+v, want 14", p)
		}
		for i, h := range p.Hashes {
			if strings.HasPrefix(h, "ffff") != slices.Contains(bad, i) {
				t.Errorf("piece %d hash %s; bad ones are %v", i, h, bad)
			}
		}
	}
}

// onlyED2K: the only source is an ed2k link, which Braid keeps as a URL
// it cannot fetch (DESIGN: unknown schemes are skipped by the engine).
func onlyED2K(t *testing.T, d *metalink.Document) {
	f := file(t, d, curlTarball)
	if len(f.URLs) != 1 || !strings.HasPrefix(f.URLs[0].URL, "ed2k://") || len(f.MetaURLs) != 0 {
		t.Errorf("urls %q metaurls %q, want the one ed2k link", urls(f), metaURLs(f))
	}
}

const ed2kDiffers = "pymetalink's non-\"fail\" p2p test expects a download over ed2k; Braid does not speak ed2k " +
	"(RFC 5854 requires no transport; §4.2.16 only that processors filter bad files by hash), so this document " +
	"has no source Braid can use and its download fails with that said, instead of succeeding"

// peerCases are the rows, by the document's path in the corpus.
var peerCases = map[string]peerCase{
	// aria2: test/MetalinkProcessorTest.cc and its neighbours.
	"metalink/aria2/metalink4.xml": {
		cite: "aria2 MetalinkProcessorTest::testParseFileV4: one file example.ext, 786430 bytes, sha-1 0beec7b5…, " +
			"sha-256 pieces of 262144 (3), signature application/pgp-signature \"a signature\", " +
			"ftp mirror in de at priority 1, a torrent metaurl at priority 2",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "files", names(d), []string{"example.ext"})
			f := d.Files[0]
			expect(t, "size", f.Size, int64(786430))
			expect(t, "sha-1", hash(f, "sha-1"), "0beec7b5ea3f0fdbc95d0dd47f3c5bc275da8a33")
			if f.Pieces == nil || f.Pieces.Type != "sha-256" || f.Pieces.Length != 262144 || len(f.Pieces.Hashes) != 3 ||
				f.Pieces.Hashes[0] != "0245178074fd042e19b7c3885b360fc21064b30e73f5626c7e3b005d048069c5" {
				t.Errorf("pieces %+v, want aria2's sha-256 set", f.Pieces)
			}
			if f.Signature == nil || f.Signature.MediaType != "application/pgp-signature" || f.Signature.Value != "a signature" {
				t.Errorf("signature %+v", f.Signature)
			}
			u := f.URLs[0]
			expect(t, "first mirror", u.URL, "ftp://ftp.example.com/example.ext")
			expect(t, "its location", u.Location, "DE") // ISO 3166 codes are case-insensitive; Braid upper-cases
			expect(t, "its priority", u.Priority, 1)
			if len(f.MetaURLs) != 1 || f.MetaURLs[0].MediaType != "torrent" || f.MetaURLs[0].Priority != 2 {
				t.Errorf("metaurls %+v", f.MetaURLs)
			}
		},
	},
	"metalink/aria2/test.xml": {
		cite: "aria2 MetalinkProcessorTest::testParseFile: aria2-0.5.2 (0.5.2, en-US, Linux-x86, 1 connection, sha-1 a96cf3f0…, " +
			"a pgp signature; ftp in jp and http in us both first), aria2-0.5.1 (345689 bytes, ja-JP, Linux-m68k, 2 sha-1 pieces " +
			"of 262144, no signature), NoVerificationHash with no hash, UnsupportedVerificationHashTypeIncluded checked by sha-1",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "aria2-0.5.2.tar.bz2")
			expect(t, "version", f.Version, "0.5.2")
			expect(t, "languages", f.Languages, []string{"en-US"})
			expect(t, "os", f.OS, []string{"Linux-x86"})
			expect(t, "max connections", f.MaxConnections, 1)
			expect(t, "sha-1", hash(f, "sha-1"), "a96cf3f0266b91d87d5124cf94326422800b627d")
			if f.Signature == nil || !strings.Contains(f.Signature.Value, "BEGIN PGP SIGNATURE") {
				t.Errorf("signature %+v", f.Signature)
			}
			expect(t, "mirrors", urls(f), []string{"ftp://ftphost/aria2-0.5.2.tar.bz2", "http://httphost/aria2-0.5.2.tar.bz2"})
			for _, u := range f.URLs {
				expect(t, u.URL+" priority", u.Priority, 1)
			}
			expect(t, "ftp location", f.URLs[0].Location, "JP")
			g := file(t, d, "aria2-0.5.1.tar.bz2")
			expect(t, "size", g.Size, int64(345689))
			expect(t, "languages", g.Languages, []string{"ja-JP"})
			expect(t, "os", g.OS, []string{"Linux-m68k"})
			if g.Pieces == nil || len(g.Pieces.Hashes) != 2 || g.Pieces.Length != 262144 || g.Pieces.Hashes[0] != "179463a88d79cbf0b1923991708aead914f26142" {
				t.Errorf("pieces %+v", g.Pieces)
			}
			if g.Signature != nil {
				t.Errorf("signature %+v, want none", g.Signature)
			}
			if h := file(t, d, "NoVerificationHash"); len(h.Hashes) != 0 || h.Pieces != nil {
				t.Errorf("NoVerificationHash has %v %v", h.Hashes, h.Pieces)
			}
			expect(t, "sha-1 of the unsupported-type file", hash(file(t, d, "UnsupportedVerificationHashTypeIncluded"), "sha-1"),
				"4c255b0ed130f5ea880f0aa061c3da0487e251cc")
		},
		differs: "aria2 gives the http mirror no connection limit (-1); Braid caps it at 1, because Metalink 3's " +
			"<resources maxconnections=\"1\"> limits all mirrors of the file together (it turns off segmented downloading), " +
			"so no single mirror may exceed it",
	},
	"metalink/aria2/metalink3-dirtraversal.xml": {
		cite: "aria2 MetalinkProcessorTest::testParseFile_dirtraversal: only aria2-0.5.3.tar.bz2 is kept, with its signature",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "files", names(d), []string{"aria2-0.5.3.tar.bz2"})
			expect(t, "rejected", rejected(d), []string{"../aria2-0.5.2.tar.bz2"})
			if d.Files[0].Signature == nil {
				t.Error("the signature is lost")
			}
		},
	},
	"metalink/aria2/metalink4-dosdirtraversal.xml": {
		cite: "aria2 Metalink2RequestGroupTest::testGenerate_dosDirTraversal: on Windows the three files stay inside the " +
			"download folder (aria2 escapes the backslashes to %5C)",
		check: func(t *testing.T, d *metalink.Document) {
			if len(d.Files) != 0 {
				t.Errorf("files %q were accepted", names(d))
			}
			expect(t, "rejected", rejected(d), []string{`..\..\example.ext`, `..\..\file1.ext`, `..\..\file2.ext`})
		},
		differs: "both keep every write inside the download folder; aria2 renames (..%5C..%5Cexample.ext), Braid refuses " +
			"the names with a reason, because RFC 5854 §4.1.2.1 says the path MUST NOT contain directory traversal and " +
			"a name that means traversal on Windows is one",
	},
	"metalink/aria2/metalink4-groupbymetaurl.xml": {
		cite: "aria2 Metalink2RequestGroupTest::testGenerate_groupByMetaurl: file1 and file3 share the torrent http://torrent " +
			"(one group), file2 alone with http://file2p1",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "files", names(d), []string{"file1", "file2", "file3"})
			for _, n := range []string{"file1", "file3"} {
				f := file(t, d, n)
				if len(f.MetaURLs) != 1 || f.MetaURLs[0].URL != "http://torrent" || f.MetaURLs[0].Name != n {
					t.Errorf("%s metaurls %+v", n, f.MetaURLs)
				}
			}
			f2 := file(t, d, "file2")
			expect(t, "file2 mirrors", urls(f2), []string{"http://file2p1"})
			expect(t, "file2 metaurls", len(f2.MetaURLs), 0)
		},
	},
	"metalink/aria2/serialize_session.meta4": {
		cite: "aria2 SessionSerializerTest::testSave: the document becomes downloads (two files, t/README and t/image.iso)",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "files", names(d), []string{"t/README", "t/image.iso"})
			expect(t, "README mirrors", urls(file(t, d, "t/README")), []string{"http://example.org/README"})
		},
	},
	"metalink/aria2/2files.metalink": {
		cite: "aria2 RpcMethodTest::testAddMetalink: aria2.addMetalink of this document adds 2 downloads",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "files", names(d), []string{"aria2-5.0.0.tar.bz2", "aria2-5.0.0.deb"})
		},
	},
	"metalink/aria2/base_uri.xml": {
		cite:     "aria2 MetalinkPostDownloadHandlerTest::testGetNextRequestGroups_withBaseUri: read from http://base/dir/base_uri.xml, the relative <url>example.ext</url> is http://base/dir/example.ext",
		location: "http://base/dir/base_uri.xml",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "mirrors", urls(file(t, d, "example.ext")), []string{"http://base/dir/example.ext"})
		},
	},
	"metalink/aria2/local-metaurl.meta4": {
		cite: "aria2 Metalink2RequestGroupTest::testGenerate_with_local_metaurl: the relative metaurl cannot be used without " +
			"a base URI, and the file still downloads from http://example.org/README",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "t/README")
			expect(t, "mirrors", urls(f), []string{"http://example.org/README"})
			expect(t, "metaurls", len(f.MetaURLs), 0)
			if !warned(d, `the metadata URL "README.torrent" is relative`) {
				t.Errorf("no warning about the skipped metaurl: %q", d.Warnings)
			}
		},
	},

	// aria2's inline templates (MetalinkProcessorTest::testParseFileV4_attrs and neighbours).
	"metalink/aria2-inline/name-foo.meta4": {
		cite:  "aria2 MetalinkProcessorTest::testParseFileV4_attrs (file@name foo): one entry",
		check: func(t *testing.T, d *metalink.Document) { expect(t, "files", names(d), []string{"foo"}) },
	},
	"metalink/aria2-inline/name-empty.meta4": {
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (file@name empty): an exception, no download",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "files", len(d.Files), 0)
			expect(t, "rejected", len(d.Rejected), 1)
		},
		differs: "aria2 throws for the document; Braid refuses the nameless file with a reason and would keep any other file " +
			"of the document (DESIGN: the other files of a document still work). With this one file, both download nothing",
	},
	"metalink/aria2-inline/name-dotdot.meta4": {
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (file@name ../doughnuts): an exception",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "files", len(d.Files), 0)
			expect(t, "rejected", rejected(d), []string{"../doughnuts"})
		},
		differs: "refused per file, not per document, as for name-empty; RFC 5854 §4.1.2.1 forbids the traversal",
	},
	"metalink/aria2-inline/urlpri-1.meta4":       urlPri(1, false),
	"metalink/aria2-inline/urlpri-100.meta4":     urlPri(100, false),
	"metalink/aria2-inline/urlpri-999999.meta4":  urlPri(999999, false),
	"metalink/aria2-inline/urlpri-0.meta4":       urlPri(0, true),
	"metalink/aria2-inline/urlpri-1000000.meta4": urlPri(1000000, true),
	"metalink/aria2-inline/urlpri-A.meta4":       urlPri(-1, true),
	"metalink/aria2-inline/mupri-1.meta4":        muPri(1, false),
	"metalink/aria2-inline/mupri-100.meta4":      muPri(100, false),
	"metalink/aria2-inline/mupri-999999.meta4":   muPri(999999, false),
	"metalink/aria2-inline/mupri-0.meta4":        muPri(0, true),
	"metalink/aria2-inline/mupri-1000000.meta4":  muPri(1000000, true),
	"metalink/aria2-inline/mupri-A.meta4":        muPri(-1, true),
	"metalink/aria2-inline/mutype-torrent.meta4": {
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (metaurl@mediatype torrent): one entry",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "example.ext")
			expect(t, "metaurl type", f.MetaURLs[0].MediaType, "torrent")
		},
	},
	"metalink/aria2-inline/mutype-none.meta4":  muTypeMissing("no mediatype"),
	"metalink/aria2-inline/mutype-empty.meta4": muTypeMissing("empty mediatype"),
	"metalink/aria2-inline/muname-foo.meta4": {
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (metaurl@name foo): one entry",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "metaurl name", file(t, d, "example.ext").MetaURLs[0].Name, "foo")
		},
	},
	"metalink/aria2-inline/muname-dotdot.meta4": {
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (metaurl@name ../doughnuts): an exception",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "files", len(d.Files), 0)
			expect(t, "rejected", rejected(d), []string{"example.ext"})
		},
		differs: "the file is refused with a reason (its torrent would write outside the folder), not the whole document",
	},
	"metalink/aria2-inline/muname-empty.meta4": {
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (metaurl@name empty): an exception",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "example.ext")
			expect(t, "metaurl name", f.MetaURLs[0].Name, "")
		},
		differs: "Braid reads name=\"\" as no name (the torrent's own file is the file), which RFC 5854 §4.2.8.3 allows: " +
			"the attribute is OPTIONAL, and an empty value names nothing that could escape the folder",
	},
	"metalink/aria2-inline/plen-262144.meta4": pieces(true, "pieces@length 262144"),
	"metalink/aria2-inline/plen-none.meta4":   pieces(false, "no pieces@length"),
	"metalink/aria2-inline/plen-empty.meta4":  pieces(false, "pieces@length empty"),
	"metalink/aria2-inline/plen-A.meta4":      pieces(false, "pieces@length A"),
	"metalink/aria2-inline/ptype-sha-1.meta4": pieces(true, "pieces@type sha-1"),
	"metalink/aria2-inline/ptype-none.meta4":  pieces(false, "no pieces@type"),
	"metalink/aria2-inline/ptype-empty.meta4": pieces(false, "pieces@type empty"),
	"metalink/aria2-inline/htype-sha-1.meta4": {
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (hash@type sha-1): parsed",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "sha-1", hash(file(t, d, "example.ext"), "sha-1"), "0beec7b5ea3f0fdbc95d0dd47f3c5bc275da8a33")
		},
	},
	"metalink/aria2-inline/htype-none.meta4":  hashTypeMissing("no hash@type"),
	"metalink/aria2-inline/htype-empty.meta4": hashTypeMissing("hash@type empty"),
	"metalink/aria2-inline/sigtype-pgp.meta4": {
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (signature@mediatype application/pgp-signature): parsed",
		check: func(t *testing.T, d *metalink.Document) {
			s := file(t, d, "example.ext").Signature
			if s == nil || s.MediaType != signature.MediaType || s.Value != "sig" {
				t.Errorf("signature %+v", s)
			}
		},
	},
	"metalink/aria2-inline/sigtype-none.meta4":  sigTypeMissing("no signature@mediatype"),
	"metalink/aria2-inline/sigtype-empty.meta4": sigTypeMissing("signature@mediatype empty"),
	"metalink/aria2-inline/size4-maxint64.meta4": {
		cite: "aria2 MetalinkProcessorTest::testBadSizeV4 (9223372036854775807): parsed",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "size", file(t, d, "foo").Size, int64(9223372036854775807))
		},
	},
	"metalink/aria2-inline/size4-minus1.meta4": {
		cite: "aria2 MetalinkProcessorTest::testBadSizeV4 (-1): an exception",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "size", file(t, d, "foo").Size, int64(-1))
			if !warned(d, `the size "-1" is not a byte count`) {
				t.Errorf("no warning: %q", d.Warnings)
			}
		},
		differs: "a negative size is not one (RFC 5854 §4.2.14: the length in octets), so Braid takes the size as unknown " +
			"with a warning and lets the hashes decide, rather than refusing a document whose mirrors and hashes are fine",
	},
	"metalink/aria2-inline/malformed1.metalink": {
		cite: "aria2 MetalinkProcessorTest::testMalformedXML: an exception", fail: true,
	},
	"metalink/aria2-inline/malformed2.metalink": {
		cite: "aria2 MetalinkProcessorTest::testMalformedXML2: an exception", fail: true, want: metalink.ErrTruncated,
	},
	"metalink/aria2-inline/badsize-v3.metalink": {
		cite: "aria2 MetalinkProcessorTest::testBadSize: parsed; aria2-0.5.2.tar.bz2, length 0, 0.5.2, en-US, Linux-x86",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "aria2-0.5.2.tar.bz2")
			expect(t, "size", f.Size, int64(-1))
			expect(t, "version", f.Version, "0.5.2")
			expect(t, "languages", f.Languages, []string{"en-US"})
			expect(t, "os", f.OS, []string{"Linux-x86"})
		},
		differs: "aria2 reads the size \"abc\" as 0; Braid as unknown (-1) with a warning: 0 would claim an empty file " +
			"and fail every real download of it",
	},
	"metalink/aria2-inline/badmaxconn.metalink": {
		cite: "aria2 MetalinkProcessorTest::testBadMaxConn: parsed, length 43743838 (the bad maxconnections ignored)",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "aria2-0.5.2.tar.bz2")
			expect(t, "size", f.Size, int64(43743838))
			expect(t, "max connections", f.MaxConnections, 0)
		},
	},
	"metalink/aria2-inline/noname.metalink": {
		cite: "aria2 MetalinkProcessorTest::testNoName: the nameless file is skipped, aria2-0.5.2.tar.bz2 kept",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "files", names(d), []string{"aria2-0.5.2.tar.bz2"})
		},
	},
	"metalink/aria2-inline/badurlprefs.metalink": {
		cite: "aria2 MetalinkProcessorTest::testBadURLPrefs: preference \"xyz\" gives the lowest priority; 1 connection; location jp",
		check: func(t *testing.T, d *metalink.Document) {
			u := file(t, d, "aria2-0.5.2.tar.bz2").URLs[0]
			expect(t, "priority", u.Priority, 100) // Metalink 3's lowest: preference 1 (or none) is priority 101-1
			expect(t, "max connections", u.MaxConnections, 1)
			expect(t, "location", u.Location, "JP")
		},
	},
	"metalink/aria2-inline/badurlmaxconn.metalink": {
		cite: "aria2 MetalinkProcessorTest::testBadURLMaxConn: priority 1 (preference 100), no connection limit, location jp",
		check: func(t *testing.T, d *metalink.Document) {
			u := file(t, d, "aria2-0.5.2.tar.bz2").URLs[0]
			expect(t, "priority", u.Priority, 1)
			expect(t, "max connections", u.MaxConnections, 0)
			expect(t, "location", u.Location, "JP")
		},
	},
	"metalink/aria2-inline/unsupportedtype.metalink": {
		cite: "aria2 MetalinkProcessorTest::testUnsupportedType: 3 resources: ftp, a magnet (not supported as a URL), http",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "aria2-0.5.2.tar.bz2")
			expect(t, "mirrors", urls(f), []string{"ftp://mirror/", "http://mirror/"})
			expect(t, "metaurls", metaURLs(f), []string{"magnet:xt=XYZ"})
		},
		differs: "the magnet link is kept as a torrent MetaURL rather than an unsupported resource: Metalink 3.0 §4.2 lists " +
			"\"magnet\" among <url> types, and Braid fetches torrents",
	},
	"metalink/aria2-inline/multiplepieces.metalink": {
		cite: "aria2 MetalinkProcessorTest::testMultiplePieces: sha-1 pieces of 1024 preferred over md5",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "aria2.tar.bz2")
			if f.Pieces != nil {
				t.Errorf("pieces %+v kept; both sets are empty", f.Pieces)
			}
		},
		differs: "both <pieces> are empty; aria2 keeps the sha-1 one with no hashes, Braid drops both with a warning, since " +
			"a piece set with no hashes checks nothing (RFC 5854 §4.2.12: the pieces element holds the hashes)",
	},
	"metalink/aria2-inline/badpieceno.metalink": {
		cite: "aria2 MetalinkProcessorTest::testBadPieceNo: the set with piece=\"xyz\" is dropped, the sha-1 set of 1024 kept",
		check: func(t *testing.T, d *metalink.Document) {
			p := file(t, d, "aria2.tar.bz2").Pieces
			if p == nil || p.Length != 1024 || p.Type != "sha-1" {
				t.Errorf("pieces %+v", p)
			}
		},
	},
	"metalink/aria2-inline/badpiecelength.metalink": {
		cite: "aria2 MetalinkProcessorTest::testBadPieceLength: the set with length=\"xyz\" is dropped, the sha-1 set of 1024 kept",
		check: func(t *testing.T, d *metalink.Document) {
			p := file(t, d, "aria2.tar.bz2").Pieces
			if p == nil || p.Length != 1024 || p.Type != "sha-1" {
				t.Errorf("pieces %+v", p)
			}
		},
	},
	"metalink/aria2-inline/unsupportedtype-piece.metalink": {
		cite: "aria2 MetalinkProcessorTest::testUnsupportedType_piece: the ARIA2-typed set is skipped, the sha-1 set of 1024 kept",
		check: func(t *testing.T, d *metalink.Document) {
			p := file(t, d, "aria2.tar.bz2").Pieces
			if p == nil || p.Length != 1024 || p.Type != "sha-1" {
				t.Errorf("pieces %+v", p)
			}
		},
	},
	"metalink/aria2-inline/largefilesize.metalink": {
		cite: "aria2 MetalinkProcessorTest::testLargeFileSize: 9223372036854775807 bytes",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "size", file(t, d, "dvd.iso").Size, int64(9223372036854775807))
		},
	},
	"metalink/aria2-inline/xmlprefix-v3.metalink": {
		cite: "aria2 MetalinkProcessorTest::testXmlPrefixV3: a prefixed Metalink 3 document, 9223372036854775807 bytes",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "version", d.Version, 3)
			expect(t, "size", file(t, d, "dvd.iso").Size, int64(9223372036854775807))
		},
	},

	// libmetalink: test/metalink_parser_test.c and metalink_parser_test_v4.c.
	"metalink/libmetalink/test1.xml": {
		cite: "libmetalink metalink_parser_test.c validate_result (test_metalink_parse_file and the others): origin " +
			"http://example.org/foo.metalink, dynamic; 4 files (the nameless one and ../unsafe skipped); libmetalink-0.0.1 " +
			"with 2 hashes (the untyped one excluded), ftp jp at preference 100 then http at 99; 0.0.2a of 4294967296 bytes; " +
			"NoVerificationHash with a bad size; badpref with its bad preference at the bottom",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "origin", d.Origin, "http://example.org/foo.metalink")
			expect(t, "dynamic", d.Dynamic, true)
			expect(t, "files", names(d), []string{"libmetalink-0.0.1.tar.bz2", "libmetalink-0.0.2a.tar.bz2", "NoVerificationHash", "badpref"})
			f := d.Files[0]
			expect(t, "version", f.Version, "0.0.1")
			expect(t, "languages", f.Languages, []string{"en-US"})
			expect(t, "max connections", f.MaxConnections, 1)
			expect(t, "hashes", len(f.Hashes), 2)
			expect(t, "sha-1", hash(f, "sha-1"), "a96cf3f0266b91d87d5124cf94326422800b627d")
			expect(t, "md5", hash(f, "md5"), "fc4d834e89c18c99b2615d902750948c")
			expect(t, "mirrors", urls(f), []string{"ftp://ftphost/libmetalink-0.0.1.tar.bz2", "http://httphost/libmetalink-0.0.1.tar.bz2"})
			expect(t, "0.0.2a size", d.Files[1].Size, int64(4294967296))
			expect(t, "bad size", d.Files[2].Size, int64(-1))
			u := d.Files[3].URLs[0]
			expect(t, "bad preference", u.Priority, 100)
		},
		differs: "libmetalink keeps the 2 numbered of 3 piece hashes of 0.0.2a; Braid drops the set with a warning: one " +
			"hash has no piece number, and 2 hashes cannot cover 4294967296 bytes in 262144-byte pieces (16384 are needed), " +
			"so they could check nothing. libmetalink also drops the untyped <url>; Braid keeps it, since Metalink 3.0's " +
			"type is a hint the URL's own scheme already gives (ed2k, rsync and unknown schemes are skipped by the engine)",
	},
	"metalink/libmetalink/test2.xml": {
		cite: "libmetalink metalink_parser_test_v4.c validate_result: generator MetalinkEditor/2.0dev, published " +
			"2009-05-15T12:23:23+09:30, dynamic origin; 4 files; mirrors sorted by priority (99 before 100); 0.0.2a with " +
			"its unprioritised mirror at 999999 and 3 metaurls mirror3, mirror1, mirror2 by priority; badpri's priority " +
			"-100 falls back to 999999",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "generator", d.Generator, "MetalinkEditor/2.0dev")
			expect(t, "published", d.Published.Unix(), int64(1242356003))
			expect(t, "dynamic", d.Dynamic, true)
			expect(t, "files", names(d), []string{"libmetalink-0.0.1.tar.bz2", "libmetalink-0.0.2a.tar.bz2", "NoVerificationHash", "badpri"})
			f := d.Files[0]
			expect(t, "publisher", f.Publisher, metalink.Party{Name: "name", URL: "url"})
			expect(t, "mirrors by priority", urls(f), []string{"http://httphost/libmetalink-0.0.1.tar.bz2", "ftp://ftphost/libmetalink-0.0.1.tar.bz2"})
			g := d.Files[1]
			expect(t, "0.0.2a mirrors", urls(g), []string{"ftp://ftphost/libmetalink-0.0.2a.tar.bz2", "http://mirror1/libmetalink-0.0.2a.tar.bz2", "http://httphost/libmetalink-0.0.2a.tar.bz2"})
			expect(t, "unprioritised", g.URLs[2].Priority, metalink.LowestPriority)
			expect(t, "metaurls", metaURLs(g), []string{"http://mirror3/libmetalink-0.0.2a.tar.bz2.torrent", "http://mirror1/libmetalink-0.0.2a.tar.bz2.torrent", "http://mirror2/libmetalink-0.0.2a.tar.bz2.torrent"})
			expect(t, "badpri priority", d.Files[3].URLs[0].Priority, metalink.LowestPriority)
		},
		differs: "libmetalink keeps 2 piece hashes for a 4294967296-byte file in 262144-byte pieces; Braid drops them " +
			"with a warning, since 16384 are needed and a short set cannot be matched to the file (RFC 5854 §4.2.12)",
	},
	"metalink/libmetalink/update-fail-ab.xml": {
		cite: "libmetalink test_metalink_parse_update_fail: \"<a><b></a>\" is refused", fail: true, want: metalink.ErrNotMetalink,
	},
	"metalink/libmetalink/update-fail-prefix128.xml": {
		cite: "libmetalink test_metalink_parse_update_fail: the first 128 bytes of test1.xml, as final data, are refused",
		fail: true, want: metalink.ErrTruncated,
	},

	// librepo (Fedora's MirrorManager documents): tests/test_metalink.c.
	"metalink/librepo/metalink_good_01": {
		cite: "librepo test_metalink_good_01: repomd.xml, 4309 bytes, 4 hashes (md5, sha1, sha256, sha512), 106 URLs; " +
			"the first http in US at preference 99, urls[2] ftp at 98, urls[104] rsync in CA at 48",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "repomd.xml")
			expect(t, "size", f.Size, int64(4309))
			expect(t, "hashes", len(f.Hashes), 4)
			expect(t, "md5", hash(f, "md5"), "20b6d77930574ae541108e8e7987ad3f")
			expect(t, "sha-512", hash(f, "sha-512"), "884dc465da67fee8fe3f11dab321a99d9a13b22ce97f84ceff210e82b6b1a8c635ccd196add1dd738807686714c3a0a048897e2d0650bc05302b3ee26de521fd")
			expect(t, "urls", len(f.URLs), 106)
			first := f.URLs[0]
			expect(t, "first", first.URL, "http://mirror.pnl.gov/fedora/linux/releases/17/Everything/x86_64/os/repodata/repomd.xml")
			expect(t, "its priority (101-99)", first.Priority, 2)
			expect(t, "its location", first.Location, "US")
			rsync := slices.IndexFunc(f.URLs, func(u metalink.URL) bool {
				return u.URL == "rsync://mirror.csclub.uwaterloo.ca/fedora-enchilada/linux/releases/17/Everything/x86_64/os/repodata/repomd.xml"
			})
			if rsync < 0 || f.URLs[rsync].Priority != 101-48 || f.URLs[rsync].Location != "CA" {
				t.Errorf("the rsync mirror of CA at preference 48: index %d", rsync)
			}
		},
	},
	"metalink/librepo/metalink_good_02": {
		cite: "librepo test_metalink_good_02: repomd.xml without size or hashes, 3 URLs, the first http in US at preference 97",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "repomd.xml")
			expect(t, "size", f.Size, int64(-1))
			expect(t, "hashes", len(f.Hashes), 0)
			expect(t, "urls", len(f.URLs), 3)
			u := f.URLs[slices.IndexFunc(f.URLs, func(u metalink.URL) bool { return strings.HasPrefix(u.URL, "http://mirror.pnl.gov/") })]
			expect(t, "pnl priority (101-97)", u.Priority, 4)
		},
	},
	"metalink/librepo/metalink_good_03": {
		cite: "librepo test_metalink_good_03: repomd.xml with no hashes and no URLs, parsed",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "repomd.xml")
			expect(t, "urls", len(f.URLs), 0)
			if !warned(d, "no mirror or metadata URL") {
				t.Errorf("no warning that nothing can be downloaded: %q", d.Warnings)
			}
		},
	},
	"metalink/librepo/metalink_bad_01": {
		cite: "librepo test_metalink_bad_01: parsed; size 0; hashes md5, foo (empty), sha256, sha512; 4 URLs, preferences 0, -5, 0, and an empty URL",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "repomd.xml")
			expect(t, "size", f.Size, int64(-1))
			expect(t, "md5", hash(f, "md5"), "20b6d77930574ae541108e8e7987ad3f")
			expect(t, "sha-256", hash(f, "sha-256"), "0076c44aabd352da878d5c4d794901ac87f66afac869488f6a4ef166de018cdf")
			expect(t, "hashes", len(f.Hashes), 3)
			expect(t, "urls", urls(f), []string{
				"http://mirror.pnl.gov/fedora/linux/releases/17/Everything/x86_64/os/repodata/repomd.xml",
				"ftp://mirrors.syringanetworks.net/fedora/releases/17/Everything/x86_64/os/repodata/repomd.xml",
				"rsync://mirrors.syringanetworks.net/fedora/releases/17/Everything/x86_64/os/repodata/repomd.xml",
			})
			for _, u := range f.URLs {
				expect(t, u.URL+" priority", u.Priority, 100) // 0 and -5 are no preference: the lowest
			}
		},
		differs: "librepo keeps the empty hash \"foo\" and the empty URL as entries; Braid drops both with a warning, since " +
			"neither can be used (an empty digest checks nothing; RFC 5854 §4.2.16: a url element contains an IRI). The size " +
			"\"bar\" is unknown (-1) rather than 0",
	},
	"metalink/librepo/metalink_bad_02": {
		cite: "librepo metalink_bad_*: \"not valid, but the parser could/should be able to parse it without an error\"",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "files", names(d), []string{"repomd.xml"})
		},
	},
	"metalink/librepo/metalink_really_bad_01": {
		cite: "librepo test_metalink_really_bad_01: parsing raises an error (librepo looks for repomd.xml, and the document has only foo.xml and bar.xml)",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "files", names(d), []string{"foo.xml", "bar.xml"})
		},
		differs: "librepo's error is that the file it asked for (repomd.xml) is not in the document; Braid reads documents " +
			"whole and lets the user pick, so it lists the two files this one describes",
	},
	"metalink/librepo/metalink_really_bad_02": {
		cite: "librepo test_metalink_really_bad_02: parsing raises an error (the document is cut off)", fail: true, want: metalink.ErrTruncated,
	},
	"metalink/librepo/metalink_really_bad_03": {
		cite: "librepo test_metalink_really_bad_03: parsing raises an error (no <file>)", fail: true, want: metalink.ErrNoFiles,
	},
	"metalink/librepo/metalink_with_alternates": {
		cite: "librepo test_metalink_with_alternates (test_metalink.c in newer librepo): repomd.xml, 4761 bytes, its hashes " +
			"(MirrorManager's mm0:alternates are older versions, not this file)",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "repomd.xml")
			expect(t, "size", f.Size, int64(4761))
			expect(t, "sha-256", hash(f, "sha-256"), "d4f9ad66f7c6e000d8ebf9ec92ad2c4636547853708554d93dab672bdfd98ca1")
		},
	},

	// pymetalink: tests/test_console.py, and tests/test_metalink4.py for the MirrorBrain document.
	"metalink/pymetalink/1_create_subdir.meta4": pymetalinkCase("1_create_subdir.meta4", goodCurl("subdir/"+curlTarball, true)),
	"metalink/pymetalink/1_empty_size.meta4":    pymetalinkCase("1_empty_size.meta4", goodCurl(curlTarball, true)),
	"metalink/pymetalink/1_fail_bad_directory_and_network_errors.meta4": pymetalinkCase("1_fail_bad_directory_and_network_errors.meta4", func(t *testing.T, d *metalink.Document) {
		// Its mirrors are private addresses and hosts that do not
		// exist: the download fails on the network, not in the document.
		goodCurl(curlTarball, true)(t, d)
		for _, u := range file(t, d, curlTarball).URLs {
			if !strings.Contains(u.URL, "192.168.") && !strings.Contains(u.URL, "example.com") {
				t.Errorf("mirror %s is reachable", u.URL)
			}
		}
	}),
	"metalink/pymetalink/1_http_redirect.meta4": pymetalinkCase("1_http_redirect.meta4", func(t *testing.T, d *metalink.Document) {
		f := file(t, d, "curl-7.18.1.tar.bz2")
		expect(t, "sha-1", hash(f, "sha-1"), "685b9388ee9e646158a83cd435f7be664816ad78")
	}),
	"metalink/pymetalink/1_metalink_one_file.meta4": pymetalinkCase("1_metalink_one_file.meta4", goodCurl(curlTarball, true)),
	"metalink/pymetalink/1_metalink_three_files.meta4": pymetalinkCase("1_metalink_three_files.meta4", func(t *testing.T, d *metalink.Document) {
		expect(t, "files", names(d), []string{curlTarball, curlTarball + ".1", curlTarball + ".2"})
		for _, n := range names(d) {
			goodCurl(n, true)(t, d)
		}
	}),
	"metalink/pymetalink/1_no_checksums.meta4":                        pymetalinkCase("1_no_checksums.meta4", goodCurl(curlTarball, false)),
	"metalink/pymetalink/1_only_ftp_and_http.meta4":                   pymetalinkCase("1_only_ftp_and_http.meta4", goodCurl(curlTarball, true)),
	"metalink/pymetalink/2_fail_metalink_one_file_bad_main_md5.meta4": pymetalinkCase("2_fail_metalink_one_file_bad_main_md5.meta4", badCurl),
	"metalink/pymetalink/2_only_ftp.meta4": pymetalinkCase("2_only_ftp.meta4", func(t *testing.T, d *metalink.Document) {
		goodCurl(curlTarball, true)(t, d)
		expect(t, "mirrors", urls(file(t, d, curlTarball)), []string{"ftp://ftp.sunet.se/pub/www/utilities/curl/curl-7.46.0.tar.bz2"})
	}),
	"metalink/pymetalink/2_only_http.meta4":                        pymetalinkCase("2_only_http.meta4", goodCurl(curlTarball, true)),
	"metalink/pymetalink/3_fail_bad_only_advanced_checksums.meta4": pymetalinkCase("3_fail_bad_only_advanced_checksums.meta4", badCurl),
	"metalink/pymetalink/3_metalink_bad_piece1and2.meta4":          pymetalinkCase("3_metalink_bad_piece1and2.meta4", badPieces(0, 1)),
	"metalink/pymetalink/3_metalink_bad_piece2.meta4":              pymetalinkCase("3_metalink_bad_piece2.meta4", badPieces(1)),
	"metalink/pymetalink/3_only_advanced_checksums.meta4": pymetalinkCase("3_only_advanced_checksums.meta4", func(t *testing.T, d *metalink.Document) {
		f := file(t, d, curlTarball)
		expect(t, "sha-256", hash(f, "sha-256"), "b7d726cdd8ed4b6db0fa1b474a3c59ebbbe4dcd4c61ac5e7ade0e0270d3195ad")
	}),
	"metalink/pymetalink/4_empty_size_only_p2p.meta4": withDiffers(pymetalinkCase("4_empty_size_only_p2p.meta4", onlyED2K), ed2kDiffers),
	"metalink/pymetalink/4_fail_metalink_bad_piece1and2_only_p2p.meta4": withDiffers(
		pymetalinkCase("4_fail_metalink_bad_piece1and2_only_p2p.meta4", badPieces(0, 1)),
		"pymetalink expects this download to fail and 3_metalink_bad_piece1and2 to succeed, but the two documents are the "+
			"same but for the digits of the two bad piece hashes: same HTTP and FTP mirrors (despite \"only_p2p\"), same "+
			"good whole-file hashes. Only the file name tells run_test which to expect. Braid reads both alike: piece "+
			"hashes that disagree, and whole-file hashes that decide (RFC 5854 §4.2.4: the hash of the whole file)"),
	"metalink/pymetalink/4_fail_metalink_bad_piece2_only_p2p.meta4":            pymetalinkCase("4_fail_metalink_bad_piece2_only_p2p.meta4", onlyED2K),
	"metalink/pymetalink/4_fail_metalink_one_file_bad_main_md5_only_p2p.meta4": pymetalinkCase("4_fail_metalink_one_file_bad_main_md5_only_p2p.meta4", func(t *testing.T, d *metalink.Document) { onlyED2K(t, d); badCurl(t, d) }),
	"metalink/pymetalink/4_no_checksums_only_p2p.meta4":                        pymetalinkCase("4_no_checksums_only_p2p.meta4", goodCurl(curlTarball, false)),
	"metalink/pymetalink/4_only_p2p.meta4":                                     withDiffers(pymetalinkCase("4_only_p2p.meta4", onlyED2K), ed2kDiffers),
	"metalink/pymetalink/qtxmlpatterns-mirrorbrain.meta4": {
		cite: "pymetalink tests/test_metalink4.py::test_should_parse_meta4_file: a real MirrorBrain/2.19.0 document parses",
		check: func(t *testing.T, d *metalink.Document) {
			f := d.Files[0]
			expect(t, "size", f.Size, int64(1441205))
			expect(t, "sha-256", hash(f, "sha-256"), "2a20c02a79b6547ee9380abd7cae19ca381c1b7c8758258e812f1187462cf5d1")
			if f.Pieces == nil || len(f.Pieces.Hashes) != 6 {
				t.Errorf("pieces %+v", f.Pieces)
			}
			if len(f.URLs) == 0 || f.URLs[0].Priority != 1 {
				t.Errorf("mirrors %+v", f.URLs)
			}
		},
	},

	// wget2: the fuzzer's crash reproducers (libwget_metalink_parse_fuzzer asserts only that nothing crashes).
	"metalink/wget2/repro-5103826937839616": {
		cite: "wget2 fuzz/libwget_metalink_parse_fuzzer (crash reproducer): no crash", fail: true, want: metalink.ErrNotMetalink,
	},
	"metalink/wget2/repro-5268760606801920": {
		cite: "wget2 fuzz/libwget_metalink_parse_fuzzer (crash reproducer): no crash", fail: true, want: metalink.ErrNotMetalink,
	},
	"metalink/wget2/fuzz-corpus.tar.gz": {
		cite: "wget2 fuzz/libwget_metalink_parse_fuzzer: every seed input parses or is refused, never a crash (TestPeerCorpusWget2Seeds)",
	},
}

func withDiffers(c peerCase, differs string) peerCase {
	c.differs = differs
	return c
}

// urlPri and muPri: aria2 accepts a priority of 1..999999 and throws for
// 0, 1000000 and "A" (testParseFileV4_attrs, url@priority and
// metaurl@priority).
func urlPri(p int, bad bool) peerCase {
	return priCase("url@priority", p, bad, func(f metalink.File) int { return f.URLs[0].Priority })
}

func muPri(p int, bad bool) peerCase {
	return priCase("metaurl@priority", p, bad, func(f metalink.File) int { return f.MetaURLs[0].Priority })
}

func priCase(attr string, p int, bad bool, of func(metalink.File) int) peerCase {
	c := peerCase{cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (" + attr + "): 1, 100 and 999999 are accepted"}
	if !bad {
		c.check = func(t *testing.T, d *metalink.Document) {
			expect(t, attr, of(file(t, d, "example.ext")), p)
		}
		return c
	}
	c.cite = "aria2 MetalinkProcessorTest::testParseFileV4_attrs (" + attr + "): 0, 1000000 and A are refused with an exception"
	c.check = func(t *testing.T, d *metalink.Document) {
		expect(t, attr, of(file(t, d, "example.ext")), metalink.LowestPriority)
		if !warned(d, "those mirrors count as having none (tried last)") {
			t.Errorf("no warning: %q", d.Warnings)
		}
	}
	c.differs = "an invalid priority counts as none: RFC 5854 §4.2.16.1 says a url without one has the lowest (999999), " +
		"so the mirror is kept but tried last, with a warning, instead of refusing a document whose hashes still protect " +
		"the file; never first, which a clamped 0 or negative would make it"
	return c
}

// muTypeMissing: aria2 refuses a metaurl without a media type
// (testParseFileV4_attrs, metaurl@mediatype).
func muTypeMissing(what string) peerCase {
	return peerCase{
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (metaurl " + what + "): an exception",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "example.ext")
			if len(f.MetaURLs) != 1 || f.MetaURLs[0].MediaType != "" {
				t.Errorf("metaurls %+v", f.MetaURLs)
			}
			if !warned(d, "a <metaurl> without a media type") {
				t.Errorf("no warning: %q", d.Warnings)
			}
		},
		differs: "RFC 5854 §4.2.8.2 says a metaurl MUST have a media type; Braid warns and keeps it as metadata of unknown " +
			"type, which the engine does not fetch (only \"torrent\"), so the document's other sources still work",
	}
}

// pieces: aria2 accepts <pieces length="262144" type="sha-1"> and throws
// for a missing or unreadable length or type (testParseFileV4_attrs).
func pieces(good bool, what string) peerCase {
	if good {
		return peerCase{
			cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (" + what + "): parsed",
			check: func(t *testing.T, d *metalink.Document) {
				p := file(t, d, "example.ext").Pieces
				if p == nil || p.Type != "sha-1" || p.Length != 262144 || len(p.Hashes) != 1 {
					t.Errorf("pieces %+v", p)
				}
			},
		}
	}
	return peerCase{
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (" + what + "): an exception",
		check: func(t *testing.T, d *metalink.Document) {
			f := file(t, d, "example.ext")
			if f.Pieces != nil {
				t.Errorf("pieces %+v kept", f.Pieces)
			}
			if !warned(d, "piece hashes (line 1) are dropped") {
				t.Errorf("no warning: %q", d.Warnings)
			}
		},
		differs: "RFC 5854 §4.2.12 requires length and type; Braid drops the unusable piece hashes with a warning and keeps " +
			"the file (the whole-file hash, where there is one, still decides) instead of refusing the document",
	}
}

// hashTypeMissing: aria2 throws for a <hash> without a type.
func hashTypeMissing(what string) peerCase {
	return peerCase{
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (" + what + "): an exception",
		check: func(t *testing.T, d *metalink.Document) {
			expect(t, "hashes", len(file(t, d, "example.ext").Hashes), 0)
			if !warned(d, "a <hash> without a type") {
				t.Errorf("no warning: %q", d.Warnings)
			}
		},
		differs: "RFC 5854 §4.2.4.1 requires the type; a hash of unknown kind checks nothing, so Braid drops it with a " +
			"warning and the file is \"not verified\", instead of refusing the document",
	}
}

// sigTypeMissing: aria2 throws for a <signature> without a media type.
// Braid keeps the file: issue 25 asks that such a signature be a warning
// and the file judged by its hashes.
func sigTypeMissing(what string) peerCase {
	return peerCase{
		cite: "aria2 MetalinkProcessorTest::testParseFileV4_attrs (" + what + "): an exception",
		check: func(t *testing.T, d *metalink.Document) {
			s := file(t, d, "example.ext").Signature
			if s == nil || s.MediaType != "" || s.Value != "sig" {
				t.Errorf("signature %+v", s)
			}
			if !warned(d, "the signature has no media type") {
				t.Errorf("no warning: %q", d.Warnings)
			}
		},
		differs: "RFC 5854 §4.2.13.1 says a signature MUST have a media type, and aria2 refuses the document; Braid " +
			"warns, cannot check the signature (engine/signature: Unreadable), and judges the file by its hashes; only " +
			"--require-signature makes that a failure. The signature is optional protection on top of the hashes " +
			"(§4.2.13), so a malformed one must not stop a download the hashes vouch for",
	}
}

// curl's tests 2005-2022: tests/data/testNNNN, each a Metalink 3 document
// that curl --metalink reads; names from the tests' <name>.
func init() {
	type curlRow struct {
		n       string
		what    string
		ok      bool   // curl downloads (the file name is taken)
		name    string // the name Braid keeps, when ok
		differs string
	}
	rows := []curlRow{
		{"2005", "Metalink local XML file, HTTP resource: downloaded, sha-256 checked", true, "log/download2005", ""},
		{"2006", "Metalink local XML file, --metalink: downloaded, sha-256 checked", true, "log/download2006", ""},
		{"2007", "Metalink local XML file, --metalink: downloaded, sha-256 checked", true, "log/download2007", ""},
		{"2008", "Metalink local XML file, --metalink: downloaded, sha-256 checked", true, "log/download2008", ""},
		{"2009", "Metalink local XML file, --metalink: downloaded, sha-256 checked", true, "log/download2009", ""},
		{"2010", "Metalink local XML file, --metalink: downloaded, sha-256 checked", true, "log/download2010", ""},
		{"2011", "Metalink local XML file, HTTP resource, bad hash: validating FAILED (digest mismatch)", true, "log/download2011", ""},
		{"2012", "Metalink local XML file, HTTP resource, without hash: WARNING (digest missing)", true, "log/download2012", ""},
		{"2013", "absolute path: WARNING (missing or invalid file name), nothing written", false, "", ""},
		{"2014", "\"./\" path: WARNING (missing or invalid file name)", false, "", ""},
		{"2015", "\"../\" traversal: WARNING (missing or invalid file name)", false, "", ""},
		{"2016", "\"log/../log\" traversal: WARNING (missing or invalid file name)", false, "", ""},
		{"2017", "attempt Unix home path traversal \"~/\": WARNING (missing or invalid file name)", true, "~/download2017",
			"curl refuses a name starting with ~; Braid never expands ~ (no shell is involved), so \"~/download2017\" is a " +
				"folder literally named ~ inside the download folder: no traversal, which is all RFC 5854 §4.1.2.1 forbids"},
		{"2018", "questionable file name \"log/.download2018\": WARNING (missing or invalid file name)", true, "log/.download2018",
			"curl refuses hidden (dot) files; Braid keeps them: \".download2018\" stays inside the folder (RFC 5854 §4.1.2.1 " +
				"forbids only traversal and absolute paths), and real downloads include dot files (.htaccess, .config archives)"},
		{"2019", "file name \".\": WARNING (missing or invalid file name)", false, "", ""},
		{"2020", "file name \"..\": WARNING (missing or invalid file name)", false, "", ""},
		{"2021", "file name with \" >/dev/null\": WARNING (missing or invalid file name)", false, "", ""},
		{"2022", "file name with \" |/dev/null\": WARNING (missing or invalid file name)", false, "", ""},
	}
	for _, r := range rows {
		r := r
		c := peerCase{cite: "curl tests/data/test" + r.n + ": " + r.what, differs: r.differs}
		c.check = func(t *testing.T, d *metalink.Document) {
			if !r.ok {
				if len(d.Files) != 0 || len(d.Rejected) != 1 || d.Rejected[0].Reason == "" {
					t.Errorf("files %q rejected %+v; want the one file refused with a reason", names(d), d.Rejected)
				}
				return
			}
			f := file(t, d, r.name)
			expect(t, "mirrors", urls(f), []string{"http://127.0.0.1:8990/" + r.n})
			switch r.n {
			case "2011":
				expect(t, "sha-256", hash(f, "sha-256"), strings.Repeat("bad", 21)+"b") // the download fails verification
			case "2012":
				expect(t, "hashes", len(f.Hashes), 0) // "not verified (no hash published)"
			default:
				if hash(f, "sha-256") == "" {
					t.Errorf("no sha-256 to check: %v", f.Hashes)
				}
			}
		}
		peerCases["metalink/curl/test"+r.n+".metalink"] = c
	}
}

// TestPeerCorpusMetalink reads every Metalink document of the peer corpus
// and holds Braid to what the peers' own tests assert (see peerCases).
func TestPeerCorpusMetalink(t *testing.T) {
	dir := peercorpus.Dir(t)
	entries := peercorpus.Manifest(t, dir, "metalink/")
	seen := map[string]bool{}
	for _, e := range entries {
		seen[e.File] = true
		c, ok := peerCases[e.File]
		if !ok {
			t.Errorf("%s (from %s %s) has no row in peerCases: say what %s's tests assert of it", e.File, e.Repo, e.Path, e.Repo)
			continue
		}
		if c.cite == "" {
			t.Errorf("%s: the row cites no test", e.File)
		}
		if strings.HasSuffix(e.File, ".tar.gz") {
			continue // TestPeerCorpusWget2Seeds
		}
		t.Run(strings.TrimPrefix(e.File, "metalink/"), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, e.File))
			if err != nil {
				t.Fatal(err)
			}
			d, err := parseNoPanic(t, data, c.location)
			if c.fail {
				if err == nil {
					t.Fatalf("parsed (%d files); %s", len(d.Files), c.cite)
				}
				if c.want != nil && !errors.Is(err, c.want) {
					t.Errorf("error %v, want %v", err, c.want)
				}
				if !strings.HasPrefix(err.Error(), "metalink: ") || len(err.Error()) < 20 {
					t.Errorf("error %q does not say what is wrong", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v; %s", err, c.cite)
			}
			if c.check == nil {
				t.Fatal("the row has no check")
			}
			c.check(t, d)
			checkSignatures(t, d)
		})
	}
	for name := range peerCases {
		if !seen[name] {
			t.Errorf("peerCases has a row for %s, which MANIFEST.tsv does not list", name)
		}
	}
}

// parseNoPanic parses data as read from location, failing the test (not
// the run) on a panic.
func parseNoPanic(t *testing.T, data []byte, location string) (d *metalink.Document, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v", r)
		}
	}()
	return metalink.ParseAt(bytes.NewReader(data), location)
}

// checkSignatures checks every signature the document gives against an
// empty keyring: a signature that is junk (aria2's "a signature" and its
// armor of ffff) or has no media type is Unreadable, a warning that does
// not fail a file its hashes vouch for; it is never taken for Bad. A
// well-formed signature by a key the user lacks is UnknownKey.
func checkSignatures(t *testing.T, d *metalink.Document) {
	t.Helper()
	kr := signature.OpenKeyring(t.TempDir())
	for _, f := range d.Files {
		if f.Signature == nil {
			continue
		}
		o, err := kr.Check(f.Signature, strings.NewReader("the file's bytes"))
		if err != nil {
			t.Errorf("%s: check: %v", f.Name, err)
			continue
		}
		switch o.Status {
		case signature.Unreadable, signature.UnknownKey:
		default:
			t.Errorf("%s: signature %v (%s); a signature Braid cannot verify must be unreadable or by an unknown key", f.Name, o.Status, o)
		}
		if err := o.Err(false); err != nil {
			t.Errorf("%s: without --require-signature the signature fails the file: %v", f.Name, err)
		}
		if err := o.Err(true); err == nil {
			t.Errorf("%s: with --require-signature an unverified signature passes", f.Name)
		}
	}
}

// TestPeerCorpusWget2Seeds runs every seed input of wget2's Metalink
// fuzzer (2115 documents, kept packed as the corpus has them) through the
// reader: libwget_metalink_parse_fuzzer asserts that none crashes, and
// Braid must also answer each with a document or an error that says what
// is wrong, in bounded time and memory.
func TestPeerCorpusWget2Seeds(t *testing.T) {
	dir := peercorpus.Dir(t)
	f, err := os.Open(filepath.Join(dir, "metalink", "wget2", "fuzz-corpus.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	n, parsed := 0, 0
	start := time.Now()
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(tr, 16<<20))
		if err != nil {
			t.Fatal(err)
		}
		n++
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic: %v", h.Name, r)
				}
			}()
			d, err := metalink.Parse(bytes.NewReader(data))
			switch {
			case err != nil && !strings.HasPrefix(err.Error(), "metalink: "):
				t.Errorf("%s: error %q does not say it is about the metalink", h.Name, err)
			case err == nil && len(d.Files)+len(d.Rejected) == 0:
				t.Errorf("%s: a document with no file and no error", h.Name)
			case err == nil:
				parsed++
				checkSignatures(t, d)
			}
		}()
	}
	if n < 2000 {
		t.Errorf("only %d seeds in the archive; wget2's corpus has 2115", n)
	}
	t.Logf("%d seeds: %d parsed, %d refused with a message, in %v", n, parsed, n-parsed, time.Since(start).Round(time.Millisecond))
}
