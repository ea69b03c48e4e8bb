package rpc

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/time/rate"
)

// Path is the endpoint aria2 clients call.
const Path = "/jsonrpc"

// Defaults of Options.
const (
	// DefaultMaxRequest is aria2's --rpc-max-request-size: room for a
	// base64 .torrent or metalink.
	DefaultMaxRequest = 2 << 20
	// DefaultRate is requests (HTTP posts and WebSocket messages) per
	// second over all clients; bursts may reach twice as many.
	DefaultRate = 50
	// DefaultPoll is how often the queue is read for notifications while
	// a WebSocket client is connected and the queue's service has
	// anything under way (Options.Activity).
	DefaultPoll = 500 * time.Millisecond
)

// failedAuthRate bounds wrong tokens over all clients, so a secret
// cannot be guessed at the request rate. Every call counts, those of a
// batch and a system.multicall too.
const (
	failedAuthRate  = 1 // per second
	failedAuthBurst = 10
)

// Caps of one request (an HTTP body or a WebSocket message), so that
// nobody, with the token or without, makes the server build an answer
// without bound.
const (
	// defaultMaxCalls bounds the calls of one request: a batch's and
	// those of its system.multicalls together. aria2 clients send tens to
	// hundreds (AriaNg acts on a selection of downloads in one multicall;
	// aria2 keeps 1000 stopped ones).
	defaultMaxCalls = 5000
	// maxTokenless bounds the calls that need no token
	// (system.listMethods, system.listNotifications) answered in one
	// request: a client asks once, and without a token an answer must
	// stay cheap.
	maxTokenless = 8
	// defaultMaxAnswer bounds the answer to one request in bytes; a
	// result past it is replaced by an error that says so.
	defaultMaxAnswer = 64 << 20
)

// Options configure a Server.
type Options struct {
	// Secret is the token every aria2.* call must carry as "token:SECRET";
	// it is required. It never appears in a log or an error.
	Secret string
	// AllowOrigins are the web origins ("http://localhost:6880") whose
	// pages may call the server (CORS) and open its WebSocket; "*" allows
	// any. The server's own origin (http://127.0.0.1:PORT as the client
	// reached it, or http://localhost:PORT on loopback) is always allowed,
	// as aria2 allows it. Requests from other origins are refused;
	// requests without an Origin (programs, not pages) are let through.
	AllowOrigins []string
	// AllowRemote accepts requests whose Host is not a loopback name;
	// without it only http://localhost, 127.0.0.1 and [::1] are answered,
	// which stops a web page from reaching the server by DNS rebinding.
	AllowRemote bool
	// MaxRequest bounds a request's body in bytes; 0: DefaultMaxRequest.
	MaxRequest int64
	// Rate is requests per second over all clients; 0: DefaultRate.
	Rate float64
	// Poll is how often notifications are looked for; 0: DefaultPoll.
	Poll time.Duration
	// Activity is what the service running the queue has under way
	// (runner.Service.Activity): the server reads the queue for its
	// notifications while anything is, once after, and when the count of
	// runs and checks begun moved, else only when told (Changed). nil: it
	// reads the queue every Poll while a client listens.
	Activity func() (working bool, began uint64)
	// Shutdown is called (once, after the answer is sent) by
	// aria2.shutdown and aria2.forceShutdown; nil refuses them.
	Shutdown func(force bool)
	// Version is Braid's version, given as braidVersion in getVersion.
	Version string
	// TLS, when set, makes Serve answer HTTPS and WSS only (aria2's
	// --rpc-secure): the secret and the answers then cross the network
	// encrypted. LoadTLS makes one from aria2's certificate and key files.
	TLS *tls.Config
}

// Server answers aria2's JSON-RPC over a Downloads. Use it as an
// http.Handler (it serves Path) or with Serve. Close ends its WebSocket
// connections and its notification poller.
type Server struct {
	d       Downloads
	o       Options
	secret  []byte
	session string
	limit   *rate.Limiter
	failed  authGuard
	up      websocket.Upgrader

	maxCalls  int // calls in one request; tests lower them
	maxAnswer int // bytes of one answer

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	poke   chan struct{}
	primed chan chan struct{} // a new client's: closed once the poller has its baseline

	changes atomic.Uint64 // the queue's changes the server made or was told of (Changed)
	listMu  sync.Mutex
	listed  map[Want]listing // the queue as last listed, by what the list holds
	keep    time.Duration    // how long a list is kept: listKeep; a test lengthens it

	mu      sync.Mutex // guards what follows
	conns   map[*wsConn]bool
	joining int           // clients being answered, whose baseline the poller takes
	removed map[int64]Job // removed through the RPC, until purged
	shut    bool
}

