package netconf

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/publicsuffix"
)

// CookieCount says what a cookies.txt held.
type CookieCount struct {
	Loaded  int // cookies now in the jar
	Expired int // cookies past their expiry, left out
	Skipped int // lines that are not a cookie Braid can send, left out
}

// maxCookieFile bounds the size of a cookies.txt read.
const maxCookieFile = 64 << 20

// newJar is a cookie jar that refuses cookies for a public suffix (a
// cookie for all of .co.uk).
func newJar() *cookiejar.Jar {
	j, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List}) // never fails
	return j
}

// LoadCookies reads a Netscape cookies.txt (what curl -b, wget
// --load-cookies and aria2 --load-cookies read, and browsers' export
// extensions write) into jar: seven fields separated by tabs (domain,
// whether subdomains get it, path, secure only, expiry in Unix seconds
// with 0 for a session cookie, name, value), "#" comments, and the
// "#HttpOnly_" prefix curl writes before the domain of an HttpOnly
// cookie. The jar then sends each cookie only where its domain, path and
// secure flag allow. Errors name the file and line, never a cookie.
func LoadCookies(jar http.CookieJar, path string, now time.Time) (CookieCount, error) {
	var n CookieCount
	f, err := os.Open(path)
	if err != nil {
		return n, err
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxCookieFile))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		httpOnly := false
		if rest, ok := strings.CutPrefix(line, "#HttpOnly_"); ok {
			line, httpOnly = rest, true
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c, u, ok := cookieLine(line, now)
		switch {
		case !ok:
			n.Skipped++
		case c == nil:
			n.Expired++
		default:
			c.HttpOnly = httpOnly
			jar.SetCookies(u, []*http.Cookie{c})
			if !holds(jar, u, c) {
				n.Skipped++ // the jar refused it (a public suffix's domain)
				continue
			}
			n.Loaded++
		}
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("%s: %w", path, err)
	}
	if n.Loaded == 0 && n.Skipped > 0 {
		return n, fmt.Errorf("%s: no cookie in the Netscape cookies.txt format (%d lines not understood)", path, n.Skipped)
	}
	return n, nil
}

// holds reports whether the jar sends c to u.
func holds(jar http.CookieJar, u *url.URL, c *http.Cookie) bool {
	for _, k := range jar.Cookies(u) {
		if k.Name == c.Name && k.Value == c.Value {
			return true
		}
	}
	return false
}

// cookieLine reads one line: ok false when it is not a cookie Braid can
// send; a nil cookie when it has expired.
func cookieLine(line string, now time.Time) (*http.Cookie, *url.URL, bool) {
	f := strings.Split(line, "\t")
	if len(f) == 6 {
		f = append(f, "") // an empty value, as aria2 and curl accept
	}
	if len(f) != 7 {
		return nil, nil, false
	}
	domain, sub, path, secure, expires, name, value := f[0], f[1], f[2], f[3], f[4], f[5], f[6]
	host := strings.ToLower(strings.TrimPrefix(domain, "."))
	if host == "" || strings.ContainsAny(host, "/\\?#@ ") {
		return nil, nil, false
	}
	if !validCookieName(name) || !validCookieValue(value) {
		return nil, nil, false
	}
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil {
		return nil, nil, false
	}
	if path == "" || path[0] != '/' {
		path = "/"
	}
	c := &http.Cookie{Name: name, Value: value, Path: path}
	if exp > 0 {
		t := time.Unix(exp, 0)
		if !t.After(now) {
			return nil, nil, true
		}
		c.Expires = t
	}
	scheme := "http"
	if strings.EqualFold(secure, "TRUE") {
		c.Secure, scheme = true, "https"
	}
	if strings.EqualFold(sub, "TRUE") {
		c.Domain = host
	}
	return c, &url.URL{Scheme: scheme, Host: host, Path: path}, true
}

func validCookieName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !httpguts.IsTokenRune(rune(s[i])) {
			return false
		}
	}
	return true
}

// validCookieValue keeps what net/http sends unchanged: anything else it
// would rewrite, and log a byte of.
func validCookieValue(s string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b <= 0x20 || b >= 0x7f || b == '"' || b == ';' || b == '\\' || b == ',' {
			return false
		}
	}
	return true
}
