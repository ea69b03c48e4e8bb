package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"braid/engine/metalink"
	"braid/engine/netconf"
	redactpkg "braid/engine/redact"
)

var (
	_ Stater = (*HTTPSource)(nil)
	_ Source = (*HTTPSource)(nil)
)

// wantDigest asks servers for RFC 3230 instance digests, strongest first.
const wantDigest = "SHA-512;q=1, SHA-256;q=0.9, SHA;q=0.3, MD5;q=0.1"

// NewHTTPClient returns a client suited to ranged downloads: keep-alive
// with enough idle connections per host for parallel segments, bounded
// connection and header waits, no overall timeout (a download may take
// hours; stalls are the scheduler's to cut), proxies from the environment
// as curl reads them, logins answered when a request's context carries
// them. Each call makes a client with connections of its own; a proxy
// setting in the environment that cannot be used is ignored.
func NewHTTPClient() *http.Client {
	n, err := netconf.NewNetwork(netconf.Proxy{})
	if err != nil {
		n, _ = netconf.NewNetwork(netconf.Proxy{Mode: netconf.ProxyNone})
	}
	return n.HTTPClient()
}

// HTTPSource reads one file from one HTTP(S) mirror with ranged GETs. It
// is safe for concurrent use; each ReadRange is its own request on the
// shared client's kept-alive connections.
type HTTPSource struct {
	url       string              // without user information
	origin    string              // scheme://host:port the credentials belong to
	login     netconf.LoginFinder // the URL's user information, or nil
	client    *http.Client
	size      int64
	ifMatch   string
	userAgent string
	referer   string
	ftpPool   *FTPPool // for a redirect to ftp://
	network   *netconf.Network
	session   *netconf.Session

	mu  sync.Mutex
	loc *url.URL   // where the file was last found after redirects; nil: s.url
	ftp *FTPSource // set when the mirror redirects to ftp://
}

