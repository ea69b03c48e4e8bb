package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"braid/internal/testkit"
)

// wsURL is the WebSocket address of b's server on host (with the port of
// the test server).
func (b *braid) wsURL(t *testing.T, host string) string {
	t.Helper()
	port := b.http.URL[strings.LastIndex(b.http.URL, ":")+1:]
	return "ws://" + host + ":" + port + Path
}

// stoppedClock is the wrong-token guard's clock, moved by hand.
type stoppedClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stoppedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock on by d.
func (c *stoppedClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// stopClock stops the wrong-token guard's clock, so that a slow run (the
// race detector) does not refill it while a test counts; call it before
// any request.
func (b *braid) stopClock() *stoppedClock {
	c := &stoppedClock{now: time.Now()}
	b.srv.failed.mu.Lock()
	b.srv.failed.clock = c.Now
	b.srv.failed.mu.Unlock()
	return c
}

// port is the test server's port.
func (b *braid) port() string { return b.http.URL[strings.LastIndex(b.http.URL, ":")+1:] }

// errMessage is the message of a JSON-RPC answer's error, "" if none.
func errMessage(answer any) string {
	m, _ := answer.(map[string]any)
	if e, ok := m["error"].(map[string]any); ok {
		m = e
	}
	msg, _ := m["message"].(string)
	return msg
}

// batchOf is a JSON-RPC batch of n copies of call.
func batchOf(n int, call string) string {
	var sb strings.Builder
	sb.Grow(n * (len(call) + 1))
	sb.WriteByte('[')
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(call)
	}
	sb.WriteByte(']')
	return sb.String()
}

