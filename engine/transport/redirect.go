package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"braid/engine/metalink"
)

var _ interface{ Close() error } = (*HTTPSource)(nil)

// hop is one redirect on the way to the file: the URL that answered 3xx
// and the header fields it sent.
type hop struct {
	url    *url.URL
	header http.Header
}

// hopLog collects the redirects of one request; CheckRedirect finds it in
// the request's context.
type hopLog struct {
	mu   sync.Mutex
	hops []hop
}

type hopKey struct{}

// noteHop records the redirect answer that led to req, if req's context
// carries a hopLog.
func noteHop(req *http.Request) {
	log, ok := req.Context().Value(hopKey{}).(*hopLog)
	if !ok || req.Response == nil || req.Response.Request == nil {
		return
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	log.hops = append(log.hops, hop{url: req.Response.Request.URL, header: req.Response.Header})
}

// movedToFTP is how do reports a redirect to an ftp:// URL, which
// net/http cannot follow: the source reads from src from now on.
type movedToFTP struct{ src *FTPSource }

func (e *movedToFTP) Error() string { return "redirected to " + e.src.Mirror() }

// do sends req through the redirects, remembering where the file was
// found so that later requests go there directly (a redirector is asked
// once, not once per range), and following a redirect to ftp:// by
// switching the source to FTP. It returns the redirects on the way.
func (s *HTTPSource) do(req *http.Request) (*http.Response, []hop, error) {
	log := &hopLog{}
	req = req.WithContext(context.WithValue(req.Context(), hopKey{}, log))
	resp, err := s.client.Do(req)
	if err != nil {
		s.forget()
		return nil, log.hops, proxyLogin(s.url, causeOnly(err, s.url))
	}
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		to, err := resp.Request.URL.Parse(resp.Header.Get("Location"))
		if err == nil && strings.EqualFold(to.Scheme, "ftp") {
			discard(resp)
			f, err := s.useFTP(to)
			if err != nil {
				return nil, log.hops, err
			}
			return nil, log.hops, &movedToFTP{src: f}
		}
	}
	if resp.StatusCode < 300 {
		s.remember(resp.Request.URL)
	}
	return resp, log.hops, nil
}

// requestError is Go's *url.Error of a request to the URL that its
// callers name already ("URL: …"): its text is only its cause, so
// an error does not go on `Head "URL": …` with the same URL again.
type requestError struct{ err *url.Error }

func (e *requestError) Error() string { return e.err.Err.Error() }

func (e *requestError) Unwrap() error { return e.err }

// causeOnly is err as a requestError when it is Go's error of a request
// to u; a request that failed elsewhere (after a redirect) keeps the URL
// it went to.
func causeOnly(err error, u string) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.URL == u && ue.Err != nil {
		return &requestError{ue}
	}
	return err
}

// location is the URL to ask: where the file was last found, or the
// mirror's own URL.
func (s *HTTPSource) location() *url.URL {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loc != nil {
		return s.loc
	}
	u, _ := url.Parse(s.url) // parsed once already in NewHTTP
	return u
}

// remember keeps u as where the file is, when redirects led there.
func (s *HTTPSource) remember(u *url.URL) {
	if u.String() == s.url {
		return
	}
	c := *u
	s.mu.Lock()
	s.loc = &c
	s.mu.Unlock()
}

// forget goes back to asking the mirror's own URL after a remembered
// location failed: a redirector may send the next request elsewhere.
func (s *HTTPSource) forget() {
	s.mu.Lock()
	s.loc = nil
	s.mu.Unlock()
}

// forgetAfter forgets a remembered location that failed req with err. A
// file gone from there (404, 410) or refused there says nothing yet about
// the mirror itself: a redirector may know a better place, so the error
// becomes temporary, and the next request asks the mirror's own URL.
func (s *HTTPSource) forgetAfter(req *http.Request, err error) error {
	s.forget()
	if req.URL.String() == s.url || !(errors.Is(err, ErrNotFound) || errors.Is(err, ErrDenied)) {
		return err
	}
	return fmt.Errorf("%s: where it redirected to: %v; asking it again", s.url, err)
}

// useFTP switches the source to the FTP URL the mirror redirected to.
func (s *HTTPSource) useFTP(to *url.URL) (*FTPSource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ftp != nil {
		return s.ftp, nil
	}
	f, err := NewFTP(to.String(), Options{Size: s.size, FTPPool: s.ftpPool, Network: s.network, Session: s.session})
	if err != nil {
		return nil, fmt.Errorf("%s: redirect: %w", s.url, err)
	}
	s.ftp = f
	return f, nil
}

// ftpSource is the FTP source the mirror redirected to, or nil.
func (s *HTTPSource) ftpSource() *FTPSource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ftp
}

// ftpProbe describes the file as the FTP server a redirect led to does,
// with what the redirects said.
func (s *HTTPSource) ftpProbe(ctx context.Context, f *FTPSource, hops []hop) (*Probe, error) {
	info, err := f.Stat(ctx)
	if err != nil && info.Size < 0 {
		return nil, err
	}
	return withHops(&Probe{Info: info, URL: f.Mirror()}, hops), err
}

// Close releases the FTP source a redirect led to, if any.
func (s *HTTPSource) Close() error {
	if f := s.ftpSource(); f != nil {
		return f.Close()
	}
	return nil
}

// withHops adds to p what the redirects before its answer said: their
// Link header fields (made absolute against the URL that sent them) and
// their Digest fields, which come first in OriginDigests (RFC 6249 §6).
func withHops(p *Probe, hops []hop) *Probe {
	final := p.Digests
	var links []metalink.Link
	var digests []metalink.Hash
	for _, h := range hops {
		for _, l := range metalink.ParseLinks(h.header.Values("Link")) {
			if ref, err := h.url.Parse(l.URL); err == nil {
				l.URL = ref.String()
			}
			links = append(links, l)
		}
		d := metalink.ParseDigests(h.header.Values("Digest"))
		if len(p.OriginDigests) == 0 {
			p.OriginDigests = d
		}
		digests = append(digests, d...)
	}
	if len(p.OriginDigests) == 0 {
		p.OriginDigests = final
	}
	// Every digest on the way is checked against the file's hashes: a
	// final answer's that disagrees with the redirect's exposes the copy.
	p.Digests = append(digests, final...)
	p.Links = append(links, p.Links...)
	return p
}
