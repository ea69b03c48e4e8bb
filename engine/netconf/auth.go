package netconf

import (
	"context"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/icholy/digest"
)

// Login is a user name and password. Its String and GoString never show
// the password.
type Login struct {
	User, Password string
}

func (l Login) String() string   { return l.User + ":***" }
func (l Login) GoString() string { return "netconf.Login{User: " + l.User + ", Password: ***}" }

// LoginFinder says which login to give a server that asks for one at u,
// and false when it has none for u.
type LoginFinder func(u *url.URL) (Login, bool)

type findersKey struct{}

// WithLogins returns ctx carrying find for the requests made under it: a
// server that asks for a login (401) at a URL find knows gets it. Finders
// added earlier are asked first (a link's own credentials, then the
// job's options, then .netrc).
func WithLogins(ctx context.Context, find LoginFinder) context.Context {
	prev, _ := ctx.Value(findersKey{}).([]LoginFinder)
	list := make([]LoginFinder, len(prev), len(prev)+1)
	copy(list, prev)
	return context.WithValue(ctx, findersKey{}, append(list, find))
}

func findLogin(ctx context.Context, u *url.URL) (Login, bool) {
	list, _ := ctx.Value(findersKey{}).([]LoginFinder)
	for _, f := range list {
		if l, ok := f(u); ok {
			return l, true
		}
	}
	return Login{}, false
}

// OriginLogin is a LoginFinder for the credentials of a link
// (http://user:pass@host/...): they are given to the link's scheme, host
// and port only.
func OriginLogin(link *url.URL, l Login) LoginFinder {
	origin := Origin(link)
	return func(u *url.URL) (Login, bool) {
		return l, Origin(u) == origin
	}
}

// Origin is scheme://host:port in lower case, the port filled in.
func Origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "ftp":
			port = "21"
		default:
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// HandlesLogins reports whether rt answers 401s with the logins of
// WithLogins: a Network's transport or a Session's.
func HandlesLogins(rt http.RoundTripper) bool {
	switch t := rt.(type) {
	case *loginTransport:
		return true
	case *sessionTransport:
		return HandlesLogins(t.next)
	}
	return false
}

// AnswerLogins returns rt made to answer 401s with the logins of
// WithLogins; rt itself when it does already. nil is
// http.DefaultTransport.
func AnswerLogins(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	if HandlesLogins(rt) {
		return rt
	}
	return &loginTransport{next: rt, auth: newAuthenticator()}
}

// loginTransport answers a server's 401 with a login from the request's
// context: Digest when the server offers it (the password never crosses
// the wire), otherwise Basic. What a server asked for is remembered per
// origin and user, so later requests carry the login at once and a
// segmented download asks once, not once per range.
type loginTransport struct {
	next http.RoundTripper
	auth *authenticator
}

func (t *loginTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// RoundTrip sends req, and again with a login when the server asks for
// one and the context has one for its URL. A request that already carries
// Authorization (a header the user gave) is sent as it is. A server that
// still answers 401 gets its answer returned: its Request then carries
// Authorization, which is how the caller tells a refused login from a
// missing one.
func (t *loginTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return t.next.RoundTrip(req)
	}
	login, ok := findLogin(req.Context(), req.URL)
	if !ok {
		return t.next.RoundTrip(req)
	}
	space := Origin(req.URL) + "\x00" + login.User
	first := req
	preemptive := false
	if h := t.auth.header(space, req, login); h != "" {
		first = withAuthorization(req, h)
		preemptive = true
	}
	resp, err := t.next.RoundTrip(first)
	for try := 0; err == nil && resp.StatusCode == http.StatusUnauthorized && try < 2; try++ {
		if try > 0 && !preemptive && !staleDigest(resp.Header) {
			break // the login was refused
		}
		if req.Body != nil && req.GetBody == nil {
			break // cannot send the body again
		}
		h := t.auth.learn(space, resp.Header, req, login)
		if h == "" {
			break // no scheme we speak
		}
		r := withAuthorization(req, h)
		if req.GetBody != nil {
			if r.Body, err = req.GetBody(); err != nil {
				break
			}
		}
		drain(resp)
		preemptive = false
		resp, err = t.next.RoundTrip(r)
	}
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		t.auth.forget(space)
	}
	return resp, err
}

func withAuthorization(req *http.Request, h string) *http.Request {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", h)
	return r
}

func drain(resp *http.Response) {
	_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	resp.Body.Close()
}

func staleDigest(h http.Header) bool {
	c, err := digest.FindChallenge(h)
	return err == nil && c.Stale
}

// authenticator remembers, per origin and user, how the server asked for
// a login.
type authenticator struct {
	mu     sync.Mutex
	spaces map[string]*space
}

type space struct {
	basic bool
	chal  *digest.Challenge
	count int // nonce count of the Digest challenge
}

func newAuthenticator() *authenticator {
	return &authenticator{spaces: map[string]*space{}}
}

// header is the Authorization for req in a space the server asked for a
// login before, or "".
func (a *authenticator) header(key string, req *http.Request, l Login) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	sp := a.spaces[key]
	if sp == nil {
		return ""
	}
	return sp.authorization(req, l)
}

// learn reads the server's challenges, prefers Digest, remembers the
// choice and returns the Authorization for req; "" when the server offers
// no scheme Braid speaks.
func (a *authenticator) learn(key string, h http.Header, req *http.Request, l Login) string {
	sp := &space{}
	if c, err := digest.FindChallenge(h); err == nil {
		sp.chal = c
	} else if offersBasic(h) {
		sp.basic = true
	} else {
		return ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.spaces[key] = sp
	return sp.authorization(req, l)
}

func (a *authenticator) forget(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.spaces, key)
}

// authorization computes the header; the caller holds the lock.
func (sp *space) authorization(req *http.Request, l Login) string {
	if sp.basic {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(l.User+":"+l.Password))
	}
	sp.count++
	cred, err := digest.Digest(sp.chal, digest.Options{
		Method:   req.Method,
		URI:      req.URL.RequestURI(),
		GetBody:  req.GetBody,
		Count:    sp.count,
		Username: l.User,
		Password: l.Password,
	})
	if err != nil {
		return ""
	}
	return cred.String()
}

func offersBasic(h http.Header) bool {
	for _, v := range h.Values("WWW-Authenticate") {
		// A field may hold several challenges; Basic is one word.
		for f := range strings.SplitSeq(v, ",") {
			word, _, _ := strings.Cut(strings.TrimSpace(f), " ")
			if strings.EqualFold(word, "Basic") {
				return true
			}
		}
	}
	return false
}