// TestSameOriginWebSocket: a WebSocket or a CORS call from the server's
// own origin (what python's websocket-client sends by default) is
// accepted as aria2 accepts it; other origins, among them other local
// ports and DNS names that may have been rebound to us, are still
// refused, and the token still guards every aria2.* call.
func TestSameOriginWebSocket(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	for _, host := range []string{"127.0.0.1", "localhost"} {
		origin := "http://" + host + ":" + b.port()
		ws, resp, err := websocket.DefaultDialer.Dial(b.wsURL(t, host), http.Header{"Origin": {origin}})
		if err != nil {
			status := 0
			if resp != nil {
				status = resp.StatusCode
			}
			t.Errorf("WebSocket with its own origin %s: HTTP %d %v", origin, status, err)
			continue
		}
		ask := func(body string) map[string]any {
			if err := ws.WriteMessage(websocket.TextMessage, []byte(body)); err != nil {
				t.Fatal(err)
			}
			for {
				_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
				_, msg, err := ws.ReadMessage()
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]any
				if json.Unmarshal(msg, &m) == nil && m["id"] != nil {
					return m
				}
			}
		}
		if m := ask(`{"jsonrpc":"2.0","id":"1","method":"aria2.getVersion"}`); m["error"] == nil {
			t.Errorf("same origin %s without the token: %v, want Unauthorized", origin, m)
		}
		if m := ask(`{"jsonrpc":"2.0","id":"2","method":"aria2.getVersion","params":["token:` + b.secret + `"]}`); m["result"] == nil {
			t.Errorf("same origin %s with the token: %v", origin, m)
		}
		ws.Close()

		resp, _ = rawPost(t, "http://"+host+":"+b.port()+Path, `{"jsonrpc":"2.0","id":1,"method":"system.listMethods"}`, "Origin", origin)
		if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != origin {
			t.Errorf("POST from its own origin %s: HTTP %d, CORS %q", origin, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}

	other := "12345"
	if b.port() == other {
		other = "12346"
	}
	for _, origin := range []string{
		"http://evil.test",
		"http://127.0.0.1:" + other,                   // another local web app
		"https://127.0.0.1:" + b.port(),               // not a scheme this listener speaks
		"http://127.0.0.1",                            // port 80
		"http://localhost.evil.test:" + b.port(),      // a name that only looks local
		"http://127.0.0.1:" + b.port() + "@evil.test", // not an origin
		"null",
	} {
		_, resp, err := websocket.DefaultDialer.Dial(b.wsURL(t, "127.0.0.1"), http.Header{"Origin": {origin}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("WebSocket from %q was not refused: %v", origin, err)
		}
		resp, _ = rawPost(t, b.http.URL+Path, `{"jsonrpc":"2.0","id":1,"method":"system.listMethods"}`, "Origin", origin)
		if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("POST from %q: HTTP %d, CORS %q; want 403", origin, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}

	// With remote clients allowed the Host check is off: a page on a
	// name rebound to this machine sends Origin and Host alike. It is not
	// the server's own origin: the server has no name of its own.
	remote := newBraid(t, Options{AllowRemote: true})
	origin := "http://rebound.evil.test:" + remote.port()
	resp, _ := rawPost(t, remote.http.URL+Path, `{"jsonrpc":"2.0","id":1,"method":"system.listMethods"}`, "Origin", origin, "Host", "rebound.evil.test:"+remote.port())
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a rebound name as its own origin: HTTP %d, want 403", resp.StatusCode)
	}
}

// wrongThenRight is a batch of n wrong-token getVersion calls, then one
// with the right token.
func wrongThenRight(n int, secret string) string {
	return strings.TrimSuffix(batchOf(n, `{"jsonrpc":"2.0","id":"w","method":"aria2.getVersion","params":["token:guess"]}`), "]") +
		`,{"jsonrpc":"2.0","id":"r","method":"aria2.getVersion","params":["token:` + secret + `"]}]`
}

// TestWrongTokensCountPerCall: every call of a batch or a multicall
// counts against the wrong-token limit, so guesses cannot ride in one
// request, and after the limit the right token is refused too.
func TestWrongTokensCountPerCall(t *testing.T) {
	t.Parallel()
	right := func(b *braid) (int, string) {
		resp, body := rawPost(t, b.http.URL+Path, `{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion","params":["token:`+b.secret+`"]}`)
		return resp.StatusCode, body
	}
	t.Run("batch", func(t *testing.T) {
		t.Parallel()
		b := newBraid(t, Options{})
		clock := b.stopClock()
		n := defaultMaxCalls - 1
		resp, body := rawPost(t, b.http.URL+Path, wrongThenRight(n, b.secret))
		var out []map[string]any
		if err := json.Unmarshal([]byte(body), &out); err != nil || len(out) != n+1 {
			t.Fatalf("HTTP %d, %d bytes: %v", resp.StatusCode, len(body), err)
		}
		if out[n]["result"] != nil {
			t.Errorf("after %d wrong tokens in one batch the right one got through: %v", n, out[n])
		}
		unauthorized := 0
		for _, a := range out[:n] {
			if e, _ := a["error"].(map[string]any); e != nil && e["message"] == "Unauthorized" {
				unauthorized++
			}
		}
		if unauthorized > failedAuthBurst {
			t.Errorf("%d tokens of one batch were compared, want at most %d", unauthorized, failedAuthBurst)
		}
		if msg := errMessage(out[n]); !strings.Contains(msg, "wrong tokens") {
			t.Errorf("the right token in a locked batch: %q, want a sentence about wrong tokens", msg)
		}
		if status, body := right(b); status != http.StatusTooManyRequests {
			t.Errorf("right token after the batch: HTTP %d %s, want 429", status, body)
		}
		clock.Add(time.Second / failedAuthRate) // the lock-out time of one more try
		if status, body := right(b); status != http.StatusOK {
			t.Errorf("right token after the lock-out time: HTTP %d %s, want 200", status, body)
		}
	})
	t.Run("multicall", func(t *testing.T) {
		t.Parallel()
		b := newBraid(t, Options{})
		b.stopClock()
		calls := make([]any, 0, 501)
		for range 500 {
			calls = append(calls, map[string]any{"methodName": "aria2.getVersion", "params": []any{"token:guess"}})
		}
		calls = append(calls, map[string]any{"methodName": "aria2.getVersion", "params": []any{"token:" + b.secret}})
		status, m := b.post(t, map[string]any{"id": "m", "method": "system.multicall", "params": []any{calls}})
		res, _ := m["result"].([]any)
		if status != 200 || len(res) != len(calls) {
			t.Fatalf("HTTP %d, %d results", status, len(res))
		}
		if _, ok := res[len(res)-1].([]any); ok {
			t.Errorf("after 500 wrong tokens in one multicall the right one got through: %v", res[len(res)-1])
		}
		if status, body := right(b); status != http.StatusTooManyRequests {
			t.Errorf("right token after the multicall: HTTP %d %s, want 429", status, body)
		}
	})
	t.Run("websocket", func(t *testing.T) {
		t.Parallel()
		b := newBraid(t, Options{})
		b.stopClock()
		ws, _, err := websocket.DefaultDialer.Dial(b.wsURL(t, "127.0.0.1"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		if err := ws.WriteMessage(websocket.TextMessage, []byte(wrongThenRight(100, b.secret))); err != nil {
			t.Fatal(err)
		}
		for {
			_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, msg, err := ws.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			var out []map[string]any
			if json.Unmarshal(msg, &out) != nil {
				continue // a notification
			}
			if len(out) != 101 || out[100]["result"] != nil {
				t.Errorf("a batch of 100 wrong tokens then the right one over the WebSocket: %d answers, last %v", len(out), out[len(out)-1])
			}
			break
		}
	})
}

// TestBatchCaps: a batch (or a multicall) of more calls than any client
// sends is refused whole with one error in words; calls that need no
// token are answered only a few times in one request; and a request's
// answer stops growing at the answer cap.
func TestBatchCaps(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	list := `{"jsonrpc":"2.0","id":1,"method":"system.listMethods"}`

	resp, body := rawPost(t, b.http.URL+Path, batchOf(defaultMaxCalls+1, list))
	var one map[string]any
	if err := json.Unmarshal([]byte(body), &one); err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a batch over the cap: HTTP %d %.200s", resp.StatusCode, body)
	}
	if msg := errMessage(one); !strings.Contains(msg, fmt.Sprint(defaultMaxCalls)) || !strings.HasSuffix(msg, ".") {
		t.Errorf("a batch over the cap: %q, want a sentence that gives the cap", msg)
	}

	calls := make([]any, defaultMaxCalls+1)
	for i := range calls {
		calls[i] = map[string]any{"methodName": "system.listMethods"}
	}
	status, m := b.post(t, map[string]any{"id": "m", "method": "system.multicall", "params": []any{calls}})
	if msg := errMessage(m); status != http.StatusBadRequest || !strings.Contains(msg, fmt.Sprint(defaultMaxCalls)) {
		t.Errorf("a multicall over the cap: HTTP %d %v", status, m)
	}

	// Within the cap, the calls that need no token are answered a few
	// times; the rest say why they are not.
	resp, body = rawPost(t, b.http.URL+Path, batchOf(defaultMaxCalls, list))
	var out []map[string]any
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out) != defaultMaxCalls {
		t.Fatalf("a batch at the cap: HTTP %d, %d bytes: %v", resp.StatusCode, len(body), err)
	}
	answered := 0
	for _, a := range out {
		if a["result"] != nil {
			answered++
		}
	}
	if answered != maxTokenless {
		t.Errorf("%d listMethods of %d answered, want %d", answered, len(out), maxTokenless)
	}
	if len(body) > 200*defaultMaxCalls {
		t.Errorf("a batch of %d tokenless calls: %d bytes of answer", defaultMaxCalls, len(body))
	}
	t.Logf("a batch of %d system.listMethods: %d bytes of answer", defaultMaxCalls, len(body))

	// A request's answer stops at the answer cap: the calls past it fail
	// with a sentence, the ones before it are whole.
	small := newBraid(t, Options{})
	small.srv.maxAnswer = 4 << 10
	resp, body = rawPost(t, small.http.URL+Path, batchOf(50, `{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion","params":["token:`+small.secret+`"]}`))
	out = nil
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out) != 50 {
		t.Fatalf("a batch over the answer cap: HTTP %d %.300s", resp.StatusCode, body)
	}
	if out[0]["result"] == nil {
		t.Errorf("first answer: %v", out[0])
	}
	if msg := errMessage(out[49]); !strings.Contains(msg, "answer") {
		t.Errorf("last answer past the cap: %v", out[49])
	}
	if len(body) > small.srv.maxAnswer+4096 {
		t.Errorf("answer of %d bytes over a cap of %d", len(body), small.srv.maxAnswer)
	}

	// A multicall's results count against the same cap.
	multi := make([]any, 50)
	for i := range multi {
		multi[i] = map[string]any{"methodName": "aria2.getVersion", "params": []any{"token:" + small.secret}}
	}
	status, m = small.post(t, map[string]any{"id": "m", "method": "system.multicall", "params": []any{multi}})
	res, _ := m["result"].([]any)
	if status != http.StatusOK || len(res) != 50 {
		t.Fatalf("a multicall over the answer cap: HTTP %d %v", status, m)
	}
	if _, ok := res[0].([]any); !ok {
		t.Errorf("first multicall result: %v", res[0])
	}
	if msg := errMessage(res[49]); !strings.Contains(msg, "answer") {
		t.Errorf("last multicall result past the cap: %v", res[49])
	}
	if enc, _ := json.Marshal(m); len(enc) > small.srv.maxAnswer+4096 {
		t.Errorf("multicall answer of %d bytes over a cap of %d", len(enc), small.srv.maxAnswer)
	}

	// A batch's calls and its multicalls' share one cap.
	half := make([]any, defaultMaxCalls/2+1)
	for i := range half {
		half[i] = map[string]any{"methodName": "aria2.getVersion", "params": []any{"token:" + b.secret}}
	}
	mc, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "m", "method": "system.multicall", "params": []any{half}})
	resp, body = rawPost(t, b.http.URL+Path, strings.TrimSuffix(batchOf(defaultMaxCalls/2, list), "]")+","+string(mc)+"]")
	out = nil
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out) != defaultMaxCalls/2+1 {
		t.Fatalf("a batch with a multicall: HTTP %d %.200s", resp.StatusCode, body)
	}
	if msg := errMessage(out[len(out)-1]); !strings.Contains(msg, fmt.Sprint(defaultMaxCalls)) {
		t.Errorf("a multicall that takes the batch over the cap: %v", out[len(out)-1])
	}
}

