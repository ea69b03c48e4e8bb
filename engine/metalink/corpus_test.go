package metalink

import (
	"testing"
	"time"
)

// The corpus in testdata/ is written in the shapes real producers emit
// (MirrorBrain's mod_mirrorbrain, Fedora's MirrorManager, openSUSE's
// MirrorCache, people with text editors), with made-up hosts and hashes.

const (
	leapISO  = "openSUSE-Leap-15.6-NET-x86_64-Media.iso"
	leapDir  = "/distribution/leap/15.6/iso/" + leapISO
	mbOrigin = "http://download.example.org" + leapDir
	mbSig    = "-----BEGIN PGP SIGNATURE-----\n" +
		"Version: GnuPG v2.0.22 (GNU/Linux)\n\n" +
		"iQEcBAABAgAGBQJVVx8bAAoJEDTXUu9lMNOQ1DYH/3EJkbCzQ2d8xQf1u8aVQ2qE\n" +
		"Rt7Lx0jzm3n7yZ8pP3B2Nq1cZ8Fh0rA5Y9wK7w==\n" +
		"=Xq3v\n" +
		"-----END PGP SIGNATURE-----"
	mbMagnet = "magnet:?xt=urn:btih:23a174c21ff5a74d1429e90287dbbc37ad9cde68&dn=" + leapISO

	kernelRPM = "kernel-default-6.4.0-150600.23.25.1.x86_64.rpm"
	mcPath    = "/distribution/leap/15.6/repo/oss/x86_64/" + kernelRPM
	mcOrigin  = "https://mirrorcache.example.org" + mcPath

	repomd = "/Everything/x86_64/repodata/repomd.xml"
)

var (
	mbHashes = []Hash{
		{Type: "md5", Value: "cf942098fbd86c50e13943311c582379"},
		{Type: "sha-1", Value: "e76d9354e8c216fff84e423abd5aaffbcdb95eb1"},
		{Type: "sha-256", Value: "2332c346383a169f291f8a37980420bd9051b948b796fc57b285305bff8cf59a"},
	}
	mbPieces = &Pieces{Type: "sha-1", Length: 262144, Hashes: []string{
		"6c62adbb9e35a68203a936d21754ae710c7b439a",
		"954fa126f042e94f9c3d7c84883345c3979782bc",
		"2d2ebad6aa90a361a6064aa550f9405476edcdcc",
		"a6ee5223db91f1d8842be4a8fc46a0a0e55d878d",
	}}
	openSUSE = Party{Name: "openSUSE", URL: "http://download.opensuse.org"}

	mcHashes = []Hash{
		{Type: "md5", Value: "b29dc104410ab53d69a4fd0e312156fe"},
		{Type: "sha-1", Value: "a429adbac99a30594394476890260552da65c53e"},
		{Type: "sha-256", Value: "32fd453b98d5ab07b21a85cbeccaad46b7b6bf17fedf8addf022b26c339d115c"},
		{Type: "sha-512", Value: "7a5c47286b5a32732ac9107e791c5448c2f084faaf0327feb3112ccd934b03660c1bf460045a6f6c70ead9ee91a9a46c6debee43777cd4fcada44dfd4b129c33"},
	}
	mcPieces = &Pieces{Type: "sha-1", Length: 1048576, Hashes: []string{
		"aa2028c862e3147b6d40da52056ccac7a2365685",
		"e914ea9b64e198692fc5be658e2e45e959071206",
		"93bb72692834dc9fbe585d6f6f8fb2c5027de42e",
	}}
)