// NewHTTP returns a Source for an http or https URL. User information in
// the URL is the login given (Digest when the server offers it, else
// Basic) when that scheme, host and port ask for one: a redirect
// elsewhere never gets it. It comes before the Session's logins.
func NewHTTP(rawURL string, opts Options) (*HTTPSource, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("mirror URL %q: %w", redact(rawURL), err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil, fmt.Errorf("mirror %s: %q: %w", redact(rawURL), u.Scheme, ErrUnsupportedScheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("mirror URL %q has no host", redact(rawURL))
	}
	s := &HTTPSource{
		origin:    scheme + "://" + strings.ToLower(canonicalHost(u)),
		size:      opts.Size,
		ifMatch:   opts.IfMatch,
		userAgent: opts.UserAgent,
		referer:   opts.Referer,
		ftpPool:   opts.FTPPool,
		network:   opts.Network,
		session:   opts.Session,
	}
	if s.userAgent == "" {
		s.userAgent = DefaultUserAgent
	}
	if u.User != nil {
		pass, _ := u.User.Password()
		s.login = netconf.OriginLogin(u, netconf.Login{User: u.User.Username(), Password: pass})
		u.User = nil
	}
	u.Fragment = ""
	s.url = u.String()

	base := opts.HTTPClient
	if base == nil {
		base = opts.network().HTTPClient()
	}
	base = opts.Session.Client(base) // a nil Session adds nothing
	// c shares the Transport and its connection pool.
	c := *base
	c.Transport = netconf.AnswerLogins(c.Transport)
	next := base.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return fmt.Errorf("%s: stopped after 10 redirects", s.url)
		}
		// net/http forwards Authorization to the same host name on any
		// port; a login belongs to one origin, and once a chain has left
		// it the header is not sent again.
		left := !s.sameOrigin(req.URL)
		for _, r := range via {
			left = left || !s.sameOrigin(r.URL)
		}
		if left {
			req.Header.Del("Authorization")
		}
		noteHop(req)
		if s := strings.ToLower(req.URL.Scheme); s != "http" && s != "https" {
			// net/http cannot follow it (ftp://): the caller does.
			return http.ErrUseLastResponse
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	s.client = &c
	return s, nil
}

func (s *HTTPSource) sameOrigin(u *url.URL) bool {
	return strings.ToLower(u.Scheme)+"://"+strings.ToLower(canonicalHost(u)) == s.origin
}

// canonicalHost is host:port with the scheme's default port filled in.
func canonicalHost(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if strings.EqualFold(u.Scheme, "https") {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// Mirror is the URL without credentials.
func (s *HTTPSource) Mirror() string { return s.url }

func (s *HTTPSource) newRequest(ctx context.Context, method string) (*http.Request, error) {
	target := s.location()
	if s.login != nil {
		ctx = netconf.WithLogins(ctx, s.login)
	}
	req, err := http.NewRequestWithContext(ctx, method, target.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.url, err)
	}
	req.Header.Set("User-Agent", s.userAgent)
	// Ranges count bytes of the file itself, never of a compressed form.
	req.Header.Set("Accept-Encoding", "identity")
	if s.referer != "" {
		req.Header.Set("Referer", s.referer)
	}
	return req, nil
}

// ReadRange GETs bytes [off, off+n). The answer must be a 206 whose
// Content-Range and Content-Length match the request and the expected
// size, or (only when off is 0) a 200 of at least n bytes, of which the
// first n are served. Otherwise it fails before reading a byte: ErrNoRanges
// for a 200 at off > 0; ErrMismatch for 412, 416 or lengths that disagree;
// ErrNotFound for 404 and 410; *RetryError for 429 and 503.
func (s *HTTPSource) ReadRange(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	if err := checkRange(s.url, off, n, s.size); err != nil {
		return nil, err
	}
	if n == 0 {
		return io.NopCloser(strings.NewReader("")), nil
	}
	if f := s.ftpSource(); f != nil {
		return f.ReadRange(ctx, off, n)
	}
	req, err := s.newRequest(ctx, http.MethodGet)
	if err != nil {
		return nil, err
	}
	last := off + n - 1
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, last))
	if s.ifMatch != "" {
		req.Header.Set("If-Match", s.ifMatch)
	}
	resp, _, err := s.do(req)
	var moved *movedToFTP
	if errors.As(err, &moved) {
		return moved.src.ReadRange(ctx, off, n)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: bytes %d-%d: %w", s.url, off, last, err)
	}
	if err := s.checkRangeResponse(resp, off, n); err != nil {
		discard(resp)
		return nil, s.forgetAfter(req, err)
	}
	return &httpBody{ctx: ctx, body: resp.Body, left: n, n: n, off: off, mirror: s.url}, nil
}

func (s *HTTPSource) checkRangeResponse(resp *http.Response, off, n int64) error {
	last := off + n - 1
	where := fmt.Sprintf("%s: bytes %d-%d", s.url, off, last)
	switch resp.StatusCode {
	case http.StatusPartialContent:
		first, end, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
		switch {
		case !ok:
			return fmt.Errorf("%s: unreadable Content-Range %q: %w", where, resp.Header.Get("Content-Range"), ErrMismatch)
		case first != off || end != last:
			return fmt.Errorf("%s: mirror sent bytes %d-%d: %w", where, first, end, ErrMismatch)
		case total >= 0 && s.size >= 0 && total != s.size:
			return fmt.Errorf("%s: mirror's file is %d bytes, want %d: %w", where, total, s.size, ErrMismatch)
		case resp.ContentLength >= 0 && resp.ContentLength != n:
			return fmt.Errorf("%s: Content-Length %d: %w", where, resp.ContentLength, ErrMismatch)
		}
	case http.StatusOK:
		if off != 0 {
			return fmt.Errorf("%s: mirror answered with the whole file: %w", where, ErrNoRanges)
		}
		if resp.ContentLength >= 0 && s.size >= 0 && resp.ContentLength != s.size {
			return fmt.Errorf("%s: mirror's file is %d bytes, want %d: %w", where, resp.ContentLength, s.size, ErrMismatch)
		}
		if resp.ContentLength >= 0 && resp.ContentLength < n {
			return fmt.Errorf("%s: mirror's file is only %d bytes: %w", where, resp.ContentLength, ErrMismatch)
		}
	default:
		return statusError(resp, where)
	}
	// We asked for identity; a compressed body's bytes are not the file's.
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return fmt.Errorf("%s: body sent with Content-Encoding %s: %w", where, ce, ErrMismatch)
	}
	if s.ifMatch != "" {
		if etag := resp.Header.Get("ETag"); etag != "" && etag != s.ifMatch {
			return fmt.Errorf("%s: ETag %s, want %s: %w", where, etag, s.ifMatch, ErrMismatch)
		}
	}
	return nil
}