// TestTokenlessFloodIsBounded is the measurement: a batch of
// 50,000 system.listMethods (under 2 MB) once made a 40 MB answer, and 20
// of them at once took gigabytes. Now the answer is a few hundred bytes and
// the memory the server takes for 20 at once stays small. Not parallel:
// it reads the process's memory figures.
func TestTokenlessFloodIsBounded(t *testing.T) {
	b := newBraid(t, Options{Rate: 1000})
	body := batchOf(50000, `{"id":1,"method":"system.listMethods"}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sizes := make([]int, 20)
	var wg sync.WaitGroup
	for i := range sizes {
		wg.Go(func() {
			resp, answer := rawPost(t, b.http.URL+Path, body)
			if resp.StatusCode == http.StatusTooManyRequests {
				t.Errorf("request %d was rate limited", i)
			}
			sizes[i] = len(answer)
		})
	}
	wg.Wait()
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("20 batches of 50,000 system.listMethods (%d bytes each): answers of %d bytes each; %d MiB allocated, heap at most %d MiB, from the system %d MiB more",
		len(body), sizes[0], alloc>>20, after.HeapSys>>20, (int64(after.Sys)-int64(before.Sys))>>20)
	for i, n := range sizes {
		if n > 4096 {
			t.Errorf("answer %d: %d bytes, want a refusal of a few hundred", i, n)
		}
	}
	// The bodies alone are 20 × 2 MB, read and split once each: about
	// 250 MiB allocated (350 under -race), 110 MiB more from the system.
	// Before the caps: 6.2 GiB allocated, 4.1 GiB more from the system.
	if grown := int64(after.Sys) - int64(before.Sys); alloc > 1<<30 || grown > 1<<30 {
		t.Errorf("%d MiB allocated, %d MiB more from the system for 20 refused batches", alloc>>20, grown>>20)
	}
}

// TestPlainWarning: a plain listener that other machines reach is warned
// about in words; one on loopback is not.
func TestPlainWarning(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"127.0.0.1:6800", "[::1]:6800", "localhost:6800", "127.0.0.2:6800"} {
		if w := PlainWarning(addr); w != "" {
			t.Errorf("PlainWarning(%q) = %q, want none", addr, w)
		}
	}
	for _, addr := range []string{"0.0.0.0:6800", ":6800", "[::]:6800", "192.168.1.5:6800", "nas.lan:6800"} {
		if w := PlainWarning(addr); !strings.Contains(w, addr) || !strings.Contains(w, "in clear") || !strings.HasSuffix(w, ".") {
			t.Errorf("PlainWarning(%q) = %q, want a sentence that names it", addr, w)
		}
	}
}

// startAria2c runs aria2c's RPC on a free loopback port for the test and
// returns the port and its secret; the test is skipped without aria2c.
func startAria2c(t *testing.T) (port int, secret string) {
	t.Helper()
	aria2c, err := exec.LookPath("aria2c")
	if err != nil {
		t.Skip("aria2c is not installed (Debian: aria2; under Wine a test binary finds only Windows programs): Braid is not compared with aria2 itself")
	}
	port, secret = testkit.FreePort(t), "s3cret-for-aria2c"
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, aria2c, "--no-conf", "--enable-rpc", "--rpc-listen-port="+strconv.Itoa(port),
		"--rpc-secret="+secret, "--dir="+dir, "--quiet", "--disable-ipv6", "--auto-save-interval=0")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	waitListening(t, port)
	return port, secret
}

// TestSameOriginLikeAria2c: the WebSocket handshake python's
// websocket-client makes (Origin: the server's own http://127.0.0.1:PORT)
// is accepted by aria2c and by Braid alike, and both answer a call with
// the token over it. Not parallel: aria2c listens on a port found free a
// moment before (see TestConformanceAria2c).
func TestSameOriginLikeAria2c(t *testing.T) {
	aPort, aSecret := startAria2c(t)
	b := newBraid(t, Options{})
	bPort, _ := strconv.Atoi(b.port())
	for _, tc := range []struct {
		name   string
		port   int
		secret string
	}{{"aria2c", aPort, aSecret}, {"braid", bPort, b.secret}} {
		url := fmt.Sprintf("ws://127.0.0.1:%d%s", tc.port, Path)
		ws, resp, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {fmt.Sprintf("http://127.0.0.1:%d", tc.port)}})
		if err != nil {
			status := 0
			if resp != nil {
				status = resp.StatusCode
			}
			t.Errorf("%s: same-origin WebSocket: HTTP %d %v", tc.name, status, err)
			continue
		}
		if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":"v","method":"aria2.getVersion","params":["token:`+tc.secret+`"]}`)); err != nil {
			t.Fatal(err)
		}
		_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			var m map[string]any
			if json.Unmarshal(msg, &m) == nil && m["id"] == "v" {
				if r, _ := m["result"].(map[string]any); r["version"] == nil {
					t.Errorf("%s: getVersion over the same-origin WebSocket: %s", tc.name, msg)
				}
				break
			}
		}
		ws.Close()
	}
}