func TestProducerCorpus(t *testing.T) {
	mbMirrors := []URL{
		mirror("http://ftp.uni-example.de/opensuse"+leapDir, "DE", 1),
		mirror("http://mirror.example.de/pub/opensuse"+leapDir, "DE", 2),
		mirror("ftp://ftp.example.de/pub/opensuse"+leapDir, "DE", 3),
		mirror("http://mirror.example.nl/opensuse"+leapDir, "NL", 4),
		mirror("https://mirrors.example.com/opensuse"+leapDir, "US", 5),
	}
	tests := []struct {
		file string
		want *Document
	}{
		{"mirrorbrain.meta4", &Document{
			Version: 4, Generator: "MirrorBrain/2.19.0",
			Origin: mbOrigin + ".meta4", Dynamic: true,
			Published: date("2025-11-22T16:53:00Z"),
			Files: []File{{
				Name: leapISO, Size: 1000000,
				// MirrorBrain's top-level <publisher> applies to the file.
				Publisher: openSUSE,
				Hashes:    mbHashes,
				Pieces:    mbPieces,
				Signature: &Signature{MediaType: "application/pgp-signature", Value: mbSig},
				URLs:      mbMirrors,
				// MirrorBrain writes its v3-style <url type="bittorrent"> into
				// Metalink 4 too, and its magnet link as a torrent metaurl.
				MetaURLs: []MetaURL{
					torrent(mbOrigin+".torrent", LowestPriority),
					torrent(mbMagnet+"&tr=http%3A%2F%2Ftracker.example.org%2Fannounce", LowestPriority),
				},
			}},
		}},
		{"mirrorbrain.metalink", &Document{
			Version:   3,
			Generator: "MirrorBrain 2.19.0 (see http://mirrorbrain.org/)",
			Origin:    mbOrigin + ".metalink", Dynamic: true,
			Published: date("2025-11-22T16:53:00Z"),
			Updated:   date("2025-11-22T16:53:00Z"),
			Files: []File{{
				Name: leapISO, Size: 1000000,
				Publisher: openSUSE,
				Hashes:    mbHashes, // sha1 and sha256 spelled the v3 way
				Pieces:    mbPieces, // <hash piece="N">
				Signature: &Signature{MediaType: "application/pgp-signature", Value: mbSig},
				// preference 100, 99, ... becomes priority 1, 2, ...
				URLs: mbMirrors,
				MetaURLs: []MetaURL{
					torrent(mbOrigin+".torrent", 1),
					torrent(mbMagnet, 1),
				},
			}},
		}},
		{"mirrormanager.metalink", &Document{
			Version: 3, Generator: "mirrormanager", Dynamic: true,
			Published: date("2025-11-22T16:53:00Z"),
			Files: []File{{
				// The <size> and hashes inside <mm0:alternates> are older
				// versions of repomd.xml and must not replace these.
				Name: "repomd.xml", Size: 6912, MaxConnections: 1,
				Hashes: []Hash{
					{Type: "md5", Value: "22cf668e8d2411ff563dc2e48643b617"},
					{Type: "sha-1", Value: "bf97492a3fbceee67319d775da2480a986e0376a"},
					{Type: "sha-256", Value: "02ee58b0c604baafdff61145d5dd640e245d124c961aedbd164d75cd14584cc8"},
					{Type: "sha-512", Value: "165785d0e89b0bfb4d91e8d4a40390e2a4b4f8462badf152073a38dc7aa851117166c5c2d5da08f9b9fc3ea0df4b2c0e72a1f7e1a71fb19207d5a544ebf26f58"},
				},
				// <resources maxconnections="1">; rsync is kept as data.
				URLs: []URL{
					{URL: "https://ftp.example.de/fedora/linux/updates/43" + repomd, Location: "DE", Priority: 1, MaxConnections: 1},
					{URL: "http://ftp.example.de/fedora/linux/updates/43" + repomd, Location: "DE", Priority: 1, MaxConnections: 1},
					{URL: "rsync://ftp.example.de/fedora/linux/updates/43" + repomd, Location: "DE", Priority: 1, MaxConnections: 1},
					{URL: "https://mirror.example.at/fedora/updates/43" + repomd, Location: "AT", Priority: 2, MaxConnections: 1},
					{URL: "https://mirror.example.cz/fedora/linux/updates/43" + repomd, Location: "CZ", Priority: 3, MaxConnections: 1},
				},
			}},
		}},
		{"mirrorcache.meta4", &Document{
			Version: 4, Generator: "MirrorCache",
			Origin: mcOrigin, Dynamic: true,
			Published: date("2025-11-22T16:53:00Z"),
			Files: []File{{
				Name: kernelRPM, Size: 2500000,
				Publisher: openSUSE,
				Hashes:    mcHashes,
				Pieces:    mcPieces,
				URLs: []URL{
					mirror("https://mirror.example.cz/opensuse"+mcPath, "CZ", 1),
					mirror("http://ftp.example.cz/pub/opensuse"+mcPath, "CZ", 2),
					mirror("https://mirror.example.de/opensuse"+mcPath, "DE", 3),
					mirror("http://mirror.example.sk/opensuse"+mcPath, "SK", 4),
					mirror("https://mirrors.example.com/opensuse"+mcPath, "US", 5),
					mirror("https://downloadcontent.example.org"+mcPath, "", 6), // location=""
				},
				MetaURLs: []MetaURL{torrent(mcOrigin+".torrent", 1)},
			}},
		}},
		{"mirrorcache.metalink", &Document{
			Version: 3, Generator: "MirrorCache",
			Origin: mcOrigin + ".metalink", Dynamic: true,
			Published: date("2025-11-22T16:53:00Z"), // "2025-11-22 16:53:00 UTC"
			Files: []File{{
				Name: kernelRPM, Size: 2500000,
				Publisher: openSUSE,
				Hashes:    mcHashes, // Metalink 4 names (sha-256) in a Metalink 3 document
				Pieces:    mcPieces,
				URLs: []URL{
					mirror("https://mirror.example.cz/opensuse"+mcPath, "CZ", 1),
					mirror("http://ftp.example.cz/pub/opensuse"+mcPath, "CZ", 2),
					mirror("https://mirror.example.de/opensuse"+mcPath, "DE", 3),
				},
			}},
		}},
		{"handwritten.metalink", &Document{
			Version: 3, Generator: "vim",
			Files: []File{{
				Name: "tools/frobnicate-1.2.tar.gz", Size: 123456,
				Hashes: []Hash{
					{Type: "sha-1", Value: "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"},
					{Type: "sha-256", Value: "9f86d081884c7d659a2feae0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
					{Type: "md5", Value: "098f6bcd4621d373cade4e832627b4f6"},
					{Type: "sha-512", Value: "ee26b0dd4af7e749aa1a8ee3c10ae9923f618980772e473f8819a5d4940e0db27ac185f8a0e1d5f84f88bc887fd67b143732c304cc5fa9ad8e6f57f50028a8ff"},
					{Type: "tiger", Value: "abcdef0123456789"},
				},
				URLs: []URL{
					mirror("ftp://ftp.example.de/pub/frobnicate-1.2.tar.gz", "DE", 1),
					mirror("http://example.com/tools/frobnicate-1.2.tar.gz", "US", 11),
					mirror("http://mirror.example.co.uk/frobnicate-1.2.tar.gz", "GB", 51),
					mirror("ed2k://|file|frobnicate-1.2.tar.gz|123456|0123456789ABCDEF0123456789ABCDEF|/", "", 100),
					mirror("http://last.example.net/frobnicate-1.2.tar.gz", "", 100), // location "xx1", preference "high"
				},
				MetaURLs: []MetaURL{torrent("magnet:?xt=urn:sha1:A94A8FE5CCB19BA61C4C0873D391E987982FBBD3&dn=frobnicate-1.2.tar.gz", 100)},
			}},
			Warnings: []string{
				`file "tools/frobnicate-1.2.tar.gz" (line 6): the hash type "tiger" is unknown; kept, but not checked`,
				`file "tools/frobnicate-1.2.tar.gz" (line 6): 1 mirror preferences were outside 1..100 or not numbers; those mirrors count as having none (tried last)`,
			},
		}},
		{"latin1.meta4", &Document{
			Version: 4,
			Files: []File{{
				Name: "café-crème.pdf", Size: 2048,
				Description: "Recette de crème brûlée à la française, © Piñata Übersetzung",
				Copyright:   "© 2025 Éditions Exemple",
				URLs:        []URL{mirror("http://example.fr/caf%C3%A9-cr%C3%A8me.pdf", "FR", LowestPriority)},
			}},
		}},
		{"utf16le-bom.meta4", &Document{
			Version: 4,
			Files: []File{{
				Name: "exämple.ext", Size: 14471447,
				URLs: []URL{
					mirror("ftp://ftp.example.com/example.ext", "", LowestPriority),
					mirror("http://example.com/example.ext", "", LowestPriority),
				},
				MetaURLs: []MetaURL{torrent("http://example.com/example.ext.torrent", LowestPriority)},
			}},
		}},
		{"prefixed-root.meta4", &Document{
			Version: 4, Generator: "prefix-writer/1.0",
			// Elements are matched by namespace: the unprefixed <file>,
			// <size> and <url> here are in another vocabulary, and so is the
			// <ml:url> whose prefix is bound anew.
			Files: []File{{
				Name: "real.bin", Size: 4096,
				Hashes: []Hash{{Type: "sha-256", Value: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}},
				URLs:   []URL{mirror("https://example.se/real.bin", "SE", 7)},
			}},
		}},
		{"https-namespace.metalink", &Document{
			Version:   3,
			Published: time.Date(2025, 4, 1, 8, 0, 0, 0, time.UTC),
			Files: []File{{
				Name: "hello.txt", Size: 6,
				Hashes: []Hash{{Type: "sha-256", Value: "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"}},
				URLs:   []URL{mirror("https://example.nz/hello.txt", "NZ", 100)},
			}},
		}},
		{"signed.meta4", &Document{
			Version:   4,
			Published: date("2024-02-29T23:59:59Z"),
			Files: []File{{
				Name: "signed.bin", Size: 10,
				Hashes: []Hash{{Type: "sha-256", Value: "01ba4719c80b6fe911b091a7c05124b64eeece964e09c058ef8f9805daca546b"}},
				URLs:   []URL{mirror("https://example.org/signed.bin", "", LowestPriority)},
			}},
			Warnings: []string{"line 12: the document carries an XML signature, which Braid does not verify"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			checkDoc(t, parseTestdata(t, tt.file), tt.want)
		})
	}
}

// TestPiecesEdgeCases: pieces that cannot be right are dropped with a
// warning and the rest of the document stands.
func TestPiecesEdgeCases(t *testing.T) {
	doc := parseTestdata(t, "pieces-edge.meta4")
	want := map[string]struct {
		typ    string // "" for no pieces
		length int64
		count  int
	}{
		"two-types.bin":   {"sha-256", 1024, 3}, // the stronger of two valid sets
		"too-few.bin":     {},                   // 2 hashes where 3000/1024 needs 3
		"zero-length.bin": {},                   // length 0
		"tiger.bin":       {"tiger", 1024, 2},   // unknown type: kept as data
		"one-bad.bin":     {"sha-1", 1024, 1},   // the sha-256 set has a short hash
		"no-size.bin":     {"sha-1", 1048576, 5},
		"empty.bin":       {}, // a 0-byte file has no pieces
	}
	if len(doc.Files) != len(want) {
		t.Fatalf("%d files, want %d", len(doc.Files), len(want))
	}
	for _, f := range doc.Files {
		w, ok := want[f.Name]
		if !ok {
			t.Errorf("unexpected file %q", f.Name)
			continue
		}
		switch {
		case w.typ == "" && f.Pieces != nil:
			t.Errorf("%s: pieces %s/%d kept, want dropped", f.Name, f.Pieces.Type, f.Pieces.Length)
		case w.typ != "" && f.Pieces == nil:
			t.Errorf("%s: pieces dropped, want %s", f.Name, w.typ)
		case w.typ != "" && (f.Pieces.Type != w.typ || f.Pieces.Length != w.length || len(f.Pieces.Hashes) != w.count):
			t.Errorf("%s: pieces %s/%d/%d, want %s/%d/%d", f.Name, f.Pieces.Type, f.Pieces.Length, len(f.Pieces.Hashes), w.typ, w.length, w.count)
		}
	}
	wantWarnings := []string{
		`file "too-few.bin" (line 17): the sha-1 piece hashes (line 19) are dropped: 2 hashes for a 3000-byte file in 1024-byte pieces, which needs 3; the whole-file hash still decides`,
		`file "zero-length.bin" (line 25): the sha-1 piece hashes (line 27) are dropped: the piece length "0" is not a positive number; the whole-file hash still decides`,
		`file "tiger.bin" (line 34): the piece hashes are of type "tiger", which Braid cannot check; kept as data`,
		`file "one-bad.bin" (line 42): the sha-256 piece hashes (line 44) are dropped: the hash of piece 0 is not 64 hexadecimal digits; the whole-file hash still decides`,
		`file "empty.bin" (line 62): the sha-1 piece hashes (line 64) are dropped: 1 hashes for a 0-byte file in 1024-byte pieces, which needs 0; the whole-file hash still decides`,
	}
	checkDoc(t, &Document{Warnings: doc.Warnings}, &Document{Warnings: wantWarnings})
	if doc.Files[0].Pieces.Hashes[0] != "c02c0b965e023abee808f2b548d8d5193a8b5229be6f3121a6f16e2d41a449b3" {
		t.Errorf("two-types.bin piece 0 = %s, want sha256(\"b0\")", doc.Files[0].Pieces.Hashes[0])
	}
}
