package metalink

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const kernelPath = "/pub/linux/kernel/v2.6/linux-2.6.16.19.tar.bz2"

const rfcSignature = "-----BEGIN PGP SIGNATURE-----\n" +
	"   Version: GnuPG v1.4.10 (GNU/Linux)\n" +
	"   \n" +
	"   iEYEABECAAYFAkrxdXQACgkQeOEcayedXJHqFwCfd1p/HhRf/iDvYhvFbTrQPz+p\n" +
	"   p3oAoO9lKHoOqOE0EMB3zmMcLoYUrNkg\n" +
	"   =ggAf\n" +
	"   -----END PGP SIGNATURE-----"

const v3Signature = "-----BEGIN PGP SIGNATURE-----\n" +
	"Version: GnuPG v1.4.2.2 (GNU/Linux)\n" +
	"Comment: See http://www.kernel.org/signature.html for info\n" +
	"iD8DBQBElLc9yGugalF9Dw4RAsplAJ9Vhjp8IgkMBdGdiYygXtYBcKZ6GwCffyTu\n" +
	"+gY8wsoFmSdAU6UiqakOcyo=\n" +
	"=hcew\n" +
	"-----END PGP SIGNATURE-----"

// TestSpecExamples parses every example of RFC 5854 and the Metalink 3.0
// specification (testdata/spec-*) and checks the model field by field.
func TestSpecExamples(t *testing.T) {
	tests := []struct {
		file string
		want *Document
	}{
		{"spec-v4-example-brief.meta4", &Document{
			Version: 4,
			Files: []File{{
				Name: "example.ext", Size: 14471447,
				URLs: []URL{
					mirror("ftp://ftp.example.com/example.ext", "", LowestPriority),
					mirror("http://example.com/example.ext", "", LowestPriority),
				},
				MetaURLs: []MetaURL{torrent("http://example.com/example.ext.torrent", LowestPriority)},
			}},
		}},
		{"spec-v4-example-extensive.meta4", &Document{
			Version:   4,
			Published: date("2009-05-15T12:23:23Z"),
			Files: []File{{
				Name: "example.ext", Size: 14471447, Identity: "Example", Version: "1.0",
				Languages:   []string{"en"},
				Description: "A description of the example file for download.",
				URLs: []URL{
					mirror("ftp://ftp.example.com/example.ext", "DE", 1),
					mirror("http://example.com/example.ext", "FR", 1),
				},
				MetaURLs: []MetaURL{torrent("http://example.com/example.ext.torrent", 2)},
			}, {
				Name: "example2.ext", Size: 14471447, Identity: "Example2", Version: "1.0",
				Languages:   []string{"en"},
				Description: "Another description for a second file.",
				URLs: []URL{
					mirror("ftp://ftp.example.com/example2.ext", "DE", 1),
					mirror("http://example.com/example2.ext", "FR", 1),
				},
				MetaURLs: []MetaURL{torrent("http://example.com/example2.ext.torrent", 2)},
			}},
			// The RFC elides its sha-256 values with "...": they can never match.
			Warnings: []string{
				`file "example.ext" (line 4): the sha-256 hash is not 64 hexadecimal digits; ignored`,
				`file "example2.ext" (line 21): the sha-256 hash is not 64 hexadecimal digits; ignored`,
			},
		}},
		{"spec-v4-hashes-and-pieces.meta4", &Document{
			Version: 4, Generator: "MirrorBrain/2.11",
			Files: []File{{
				Name: "example.ext", Size: -1,
				Hashes: []Hash{{Type: "sha-1", Value: "a97fcf6ba9358f8a6f62beee4421863d3e52b080"}},
				Pieces: &Pieces{Type: "sha-1", Length: 1048576, Hashes: []string{
					"d96b9a4b92a899c2099b7b31bddb5ca423bb9b30",
					"10d68f4b1119014c123da2a0a6baf5c8a6d5ba1e",
					"3e84219096435c34e092b17b70a011771c52d87a",
					"67183e4c3ab892d3ebe8326b7d79eb62d077f487",
				}},
				URLs: []URL{mirror("http://example.com/example.ext", "", LowestPriority)},
			}},
			Warnings: []string{`file "example.ext" (line 6): the sha-256 hash is not 64 hexadecimal digits; ignored`},
		}},
		{"spec-v4-signature.meta4", &Document{
			Version: 4, Generator: "MetalinkEditor/1.2.0",
			Files: []File{{
				Name: "example.ext", Size: -1,
				Signature: &Signature{MediaType: "application/pgp-signature", Value: rfcSignature},
				URLs:      []URL{mirror("http://example.com/example.ext", "", LowestPriority)},
			}},
		}},
		{"spec-v4-paths.meta4", &Document{
			Version: 4, Generator: "MirrorManager/1.2.11",
			Origin: "http://example.com/debian.meta4", Dynamic: true,
			Updated: time.Date(2010, 5, 1, 11, 15, 2, 250_000_000, time.UTC),
			Files: []File{{
				Name: "debian-amd64/sarge/Contents-amd64.gz", Size: -1,
				URLs: []URL{mirror("http://example.com/debian-amd64/sarge/Contents-amd64.gz", "", LowestPriority)},
				MetaURLs: []MetaURL{{URL: "http://example.com/debian.torrent", MediaType: "torrent",
					Name: "debian-amd64/sarge/Contents-amd64.gz", Priority: LowestPriority}},
			}},
		}},
		{"spec-v3-a1-kernel.metalink", &Document{
			Version:   3,
			Generator: "Metalink Gen - http://metalink.packages.ro",
			Origin:    "http://metalink.packages.ro/download/download/kernel/linux-2.6.16.19.tar.bz2.metalink",
			Published: date("2006-06-09T18:56:57Z"),
			Updated:   date("2006-06-09T18:56:57Z"),
			Files: []File{{
				Name: "linux-2.6.16.19.tar.bz2", Size: 40836905,
				// identity, version, description, publisher and licence are
				// given for the whole document and apply to the file.
				Identity: "linux-2.6.16.19.tar.bz2", Version: "2.6.16.19", Description: "Linux kernel",
				Publisher: Party{Name: "Package resources", URL: "http://www.packages.ro"},
				License:   Party{Name: "GPL", URL: "http://www.gnu.org/copyleft/gpl.html"},
				OS:        []string{"Linux-x86"},
				Hashes:    []Hash{{Type: "md5", Value: "b1e3c65992b0049fdbee825eb2a856af"}},
				URLs: []URL{
					mirror("http://ftp.roedu.net/mirrors/ftp.kernel.org"+kernelPath, "RO", 91),
					mirror("http://ftp.at.kernel.org"+kernelPath, "AT", 91),
					mirror("http://ftp.al.kernel.org"+kernelPath, "AL", 91),
					mirror("http://ftp.ad.kernel.org"+kernelPath, "AD", 91),
					mirror("http://ftp.aq.kernel.org"+kernelPath, "AQ", 91),
					mirror("http://ftp.ag.kernel.org"+kernelPath, "AG", 91),
					mirror("http://ftp.ar.kernel.org"+kernelPath, "AR", 91),
					mirror("http://ftp.am.kernel.org"+kernelPath, "AM", 91),
				},
			}},
		}},
		{"spec-v3-a2-nero.metalink", neroWant()},
		{"spec-v3-header.metalink", &Document{
			Version: 3, Generator: "manual", Dynamic: true,
			Origin:    "http://www.example.com/m3/file.metalink",
			Published: date("2006-05-15T00:00:01Z"),
			Updated:   date("2006-05-15T12:00:01Z"),
			Files: []File{{
				Name: "debian-amd64/dists/sarge/Contents-amd64.gz", Size: 1000, MaxConnections: 1,
				Identity: "OpenOffice.org", Version: "2.0",
				Description: "This is a text description of the file.",
				Logo:        "http://www.example.com/logo.png",
				Copyright:   "Copyright 2006 Example",
				Publisher:   Party{Name: "Arch Linux", URL: "http://www.archlinux.org/"},
				License:     Party{Name: "GPL", URL: "http://www.gnu.org/copyleft/gpl.html"},
				Languages:   []string{"pt-BR"},
				OS:          []string{"Solaris-SPARC"},
				// <resources maxconnections="1"> is the file's limit, and
				// so caps every mirror's, the "2" of the first included.
				URLs: []URL{
					{URL: "ftp://ftp.example.com/example.ext", Location: "UK", Priority: 1, MaxConnections: 1},
					{URL: "http://www.example.com/example.ext", Location: "JP", Priority: 100, MaxConnections: 1},
				},
			}},
		}},
		{"spec-v3-verification.metalink", &Document{
			Version: 3,
			Files: []File{{
				Name: "linux.tar.bz2", Size: -1,
				Signature: &Signature{MediaType: "application/pgp-signature", Value: v3Signature},
				URLs:      []URL{mirror("http://www.example.com/linux.tar.bz2", "", 100)},
			}},
			// The spec's placeholders ("example-sha1-hash") are not hashes.
			Warnings: []string{
				`file "linux.tar.bz2" (line 5): the md5 hash is not 32 hexadecimal digits; ignored`,
				`file "linux.tar.bz2" (line 5): the sha-1 hash is not 40 hexadecimal digits; ignored`,
				`file "linux.tar.bz2" (line 5): the sha-1 piece hashes (line 9) are dropped: the hash of piece 0 is not 40 hexadecimal digits; the whole-file hash still decides`,
			},
		}},
		{"spec-v3-bittorrent.metalink", &Document{
			Version: 3,
			// The embedded <bittorrent> block, with a <file>, <size> and
			// <verification> of its own, is not taken for the file's.
			Files: []File{{
				Name: "filename.ext", Size: -1,
				MetaURLs: []MetaURL{torrent("http://www.example.com/example.torrent", 100)},
			}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			checkDoc(t, parseTestdata(t, tt.file), tt.want)
		})
	}
}

func neroWant() *Document {
	const (
		usw    = "ftp://ftp2.usw.nero.com/software/nero7/"
		hspeed = "ftp://nero-mirror.hspeed.net/software/Nero7/"
		httpdl = "http://httpdl2.usw.nero.com/software/nero7/"
	)
	common := File{
		Identity: "Nero Ultra Edition", Version: "7.0.1.4b",
		Description: "Nero Ultra Edition 7 - CD/DVD Authoring suite",
		Copyright:   "Copyright 2006 Nero AG / Nero Inc.",
		Publisher:   Party{Name: "Nero AG", URL: "http://www.nero.com/"},
		OS:          []string{"Windows-x86"},
	}
	eng, chs, deu := common, common, common
	eng.Name, eng.Size, eng.Languages = "Nero-7.0.1.4b_eng.exe", 106797808, []string{"en-US"}
	eng.Hashes = []Hash{{Type: "md5", Value: "b86eaee3dc7f511c7b93cddb1f1bcaac"}}
	// preference 80 -> priority 21, 40 -> 61; ties keep document order.
	eng.URLs = []URL{
		mirror(usw+"Nero-7.0.1.4b_eng.exe", "US", 21),
		mirror(httpdl+"Nero-7.0.1.4b_eng.exe", "US", 21),
		mirror("ftp://nero-mirror.com/software/Nero7/Nero-7.0.1.4b_eng.exe", "DE", 61),
		mirror(hspeed+"Nero-7.0.1.4b_eng.exe", "DE", 61),
	}
	eng.MetaURLs = []MetaURL{torrent(hspeed+"Nero-7.0.1.4b_eng.exe.torrent", 1)}

	chs.Name, chs.Size, chs.Languages = "Nero-7.0.1.4b_chs.exe", 112296416, []string{"zh-Hans"}
	// The spec writes this file's hash as <md5>...</md5>.
	chs.Hashes = []Hash{{Type: "md5", Value: "cccd7f891ff81b30b9152479d2efcda2"}}
	chs.URLs = []URL{mirror(hspeed+"Nero-7.0.1.4b_chs.exe", "DE", 61)}
	chs.MetaURLs = []MetaURL{torrent(hspeed+"Nero-7.0.1.4b_chs.exe.torrent", 1)}

	deu.Name, deu.Size, deu.Languages = "Nero-7.0.1.4b_deu.exe", 112422536, []string{"de"}
	deu.Hashes = []Hash{{Type: "md5", Value: "44b04c2b0a49ec59da26706dfb969158"}}
	deu.URLs = []URL{
		mirror(usw+"Nero-7.0.1.4b_deu.exe", "US", 21),
		mirror(httpdl+"Nero-7.0.1.4b_deu.exe", "US", 21),
	}
	deu.MetaURLs = []MetaURL{torrent(hspeed+"Nero-7.0.1.4b_deu.exe.torrent", 1)}

	return &Document{
		Version:   3,
		Origin:    "http://www.nero.com/mmm/nero-7.0.1.4b.metalink",
		Published: date("2005-12-22T22:04:25Z"),
		Updated:   date("2005-12-23T03:24:18Z"),
		Files:     []File{eng, chs, deu},
	}
}

// The two examples of Metalink 3.0 section 4.1.2.5 end with "<metalink>"
// where "</metalink>" is meant. As printed they are truncated documents;
// with the typo corrected they parse.
func TestSpecV3MinimalExamples(t *testing.T) {
	tests := []struct {
		file string
		want *Document
	}{
		{"spec-v3-4.1.2.5-typed.metalink", &Document{
			Version: 3,
			Files: []File{{
				Name: "example.ext", Size: -1,
				URLs: []URL{
					mirror("ftp://ftp.example.com/example.ext", "", 100),
					mirror("http://www.example.com/example.ext", "", 100),
				},
				MetaURLs: []MetaURL{torrent("http://www.example.net/file.torrent", 100)},
			}},
		}},
		{"spec-v3-4.1.2.5-untyped.metalink", &Document{
			Version: 3,
			Files: []File{{
				Name: "example.ext", Size: -1,
				URLs: []URL{
					mirror("http://example.com/example.ext", "", 100),
					mirror("http://example2.com/example.ext", "", 100),
				},
				// "By examining the end of a URL, you can tell if it is for BitTorrent."
				MetaURLs: []MetaURL{torrent("http://example3.com/example.ext.torrent", 100)},
			}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse(strings.NewReader(string(data)))
			var se *SyntaxError
			if !errors.Is(err, ErrTruncated) || !errors.As(err, &se) || se.Line == 0 {
				t.Fatalf("as printed: err = %v, want a truncation error with a line", err)
			}
			if !strings.Contains(err.Error(), "expected </metalink>") {
				t.Errorf("error %q does not say </metalink> was expected", err)
			}
			fixed := strings.TrimSuffix(string(data), "<metalink>\n") + "</metalink>\n"
			checkDoc(t, parseString(t, fixed), tt.want)
		})
	}
}

// RFC 5854 §3.2: the four date construct examples, and what a signed
// Metalink 4 must hold to: RFC 3339 dates read exactly.
func TestSpecDateConstructs(t *testing.T) {
	tests := []struct {
		value string
		want  time.Time
	}{
		{"2010-05-01T12:15:02Z", time.Date(2010, 5, 1, 12, 15, 2, 0, time.UTC)},
		{"2010-05-01T12:15:02.25Z", time.Date(2010, 5, 1, 12, 15, 2, 250_000_000, time.UTC)},
		{"2010-05-01T12:15:02+01:00", time.Date(2010, 5, 1, 11, 15, 2, 0, time.UTC)},
		{"2010-05-01T12:15:02.25+01:00", time.Date(2010, 5, 1, 11, 15, 2, 250_000_000, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			doc := parseString(t, `<metalink xmlns="urn:ietf:params:xml:ns:metalink"><updated>`+tt.value+
				`</updated><published>`+tt.value+`</published><file name="f"><url>http://x/f</url></file></metalink>`)
			if !doc.Updated.Equal(tt.want) || !doc.Published.Equal(tt.want) {
				t.Errorf("updated %v, published %v; want %v", doc.Updated, doc.Published, tt.want)
			}
			if len(doc.Warnings) != 0 {
				t.Errorf("warnings %q for an RFC 3339 date", doc.Warnings)
			}
		})
	}
}

// RFC 5854 §4.2.3: the generator examples.
func TestSpecGenerators(t *testing.T) {
	for _, g := range []string{"MirrorBrain/2.11", "MirrorManager/1.2.11", "metalinktools/0.3.6", "MetalinkEditor/1.2.0"} {
		t.Run(g, func(t *testing.T) {
			doc := parseString(t, `<metalink xmlns="urn:ietf:params:xml:ns:metalink"><generator>`+g+
				`</generator><file name="f"><url>http://x/f</url></file></metalink>`)
			if doc.Generator != g {
				t.Errorf("Generator = %q, want %q", doc.Generator, g)
			}
		})
	}
}
