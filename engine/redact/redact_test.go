package redact

import "testing"

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"get https://ann:secret@example.com/f.iso failed": "get https://example.com/f.iso failed",
		"ftp://anonymous@ftp.example/x and http://u:p@h/": "ftp://ftp.example/x and http://h/",
		"mail ann@example.com stays":                      "mail ann@example.com stays",
		"/srv/files/f.meta4":                              "/srv/files/f.meta4",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://ann:secret@example.com/f.iso?x=1": "https://example.com/f.iso?x=1",
		"ftp://example.com/f":                      "ftp://example.com/f",
		"http://u:p@h/%zz":                         "…@h/%zz",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReferer(t *testing.T) {
	for in, want := range map[string]string{
		"https://ann:secret@example.com/pub/f.iso?token=abc&exp=1#frag": "https://example.com/pub/f.iso",
		"https://example.com/a%2Fb/f.iso?sig=1":                         "https://example.com/a%2Fb/f.iso",
		"http://example.com":                                            "http://example.com",
		"/relative/f.iso":                                               "",
		"file.meta4":                                                    "",
		"http://%zz":                                                    "",
	} {
		if got := Referer(in); got != want {
			t.Errorf("Referer(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQuery(t *testing.T) {
	for in, want := range map[string]string{
		"http://t.example/announce?passkey=s3cret":             "http://t.example/announce",
		`Get "https://t.example/a?info_hash=x&peer_id=y": EOF`: `Get "https://t.example/a": EOF`,
		"http://a.example/x#frag and udp://b.example:80/?k=v":  "http://a.example/x and udp://b.example:80/",
		"no link here? none":                                   "no link here? none",
		"http://a.example/plain":                               "http://a.example/plain",
	} {
		if got := Query(in); got != want {
			t.Errorf("Query(%q) = %q, want %q", in, got, want)
		}
	}
}
