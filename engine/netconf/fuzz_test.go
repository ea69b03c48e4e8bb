package netconf

import (
	"net/http"
	"testing"
	"time"
)

// FuzzNetrc: any file gives logins or an error, never a panic.
func FuzzNetrc(f *testing.F) {
	for _, s := range []string{
		"machine h login u password p\n",
		"default login a password \"b\\\"c\"\nmacdef x\ncd /\n\nmachine m login l",
		"# c\n  machine\tH\r\n login u\n",
		"\"", "machine", "macdef",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseNetrc("netrc", s)
		if err == nil {
			n.find("h")
		}
	})
}

// FuzzCookieLine: any line is a cookie, an expired one, or skipped.
func FuzzCookieLine(f *testing.F) {
	for _, s := range []string{
		".example.com\tTRUE\t/\tFALSE\t0\tn\tv",
		"h\tFALSE\t/p\tTRUE\t99999999999\tn\t",
		"h\tFALSE\t\tFALSE\t-1\tn\tv",
		"\t\t\t\t\t\t",
	} {
		f.Add(s)
	}
	now := time.Unix(1_700_000_000, 0)
	f.Fuzz(func(t *testing.T, s string) {
		c, u, ok := cookieLine(s, now)
		if ok && c != nil {
			newJar().SetCookies(u, []*http.Cookie{c})
		}
	})
}
