package metalink

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

func TestParseLinks(t *testing.T) {
	dup := func(url string) Link { return Link{URL: url, Rel: "duplicate", Priority: LowestPriority} }
	tests := []struct {
		name   string
		values []string
		want   []Link
	}{
		{"empty", nil, nil},
		{"one", []string{`<http://a.example/f.iso>; rel=duplicate`}, []Link{dup("http://a.example/f.iso")}},
		{
			"rfc 6249 attributes",
			[]string{`<http://www2.example.com/example.ext>; rel=duplicate; pri=1; pref`,
				`<ftp://ftp.example.com/example.ext>; rel=duplicate; pri=2; geo=gb; depth=1`},
			[]Link{
				{URL: "http://www2.example.com/example.ext", Rel: "duplicate", Priority: 1, Pref: true},
				{URL: "ftp://ftp.example.com/example.ext", Rel: "duplicate", Priority: 2, Geo: "GB", Depth: 1},
			},
		},
		{
			"several links in one value",
			[]string{`<http://a/x>; rel=duplicate, <http://b/x>; rel="duplicate"; pri=3,<http://c/x>;rel=duplicate`},
			[]Link{dup("http://a/x"), {URL: "http://b/x", Rel: "duplicate", Priority: 3}, dup("http://c/x")},
		},
		{
			"describedby with quoted type and parameters",
			[]string{`<http://example.com/example.ext.meta4>; rel=describedby; type="application/metalink4+xml"`,
				`<http://example.com/example.ext.torrent>; rel=describedby; type="Application/X-BitTorrent; charset=x"; name="differentname.ext"`},
			[]Link{
				{URL: "http://example.com/example.ext.meta4", Rel: "describedby", Type: "application/metalink4+xml", Priority: LowestPriority},
				{URL: "http://example.com/example.ext.torrent", Rel: "describedby", Type: "application/x-bittorrent", Priority: LowestPriority},
			},
		},
		{
			"odd spacing and case",
			[]string{"  < http://a/x >\t;REL = \"Duplicate\" ;  PRI= 7 ; Geo =de;PREF  ,  "},
			[]Link{{URL: "http://a/x", Rel: "duplicate", Priority: 7, Geo: "DE", Pref: true}},
		},
		{
			"commas inside url and quotes",
			[]string{`<http://a/x?list=1,2,3>; rel=duplicate; title="a, b; c", <http://b/y>; rel=duplicate`},
			[]Link{dup("http://a/x?list=1,2,3"), dup("http://b/y")},
		},
		{
			"escaped quote in quoted string",
			[]string{`<http://a/x>; title="say \"hi\", ok"; rel=duplicate`},
			[]Link{dup("http://a/x")},
		},
		{"relative url kept", []string{`</mirror/x.iso>; rel=duplicate`}, []Link{dup("/mirror/x.iso")}},
		{
			"several rel types",
			[]string{`<http://a/x>; rel="duplicate describedby"; type=application/metalink4+xml`},
			[]Link{
				{URL: "http://a/x", Rel: "duplicate", Type: "application/metalink4+xml", Priority: LowestPriority},
				{URL: "http://a/x", Rel: "describedby", Type: "application/metalink4+xml", Priority: LowestPriority},
			},
		},
		{"first rel wins", []string{`<http://a/x>; rel=duplicate; rel=describedby`}, []Link{dup("http://a/x")}},
		{"no rel skipped", []string{`<http://a/x>; pri=1, <http://b/x>; rel=duplicate`}, []Link{dup("http://b/x")}},
		{"empty params", []string{`<http://a/x>;;; rel=duplicate;;`}, []Link{dup("http://a/x")}},
		{"empty rel value", []string{`<http://a/x>; rel=`, `<http://b/x>; rel=""`}, nil},
		{
			"bad attribute values ignored",
			[]string{`<http://a/x>; rel=duplicate; pri=0; geo=germany; depth=-1`,
				`<http://b/x>; rel=duplicate; pri=1000000; geo=1x; depth=x`,
				`<http://c/x>; rel=duplicate; pri=abc; geo="d"; depth=4097`},
			[]Link{dup("http://a/x"), dup("http://b/x"), dup("http://c/x")},
		},
		{
			"depth at its bound",
			[]string{`<http://a/x>; rel=duplicate; depth=4096`},
			[]Link{{URL: "http://a/x", Rel: "duplicate", Priority: LowestPriority, Depth: MaxMirrorDepth}},
		},
		{
			"junk value skipped, rest kept",
			[]string{`garbage, <http://a/x>; rel=duplicate junk "q,x", <http://b/x>; rel=duplicate`},
			[]Link{dup("http://b/x")},
		},
		{"unterminated url", []string{`<http://a/x; rel=duplicate`}, nil},
		{"unterminated quote", []string{`<http://a/x>; rel="duplicate`}, []Link{dup("http://a/x")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseLinks(tc.values)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseLinks(%q)\n got %+v\nwant %+v", tc.values, got, tc.want)
			}
		})
	}
}

func TestParseLinksBounded(t *testing.T) {
	v := strings.Repeat(`<http://a/x>; rel=duplicate, `, MaxLinks+10)
	if got := len(ParseLinks([]string{v, v})); got != MaxLinks {
		t.Fatalf("got %d links, want MaxLinks=%d", got, MaxLinks)
	}
}

