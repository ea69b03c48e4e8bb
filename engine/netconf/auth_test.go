package netconf

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
)

// recorder is a server that remembers the headers of every request.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []http.Header
}

func newRecorder(t *testing.T, addr string, h http.HandlerFunc) *recorder {
	r := &recorder{}
	r.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.Header.Clone())
		r.mu.Unlock()
		h(w, req)
	}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	r.Listener = ln
	r.Start()
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.seen...)
}

// TestOddChallenges: challenges that are malformed, of a scheme Braid
// does not speak, or that never accept, end in the server's 401 after at
// most two tries with a login, never a panic or a loop.
func TestOddChallenges(t *testing.T) {
	for _, challenge := range []string{
		``,
		`Bearer realm="x"`,
		`Digest`,
		`Digest realm="x", nonce="n", algorithm=SHA-1024`,
		`Digest realm="x", nonce="n", qop="auth-conf"`,
		`Digest realm="x", nonce="n`,
		`Digest realm="x", nonce="n", stale=true`,
		`Basic`,
		`Negotiate, Basic realm="x"`,
	} {
		t.Run(challenge, func(t *testing.T) {
			srv := newRecorder(t, "127.0.0.1:0", func(w http.ResponseWriter, _ *http.Request) {
				if challenge != "" {
					w.Header().Set("WWW-Authenticate", challenge)
				}
				w.WriteHeader(http.StatusUnauthorized)
			})
			c := &http.Client{Transport: AnswerLogins(&http.Transport{})}
			u, _ := url.Parse(srv.URL)
			ctx := WithLogins(context.Background(), OriginLogin(u, Login{User: "u", Password: "p"}))
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/f", nil)
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if n := len(srv.headers()); n > 3 {
				t.Errorf("%d requests, want at most 3", n)
			}
		})
	}
}

// TestSessionHeadersPerHost follows a redirect from the link's host to
// another: the link's header, login and a cookie for its host stay with
// it; the user agent and referer go everywhere.
func TestSessionHeadersPerHost(t *testing.T) {
	other := newRecorder(t, "127.0.0.3:0", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("ok"))
	})
	origin := newRecorder(t, "127.0.0.2:0", func(w http.ResponseWriter, r *http.Request) {
		if _, _, ok := r.BasicAuth(); !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="r"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		http.Redirect(w, r, other.URL+"/f", http.StatusFound)
	})
	link := origin.URL + "/f"
	ss, err := Settings{
		HTTPUser: "u", HTTPPasswd: "p", NoNetrc: true,
		Headers:   []string{"X-Token: t1", "Cookie: extra=1"},
		UserAgent: "UA/1", Referer: "http://ref.example/page",
		Links: []string{link},
	}.Open()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(link)
	ss.jar.SetCookies(u, []*http.Cookie{{Name: "c", Value: "v"}})
	resp, err := ss.Client(&http.Client{Transport: &http.Transport{}}).Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	hs := origin.headers()
	if len(hs) != 2 || hs[0].Get("Authorization") != "" || hs[1].Get("Authorization") == "" {
		t.Fatalf("origin: want a request without a login, then one with: %v", hs)
	}
	for _, h := range hs {
		if h.Get("X-Token") != "t1" || h.Get("Cookie") != "c=v; extra=1" {
			t.Errorf("origin got X-Token %q, Cookie %q", h.Get("X-Token"), h.Get("Cookie"))
		}
	}
	for _, h := range other.headers() {
		if h.Get("X-Token") != "" || h.Get("Cookie") != "" || h.Get("Authorization") != "" {
			t.Errorf("the other host got the link's header, cookie or login: %v", h)
		}
		if h.Get("User-Agent") != "UA/1" || h.Get("Referer") != "http://ref.example/page" {
			t.Errorf("the other host got User-Agent %q, Referer %q", h.Get("User-Agent"), h.Get("Referer"))
		}
	}
	if len(other.headers()) != 1 {
		t.Errorf("the other host saw %d requests, want 1", len(other.headers()))
	}
}