// New returns a Server over d. It starts the goroutine that sends
// notifications; Close stops it.
func New(d Downloads, o Options) (*Server, error) {
	if o.Secret == "" {
		return nil, errors.New("rpc: a secret is required (--rpc-secret or BRAID_RPC_SECRET)")
	}
	if o.MaxRequest <= 0 {
		o.MaxRequest = DefaultMaxRequest
	}
	if o.Rate <= 0 {
		o.Rate = DefaultRate
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	sid := make([]byte, 20)
	_, _ = rand.Read(sid)
	s := &Server{
		d:         d,
		o:         o,
		secret:    []byte(o.Secret),
		session:   hex.EncodeToString(sid),
		limit:     rate.NewLimiter(rate.Limit(o.Rate), 2*int(o.Rate)+1),
		failed:    authGuard{tokens: failedAuthBurst},
		maxCalls:  defaultMaxCalls,
		keep:      listKeep,
		maxAnswer: defaultMaxAnswer,
		poke:      make(chan struct{}, 1),
		primed:    make(chan chan struct{}),
		conns:     map[*wsConn]bool{},
		removed:   map[int64]Job{},
	}
	s.up = websocket.Upgrader{CheckOrigin: s.originAllowed}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.notifyLoop()
	}()
	return s, nil
}

// Close closes every WebSocket connection and stops the notification
// poller, and waits for them. HTTP requests in flight are the
// http.Server's to end.
func (s *Server) Close() error {
	s.cancel()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.ws.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

// Listen opens addr for the server. Without allowRemote only a loopback
// address is accepted ("127.0.0.1:6800", "[::1]:6800", "localhost:6800").
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("rpc listen address %q: %w", addr, err)
	}
	if !allowRemote && !loopbackHost(host) {
		return nil, fmt.Errorf("rpc listen address %q is not a loopback address; allow remote clients explicitly to listen there", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("rpc listen: %w", err)
	}
	return ln, nil
}

// PlainWarning is what a user is told of a plain (not TLS) listener on
// addr: nothing on a loopback address, else a sentence that says that the
// secret and the answers cross the network in clear.
func PlainWarning(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err == nil && loopbackHost(host) {
		return ""
	}
	return fmt.Sprintf("warning: the RPC on %s is plain HTTP that other machines can reach: the secret and every answer cross the network in clear, for anyone on the way to read. Reach it through an SSH tunnel or a TLS proxy, or listen on 127.0.0.1.", addr)
}

// LoadTLS reads a certificate (PEM, with its chain) and its private key
// (PEM) for Options.TLS; its error is a sentence that names the files.
func LoadTLS(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("cannot use %s and %s as the RPC's TLS certificate and private key (both PEM): %w", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// Serve answers on ln until ctx ends, then closes the server. With
// Options.TLS it answers TLS only.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.o.TLS != nil {
		ln = tls.NewListener(ln, s.o.TLS)
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-s.ctx.Done():
		}
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		close(done)
	}()
	err := hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	<-done
	s.Close()
	return err
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originAllowed tells whether r may be answered for its Origin: none (a
// program, not a page), the server's own, or one of AllowOrigins.
func (s *Server) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || sameOrigin(r, origin) {
		return true
	}
	for _, o := range s.o.AllowOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}