// statusError maps an unwanted HTTP status to the package's errors,
// after where (the mirror and the request).
func statusError(resp *http.Response, where string) error {
	return fmt.Errorf("%s: %w", where, ResponseError(resp))
}

// ResponseError maps an unwanted HTTP status to the package's errors, in
// words that name neither the URL nor the request: a LoginError for 401
// and 407, ErrNotFound for 404 and 410, a RetryError for 429 and 503,
// ErrDenied for another 4xx, ErrMismatch for 412 and 416.
func ResponseError(resp *http.Response) error {
	switch resp.StatusCode {
	case http.StatusNotFound, http.StatusGone:
		return newStatusError(resp, ErrNotFound)
	case http.StatusRequestedRangeNotSatisfiable:
		return fmt.Errorf("%s (the mirror's file is shorter): %w", resp.Status, ErrMismatch)
	case http.StatusPreconditionFailed:
		return fmt.Errorf("%s (the mirror's ETag differs from the origin's): %w", resp.Status, ErrMismatch)
	case http.StatusUnauthorized, http.StatusProxyAuthRequired:
		// A request that carried a login (ours, or a header the user
		// gave) was refused; one without was asked for one.
		return &LoginError{
			Mirror:  redactpkg.Parsed(resp.Request.URL),
			Refused: resp.Request.Header.Get("Authorization") != "",
			Proxy:   resp.StatusCode == http.StatusProxyAuthRequired,
			Detail:  resp.Status,
		}
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return &RetryError{
			After: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
			Err:   errors.New(resp.Status),
		}
	case http.StatusRequestTimeout:
		// The server gave up waiting for us: the network's doing.
	default:
		if resp.StatusCode >= 400 && resp.StatusCode < 500 {
			return newStatusError(resp, ErrDenied)
		}
	}
	return fmt.Errorf("unexpected answer %s", resp.Status)
}

// discard closes a response we will not read, first draining a small rest
// so the connection can be kept alive.
func discard(resp *http.Response) {
	_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	resp.Body.Close()
}