func TestParseDigests(t *testing.T) {
	data := []byte("braid test data\n")
	s256 := sha256.Sum256(data)
	s512 := sha512.Sum512(data)
	s384 := sha512.Sum384(data)
	s1 := sha1.Sum(data)
	m5 := md5.Sum(data)
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	h := func(typ string, b []byte) Hash { return Hash{Type: typ, Value: hex.EncodeToString(b)} }
	tests := []struct {
		name   string
		values []string
		want   []Hash
	}{
		{"empty", nil, nil},
		{"sha-256", []string{"SHA-256=" + b64(s256[:])}, []Hash{h("sha-256", s256[:])}},
		{
			"several in one value, any case",
			[]string{"sha-512=" + b64(s512[:]) + " , SHA=" + b64(s1[:]) + ",md5=" + b64(m5[:])},
			[]Hash{h("sha-512", s512[:]), h("sha-1", s1[:]), h("md5", m5[:])},
		},
		{
			"several values",
			[]string{"SHA-384=" + b64(s384[:]), "SHA-256=" + b64(s256[:])},
			[]Hash{h("sha-384", s384[:]), h("sha-256", s256[:])},
		},
		{
			"unknown algorithms skipped",
			[]string{"UNIXsum=30637, ADLER32=AAAAAA==, SHA-256=" + b64(s256[:])},
			[]Hash{h("sha-256", s256[:])},
		},
		{"bad base64 skipped", []string{"SHA-256=!!!not base64!!!, MD5=" + b64(m5[:])}, []Hash{h("md5", m5[:])}},
		{"wrong length skipped", []string{"SHA-256=" + b64(m5[:])}, nil},
		{"unpadded base64", []string{"SHA-256=" + strings.TrimRight(b64(s256[:]), "=")}, []Hash{h("sha-256", s256[:])}},
		{"structured-field colons", []string{"sha-256=:" + b64(s256[:]) + ":"}, []Hash{h("sha-256", s256[:])}},
		{
			"base64 of hex (RFC 6249 example)",
			[]string{"SHA-256=MWVkMWQxYTRiMzk5MDQ0MzI3NGU5NDEyZTk5OWY1ZGFmNzgyZTJlODYzYjRjYzFhOTlmNTQwYzI2M2QwM2U2MQ=="},
			[]Hash{{Type: "sha-256", Value: "1ed1d1a4b3990443274e9412e999f5daf782e2e863b4cc1a99f540c263d03e61"}},
		},
		{
			"first of one algorithm wins",
			[]string{"SHA-256=" + b64(s256[:]), "SHA-256=" + b64(s512[:32])},
			[]Hash{h("sha-256", s256[:])},
		},
		{"no equals", []string{"SHA-256", ",,,", "="}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseDigests(tc.values)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseDigests(%q)\n got %+v\nwant %+v", tc.values, got, tc.want)
			}
		})
	}
}

func FuzzParseLinks(f *testing.F) {
	for _, s := range []string{
		`<http://www2.example.com/example.ext>; rel=duplicate; pri=1; pref`,
		`<ftp://ftp.example.com/example.ext>; rel=duplicate; pri=2; geo=gb; depth=1`,
		`<http://example.com/example.ext.meta4>; rel=describedby; type="application/metalink4+xml"`,
		`<http://a/x?l=1,2>; rel="duplicate describedby"; title="a, \"b\"", </r>; rel=duplicate`,
		`garbage, <x; rel=duplicate "unterminated`,
		`;;,,<>;=;rel`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		links := ParseLinks([]string{v, v})
		if len(links) > MaxLinks {
			t.Fatalf("%d links", len(links))
		}
		for _, l := range links {
			if l.Rel == "" || l.Rel != strings.ToLower(l.Rel) || strings.ContainsAny(l.Rel, " \t") {
				t.Fatalf("bad rel %q", l.Rel)
			}
			if l.Priority < 1 || l.Priority > LowestPriority || l.Depth < 0 || l.Depth > MaxMirrorDepth {
				t.Fatalf("bad priority/depth %+v", l)
			}
			if l.Geo != "" && (len(l.Geo) != 2 || l.Geo != strings.ToUpper(l.Geo)) {
				t.Fatalf("bad geo %q", l.Geo)
			}
			if l.Type != strings.ToLower(l.Type) {
				t.Fatalf("type not lower case: %q", l.Type)
			}
		}
	})
}

func FuzzParseDigests(f *testing.F) {
	for _, s := range []string{
		"SHA-256=MWVkMWQxYTRiMzk5MDQ0MzI3NGU5NDEyZTk5OWY1ZGFmNzgyZTJlODYzYjRjYzFhOTlmNTQwYzI2M2QwM2U2MQ==",
		"md5=HUXZLQLMuI/KZ5KDcJPcOA==, SHA=qvTGHdzF6KLavt4PO0gs2a6pQ00=",
		"sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:",
		"UNIXsum=30637,,=,SHA-512",
	} {
		f.Add(s)
	}
	sizes := map[string]int{"sha-512": 64, "sha-384": 48, "sha-256": 32, "sha-1": 20, "md5": 16}
	f.Fuzz(func(t *testing.T, v string) {
		seen := map[string]bool{}
		for _, h := range ParseDigests([]string{v, v}) {
			size, ok := sizes[h.Type]
			if !ok || seen[h.Type] {
				t.Fatalf("unexpected or repeated type %q", h.Type)
			}
			seen[h.Type] = true
			b, err := hex.DecodeString(h.Value)
			if err != nil || len(b) != size || h.Value != strings.ToLower(h.Value) {
				t.Fatalf("bad value %q for %s", h.Value, h.Type)
			}
		}
	})
}