// sameOrigin tells whether origin is the server's own as the client
// reached it: the scheme of the connection, the port it reached, and as
// host the address it reached, or localhost when that is a loopback
// address. Python's websocket-client sends this Origin by default, and
// aria2 accepts it. A DNS name other than localhost is never the
// server's own: a page on a name rebound to this machine sends such an
// Origin, and it stays refused unless allowed.
func sameOrigin(r *http.Request, origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Opaque != "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || !strings.EqualFold(u.Scheme, scheme) {
		return false
	}
	lhost, lport, err := net.SplitHostPort(local.String())
	if err != nil {
		return false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	lip := net.ParseIP(lhost)
	if port != lport || lip == nil {
		return false
	}
	if strings.EqualFold(u.Hostname(), "localhost") {
		return lip.IsLoopback()
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.Equal(lip)
}

// ServeHTTP answers Path: POST with a JSON-RPC request or batch, GET with
// a WebSocket upgrade or a request in the query, OPTIONS for a CORS
// preflight.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Path {
		http.NotFound(w, r)
		return
	}
	if !s.o.AllowRemote {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if !loopbackHost(strings.Trim(host, "[]")) {
			http.Error(w, "this server answers only loopback host names", http.StatusForbidden)
			return
		}
	}
	origin := r.Header.Get("Origin")
	if !s.originAllowed(r) {
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	if origin != "" {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type")
		h.Set("Access-Control-Max-Age", "1728000")
		h.Add("Vary", "Origin")
	}
	if !s.limit.Allow() {
		http.Error(w, "too many requests", http.StatusTooManyRequests)
		return
	}
	switch r.Method {
	case http.MethodOptions:
		w.WriteHeader(http.StatusOK)
	case http.MethodGet:
		switch {
		case websocket.IsWebSocketUpgrade(r):
			s.serveWS(w, r)
		case r.URL.Query().Has("method"):
			s.serveGet(w, r)
		default:
			http.Error(w, "POST a JSON-RPC request, or open a WebSocket", http.StatusMethodNotAllowed)
		}
	case http.MethodPost:
		s.servePost(w, r)
	default:
		http.Error(w, "POST a JSON-RPC request, or open a WebSocket", http.StatusMethodNotAllowed)
	}
}

// serveGet answers aria2's JSON-RPC over GET: method, id and params (a
// JSON array in base64) in the query. aria2's JSONP (jsoncallback) is
// refused: it would let any web page read the answers past the origin
// allow-list.
func (s *Server) serveGet(w http.ResponseWriter, r *http.Request) {
	if !s.failed.ok() {
		http.Error(w, "too many wrong tokens; try again later", http.StatusTooManyRequests)
		return
	}
	q := r.URL.Query()
	if q.Has("jsoncallback") {
		http.Error(w, "JSONP is not supported: call with POST or a WebSocket", http.StatusBadRequest)
		return
	}
	req := map[string]any{"jsonrpc": "2.0", "method": q.Get("method")}
	if q.Has("id") {
		req["id"] = q.Get("id")
	}
	if p := q.Get("params"); p != "" {
		b, err := base64.StdEncoding.DecodeString(p)
		if err != nil || !json.Valid(b) {
			s.reply(w, marshal(response{JSONRPC: "2.0", Error: &errorObject{codeParse, "Parse error."}}), http.StatusInternalServerError)
			return
		}
		req["params"] = json.RawMessage(b)
	}
	out, status := s.handle(r.Context(), marshal(req))
	s.reply(w, out, status)
}

func (s *Server) reply(w http.ResponseWriter, out []byte, status int) {
	h := w.Header()
	h.Set("Content-Type", "application/json-rpc")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

func (s *Server) servePost(w http.ResponseWriter, r *http.Request) {
	if !s.failed.ok() {
		http.Error(w, "too many wrong tokens; try again later", http.StatusTooManyRequests)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.o.MaxRequest))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("request larger than %d bytes", s.o.MaxRequest), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "read the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	out, status := s.handle(r.Context(), body)
	s.reply(w, out, status)
}

// request is one JSON-RPC call. The "jsonrpc" member is not checked:
// aria2 does not, and clients (the aria2 npm package) misspell it.
type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type response struct {
	ID      json.RawMessage `json:"id"`
	JSONRPC string          `json:"jsonrpc"`
	Result  any             `json:"result,omitempty"`
	Error   *errorObject    `json:"error,omitempty"`
}

type errorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// JSON-RPC error codes aria2 uses.
const (
	codeParse   = -32700
	codeInvalid = -32600
	codeFailed  = 1 // any failure of a method, aria2's only code
)

// budget is what is left to one request of the caps (calls, calls
// without a token, answer bytes). A request is answered by one goroutine,
// so it needs no lock.
type budget struct {
	calls     int
	tokenless int
	bytes     int
}

type budgetKey struct{}

// budgetOf is ctx's request budget; nil (no caps) for a call that comes
// from no request (the benchmarks).
func budgetOf(ctx context.Context) *budget {
	b, _ := ctx.Value(budgetKey{}).(*budget)
	return b
}

// tooManyCalls is the refusal of a batch or multicall over the cap.
func tooManyCalls(n, limit int) error {
	return failf("A request may hold at most %d calls, batches and system.multicall together; this one has %d. Send them in smaller batches.", limit, n)
}