// parseContentRange reads "bytes first-last/total" (total "*" gives -1).
func parseContentRange(v string) (first, last, total int64, ok bool) {
	v, found := strings.CutPrefix(strings.TrimSpace(v), "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	span, size, found := strings.Cut(v, "/")
	if !found {
		return 0, 0, 0, false
	}
	a, b, found := strings.Cut(span, "-")
	if !found {
		return 0, 0, 0, false
	}
	var err error
	if first, err = strconv.ParseInt(strings.TrimSpace(a), 10, 64); err != nil || first < 0 {
		return 0, 0, 0, false
	}
	if last, err = strconv.ParseInt(strings.TrimSpace(b), 10, 64); err != nil || last < first {
		return 0, 0, 0, false
	}
	total = -1
	if size = strings.TrimSpace(size); size != "*" {
		if total, err = strconv.ParseInt(size, 10, 64); err != nil || total <= last {
			return 0, 0, 0, false
		}
	}
	return first, last, total, true
}

// httpBody yields exactly n bytes of a response body.
type httpBody struct {
	ctx    context.Context
	body   io.ReadCloser
	left   int64
	n, off int64
	mirror string
}

func (b *httpBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	k, err := b.body.Read(p)
	b.left -= int64(k)
	switch {
	case b.left == 0:
		return k, nil // the next Read says io.EOF
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return k, fmt.Errorf("%s: bytes %d-%d: body ended after %d of %d bytes: %w",
			b.mirror, b.off, b.off+b.n-1, b.n-b.left, b.n, io.ErrUnexpectedEOF)
	case err != nil:
		if cerr := b.ctx.Err(); cerr != nil {
			return k, cerr
		}
		return k, fmt.Errorf("%s: bytes %d-%d: %w", b.mirror, b.off, b.off+b.n-1, err)
	}
	return k, nil
}

// Close ends the transfer. net/http keeps the connection when the rest of
// the body is small enough to drain, and closes it otherwise.
func (b *httpBody) Close() error {
	b.left = 0
	return b.body.Close()
}

// Probe is what an HTTP server says about a file before sending it: Info
// plus what a resolver needs to decide what the URL is.
type Probe struct {
	Info
	// URL is the final URL after redirects, without credentials; relative
	// Link URLs are relative to it.
	URL string
	// ContentType is the media type of the file as served, lower case,
	// without parameters.
	ContentType string
	// OriginDigests are the Digest header fields of the first answer on
	// the way that sent any, a redirect's before the final answer's: what
	// the origin vouches for (RFC 6249 §6). A final answer's Digest that
	// disagrees (Info.Digests) marks a copy the origin does not vouch for.
	OriginDigests []metalink.Hash
}

// Stat asks the mirror about the file with a HEAD (a GET of byte 0 when
// HEAD is refused). Besides the errors of ReadRange it fails with
// ErrMismatch when the size or (for If-Match mirrors) the ETag disagrees;
// the Info is returned with that error so the caller can report it.
func (s *HTTPSource) Stat(ctx context.Context) (Info, error) {
	p, err := s.Probe(ctx)
	if p == nil {
		return Info{Size: -1}, err
	}
	return p.Info, err
}

// Probe is Stat with the final URL and the content type.
func (s *HTTPSource) Probe(ctx context.Context) (*Probe, error) {
	p, err := s.head(ctx)
	if err != nil {
		return nil, err
	}
	if s.size >= 0 && p.Size >= 0 && p.Size != s.size {
		return p, fmt.Errorf("%s: mirror's file is %d bytes, want %d: %w", s.url, p.Size, s.size, ErrMismatch)
	}
	if s.ifMatch != "" && p.ETag != s.ifMatch {
		return p, fmt.Errorf("%s: ETag %q, want %s: %w", s.url, p.ETag, s.ifMatch, ErrMismatch)
	}
	return p, nil
}

func (s *HTTPSource) head(ctx context.Context) (*Probe, error) {
	if f := s.ftpSource(); f != nil {
		return s.ftpProbe(ctx, f, nil)
	}
	req, err := s.newRequest(ctx, http.MethodHead)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Want-Digest", wantDigest)
	resp, hops, err := s.do(req)
	var moved *movedToFTP
	if errors.As(err, &moved) {
		return s.ftpProbe(ctx, moved.src, hops)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.url, err)
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
		p := probeFrom(resp, hops)
		p.Size = resp.ContentLength
		p.Ranges = acceptsRanges(resp.Header)
		return p, nil
	case resp.StatusCode == http.StatusNotFound, resp.StatusCode == http.StatusGone,
		resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusServiceUnavailable:
		return nil, statusError(resp, s.url)
	}
	// HEAD refused (405, 501, some CDNs' 403): ask for the first byte.
	req, err = s.newRequest(ctx, http.MethodGet)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Want-Digest", wantDigest)
	req.Header.Set("Range", "bytes=0-0")
	resp, hops, err = s.do(req)
	if errors.As(err, &moved) {
		return s.ftpProbe(ctx, moved.src, hops)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.url, err)
	}
	defer discard(resp)
	switch resp.StatusCode {
	case http.StatusPartialContent:
		p := probeFrom(resp, hops)
		_, _, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok {
			return nil, fmt.Errorf("%s: unreadable Content-Range %q: %w", s.url, resp.Header.Get("Content-Range"), ErrMismatch)
		}
		p.Size, p.Ranges = total, true
		return p, nil
	case http.StatusOK:
		p := probeFrom(resp, hops)
		p.Size = resp.ContentLength
		return p, nil
	case http.StatusRequestedRangeNotSatisfiable:
		// Only an empty file has no byte 0.
		p := probeFrom(resp, hops)
		p.Size, p.Ranges = 0, true
		return p, nil
	}
	return nil, statusError(resp, s.url)
}

