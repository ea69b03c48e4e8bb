package transport

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"braid/engine/netconf"
	redactpkg "braid/engine/redact"
)

// DefaultUserAgent names Braid to servers when Options.UserAgent is empty.
const DefaultUserAgent = "Braid/0.1 (+https://braid.invalid)"

// DefaultRetryAfter is how long a RetryError asks the caller to wait when
// the server refused for now without saying for how long.
const DefaultRetryAfter = 30 * time.Second

// maxRetryAfter caps a server's Retry-After, so a hostile or confused
// value cannot park a mirror for years or overflow a Duration.
const maxRetryAfter = 24 * time.Hour

// ErrUnsupportedScheme: the URL's scheme has no Source (only http, https
// and ftp do).
var ErrUnsupportedScheme = errors.New("unsupported URL scheme")

// Fetchable reports whether raw is an absolute URL with a host whose
// scheme has a Source (http, https, ftp): a mirror the engine can use.
func Fetchable(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ftp":
		return true
	}
	return false
}

// Options configure a Source. The zero value is not ready: set Size to -1
// when the file's size is unknown (0 means an empty file).
type Options struct {
	// Size is the file's expected length in bytes, -1 when unknown. A
	// mirror that reports another length is refused with ErrMismatch.
	Size int64
	// IfMatch is the origin's ETag, for a Metalink/HTTP "pref" mirror
	// (RFC 6249 §3.3): every request carries If-Match, and a mirror whose
	// ETag differs is refused with ErrMismatch. Empty: not sent.
	IfMatch string
	// UserAgent is sent with every HTTP request; DefaultUserAgent when empty.
	UserAgent string
	// Referer is sent with every HTTP request when set: RFC 6249 §7 asks
	// for the origin's URL on requests to its mirrors.
	Referer string
	// HTTPClient is shared by HTTP sources so that connections to one host
	// are kept alive and reused across sources. Nil: a package-wide client
	// made by NewHTTPClient. Its CheckRedirect is still consulted.
	HTTPClient *http.Client
	// FTPPool is shared by FTP sources so that logged-in control
	// connections are reused across sources. Nil: the source keeps a pool
	// of its own, closed by its Close.
	FTPPool *FTPPool
	// Network routes connections through the proxies set; nil is
	// netconf.Default() (the environment, as curl reads it). An HTTP
	// source takes it only when HTTPClient is nil: HTTPClient is then
	// Network.HTTPClient(). FTP sources dial through it.
	Network *netconf.Network
	// Session is the job's logins, cookies and headers; nil: none but the
	// credentials in the URL. An HTTP source sends its requests through
	// Session.Client(HTTPClient); an FTP source without credentials in
	// its URL logs in with Session.FTPLogin.
	Session *netconf.Session
}

// network is the Network to dial through: the job's own proxy route
// (Session.Network), else Network.
func (o Options) network() *netconf.Network {
	if n := o.Session.Network(); n != nil {
		return n
	}
	if o.Network != nil {
		return o.Network
	}
	return netconf.Default()
}

// New returns the Source for rawURL by scheme: http and https give an
// *HTTPSource, ftp an *FTPSource (which must be closed). Any other scheme
// fails with ErrUnsupportedScheme.
func New(rawURL string, opts Options) (Source, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("mirror URL %q: %w", redact(rawURL), err)
	}
	// Each case returns a nil Source, not a typed nil pointer, on error.
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		s, err := NewHTTP(rawURL, opts)
		if err != nil {
			return nil, err
		}
		return s, nil
	case "ftp":
		s, err := NewFTP(rawURL, opts)
		if err != nil {
			return nil, err
		}
		return s, nil
	default:
		return nil, fmt.Errorf("mirror %s: %q: %w", redact(rawURL), u.Scheme, ErrUnsupportedScheme)
	}
}

// redact returns rawURL without its user information, for messages.
func redact(rawURL string) string { return redactpkg.URL(rawURL) }

// checkRange refuses a range no server could serve.
func checkRange(mirror string, off, n, size int64) error {
	if off < 0 || n < 0 {
		return fmt.Errorf("%s: invalid range off=%d n=%d", mirror, off, n)
	}
	if size >= 0 && off+n > size {
		return fmt.Errorf("%s: bytes %d-%d are past the end of the %d-byte file: %w", mirror, off, off+n-1, size, ErrMismatch)
	}
	return nil
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return DefaultRetryAfter
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return DefaultRetryAfter
		}
		if secs > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), maxRetryAfter)
	}
	return DefaultRetryAfter
}