// answerTooBig is the error that replaces a result past the answer cap.
func answerTooBig(limit int) *errorObject {
	return &errorObject{codeFailed, fmt.Sprintf("This result is left out: the answer to one request may not pass %d MiB. Ask for less at once.", limit>>20)}
}

// handle answers one HTTP body or WebSocket message, with the HTTP status
// aria2 gives: 200 for success and for any batch, 400 for a single call
// that failed or a batch refused whole, 500 for a body that is not JSON.
func (s *Server) handle(ctx context.Context, body []byte) ([]byte, int) {
	b := &budget{calls: s.maxCalls, tokenless: maxTokenless, bytes: s.maxAnswer}
	ctx = context.WithValue(ctx, budgetKey{}, b)
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(body, &batch); err != nil {
			return marshal(response{JSONRPC: "2.0", Error: &errorObject{codeParse, "Parse error."}}), http.StatusInternalServerError
		}
		if len(batch) > b.calls {
			return marshal(response{JSONRPC: "2.0", Error: &errorObject{codeInvalid, tooManyCalls(len(batch), s.maxCalls).Error()}}), http.StatusBadRequest
		}
		b.calls -= len(batch)
		out := []byte{'['}
		for i, raw := range batch {
			if i > 0 {
				out = append(out, ',')
			}
			one, _ := s.answer(ctx, b, raw)
			out = append(out, one...)
		}
		return append(out, ']'), http.StatusOK
	}
	if !json.Valid(body) {
		return marshal(response{JSONRPC: "2.0", Error: &errorObject{codeParse, "Parse error."}}), http.StatusInternalServerError
	}
	b.calls--
	out, failed := s.answer(ctx, b, body)
	if failed {
		return out, http.StatusBadRequest
	}
	return out, http.StatusOK
}

// answer runs one call and encodes its answer, within what is left of the
// answer cap: a result that does not fit is replaced by an error that
// says so (its call has run). Errors are small and always fit. failed
// tells that the answer is an error.
func (s *Server) answer(ctx context.Context, b *budget, raw json.RawMessage) (out []byte, failed bool) {
	before := b.bytes
	resp := s.one(ctx, raw)
	out = marshal(resp)
	// A multicall charged its results as it made them.
	charged := before - b.bytes
	if resp.Error == nil && charged == 0 && len(out) > b.bytes {
		resp = response{ID: resp.ID, JSONRPC: "2.0", Error: answerTooBig(s.maxAnswer)}
		out = marshal(resp)
	}
	b.bytes = before - len(out)
	return out, resp.Error != nil
}

func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Results are built from strings, numbers, maps and slices.
		b, _ = json.Marshal(response{JSONRPC: "2.0", Error: &errorObject{codeFailed, "encode the answer: " + err.Error()}})
	}
	return b
}

func (s *Server) one(ctx context.Context, raw json.RawMessage) response {
	var req request
	// A request without an id is refused, as aria2 refuses it.
	if err := json.Unmarshal(raw, &req); err != nil || req.Method == "" || len(req.ID) == 0 {
		return response{ID: req.ID, JSONRPC: "2.0", Error: &errorObject{codeInvalid, "Invalid Request."}}
	}
	var params []json.RawMessage
	if len(req.Params) > 0 && string(req.Params) != "null" {
		if err := json.Unmarshal(req.Params, &params); err != nil {
			return response{ID: req.ID, JSONRPC: "2.0", Error: &errorObject{codeInvalid, "Invalid Request."}}
		}
	}
	res, err := s.call(ctx, req.Method, params, false)
	if err != nil {
		return response{ID: req.ID, JSONRPC: "2.0", Error: &errorObject{codeFailed, errorText(err)}}
	}
	return response{ID: req.ID, JSONRPC: "2.0", Result: res}
}

// rpcError is an error whose text is exactly what aria2 says.
type rpcError struct{ msg string }

func (e *rpcError) Error() string { return e.msg }

func failf(format string, args ...any) error { return &rpcError{fmt.Sprintf(format, args...)} }

var errUnauthorized = &rpcError{"Unauthorized"}

// errLockedOut answers every call while too many wrong tokens were sent
// lately, the right token too.
var errLockedOut = &rpcError{"Too many wrong tokens were sent; try again in a few seconds."}

// errorText is what a client reads of err.
func errorText(err error) string { return err.Error() }