// probeFrom reads what a response says about the file, and what the
// redirects before it said (RFC 6249 §6: a redirector such as MirrorBrain
// sends the Link and Digest header fields on its 3xx).
func probeFrom(resp *http.Response, hops []hop) *Probe {
	ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	return withHops(&Probe{
		Info: Info{
			Size:    -1,
			ETag:    resp.Header.Get("ETag"),
			Name:    dispositionName(resp.Header.Get("Content-Disposition")),
			Digests: metalink.ParseDigests(resp.Header.Values("Digest")),
			Links:   metalink.ParseLinks(resp.Header.Values("Link")),
		},
		URL:         redactpkg.Parsed(resp.Request.URL),
		ContentType: strings.ToLower(strings.TrimSpace(ct)),
	}, hops)
}

func acceptsRanges(h http.Header) bool {
	for _, v := range h.Values("Accept-Ranges") {
		for f := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), "bytes") {
				return true
			}
		}
	}
	return false
}

// dispositionName is the file name a Content-Disposition suggests, as
// sent (unchecked: the caller passes it through metalink.SafeName). It
// prefers RFC 6266 filename* and falls back to a lenient reading of
// filename= for servers that do not quote it.
func dispositionName(v string) string {
	if v == "" {
		return ""
	}
	if _, params, err := mime.ParseMediaType(v); err == nil {
		return params["filename"] // mime decodes filename* into filename
	}
	lower := strings.ToLower(v)
	i := strings.Index(lower, "filename=")
	if i < 0 {
		return ""
	}
	rest := strings.TrimSpace(v[i+len("filename="):])
	if strings.HasPrefix(rest, `"`) {
		if end := strings.IndexByte(rest[1:], '"'); end >= 0 {
			return rest[1 : 1+end]
		}
		return rest[1:]
	}
	name, _, _ := strings.Cut(rest, ";")
	return strings.TrimSpace(name)
}

// Fetch GETs the whole resource, for small documents such as a metalink,
// and fails when it is larger than limit bytes.
func (s *HTTPSource) Fetch(ctx context.Context, limit int64) (*Probe, []byte, error) {
	req, err := s.newRequest(ctx, http.MethodGet)
	if err != nil {
		return nil, nil, err
	}
	resp, hops, err := s.do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, statusError(resp, s.url)
	}
	if resp.ContentLength > limit {
		return nil, nil, fmt.Errorf("%s: document of %d bytes is larger than the %d-byte limit", s.url, resp.ContentLength, limit)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.url, err)
	}
	if int64(len(body)) > limit {
		return nil, nil, fmt.Errorf("%s: document is larger than the %d-byte limit", s.url, limit)
	}
	p := probeFrom(resp, hops)
	p.Size = int64(len(body))
	return p, body, nil
}
