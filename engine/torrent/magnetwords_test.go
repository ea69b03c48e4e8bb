package torrent

import (
	"strings"
	"testing"
)

// A magnet link that names no torrent, or a hash that is not one, is
// refused in a sentence, not in the library's words.
func TestMagnetLinkErrorsAreSentences(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ uri, want string }{
		{"magnet:?xt=urn:btih:", "the magnet link names no torrent: it has no info hash (xt=urn:btih:…)"},
		{"magnet:?dn=film.mkv", "the magnet link names no torrent: it has no info hash (xt=urn:btih:…)"},
		{"magnet:?xt=urn:btih:abc123", `the magnet link's info hash "abc123" is not one: a torrent's is 40 hexadecimal digits (or 32 base32 letters)`},
	} {
		_, err := ParseMagnet(c.uri)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseMagnet(%q) = %v, want %q", c.uri, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "encoding") {
			t.Errorf("ParseMagnet(%q) speaks the library's words: %v", c.uri, err)
		}
	}
	if _, err := ParseMagnet("magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567&dn=x"); err != nil {
		t.Errorf("a good link: %v", err)
	}
}