// authorize takes the token off params, as aria2 does: a first string
// parameter that starts with "token:" is the token, whatever the method.
// Each call counts against the wrong-token limit, one of a batch or a
// multicall as much as a request of its own.
func (s *Server) authorize(params []json.RawMessage) ([]json.RawMessage, error) {
	token := ""
	if len(params) > 0 {
		var t string
		if json.Unmarshal(params[0], &t) == nil && strings.HasPrefix(t, "token:") {
			token, params = strings.TrimPrefix(t, "token:"), params[1:]
		}
	}
	right := subtle.ConstantTimeCompare([]byte(token), s.secret) == 1
	switch {
	case !s.failed.attempt(right):
		return params, errLockedOut
	case !right:
		return params, errUnauthorized
	}
	return params, nil
}

// authGuard is a token bucket of wrong tokens: while it is empty every
// request is refused, so a secret cannot be guessed at the request rate.
type authGuard struct {
	mu     sync.Mutex
	tokens float64
	last   time.Time
	clock  func() time.Time // nil: time.Now; tests stop it
}

func (g *authGuard) now() time.Time {
	if g.clock != nil {
		return g.clock()
	}
	return time.Now()
}

func (g *authGuard) refill(now time.Time) {
	if !g.last.IsZero() {
		g.tokens = min(failedAuthBurst, g.tokens+now.Sub(g.last).Seconds()*failedAuthRate)
	}
	g.last = now
}

// ok reports whether requests are answered now.
func (g *authGuard) ok() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refill(g.now())
	return g.tokens >= 1
}

// attempt counts one call with a token, right or not, and reports whether
// it may be answered: not while the limit is reached, whatever its token.
// A wrong token is counted when it is answered.
func (g *authGuard) attempt(right bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refill(g.now())
	if g.tokens < 1 {
		return false
	}
	if !right {
		g.tokens--
	}
	return true
}

// wsConn is one WebSocket client; writes are serialised by mu.
type wsConn struct {
	ws *websocket.Conn
	mu sync.Mutex
}

func (c *wsConn) write(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return c.ws.WriteMessage(websocket.TextMessage, b)
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	// The poller reads the queue before the client is answered: a job the
	// client's first call adds, even one that fails at once, is then a
	// change it hears of, not part of the first reading.
	s.mu.Lock()
	s.joining++
	s.mu.Unlock()
	ready := make(chan struct{})
	select {
	case s.primed <- ready:
		select {
		case <-ready:
		case <-s.ctx.Done():
		}
	case <-s.ctx.Done():
	}
	ws, err := s.up.Upgrade(w, r, nil)
	s.mu.Lock()
	s.joining-- // with the client counted in the same hold: the baseline stays
	if err != nil {
		s.mu.Unlock()
		return // the upgrader answered the client
	}
	ws.SetReadLimit(s.o.MaxRequest)
	c := &wsConn{ws: ws}
	if s.ctx.Err() != nil {
		s.mu.Unlock()
		_ = ws.Close()
		return
	}
	s.conns[c] = true
	s.wg.Add(1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		_ = ws.Close()
		s.wg.Done()
	}()
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			return
		}
		if !s.limit.Allow() || !s.failed.ok() {
			_ = c.write(marshal(response{JSONRPC: "2.0", Error: &errorObject{codeFailed, "Too many requests; try again later"}}))
			continue
		}
		out, _ := s.handle(s.ctx, msg)
		if err := c.write(out); err != nil {
			return
		}
	}
}

// broadcast sends a notification to every WebSocket client.
func (s *Server) broadcast(method, gid string) {
	b := marshal(struct {
		JSONRPC string           `json:"jsonrpc"`
		Method  string           `json:"method"`
		Params  []map[string]any `json:"params"`
	}{"2.0", method, []map[string]any{{"gid": gid}}})
	s.mu.Lock()
	conns := make([]*wsConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		_ = c.write(b) // a dead connection is dropped by its reader
	}
}

func (s *Server) hasClients() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)+s.joining > 0
}

// Changed tells the server that the queue changed by other hands than
// its clients' (the window, another braid command): its clients hear of
// it now. The server reads an idle queue only when told.
func (s *Server) Changed() {
	s.changes.Add(1)
	s.pokeNotify()
}

// pokeNotify makes the notification poller look now.
func (s *Server) pokeNotify() {
	select {
	case s.poke <- struct{}{}:
	default:
	}
}
