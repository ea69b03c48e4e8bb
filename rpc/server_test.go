package rpc

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func rawPost(t *testing.T, url string, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestToken(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	errOf := func(m map[string]any) string {
		e, _ := m["error"].(map[string]any)
		s, _ := e["message"].(string)
		return s
	}
	tests := []struct {
		name   string
		body   map[string]any
		status int
		err    string
	}{
		{"listMethods takes no token", map[string]any{"id": 1, "method": "system.listMethods"}, 200, ""},
		{"listNotifications takes no token", map[string]any{"id": 1, "method": "system.listNotifications"}, 200, ""},
		{"listMethods ignores a wrong one", map[string]any{"id": 1, "method": "system.listMethods", "params": []any{"token:nope"}}, 200, ""},
		{"no token", map[string]any{"id": 1, "method": "aria2.getVersion"}, 400, "Unauthorized"},
		{"no params at all", map[string]any{"id": 1, "method": "aria2.tellActive", "params": nil}, 400, "Unauthorized"},
		{"wrong token", map[string]any{"id": 1, "method": "aria2.getVersion", "params": []any{"token:" + b.secret + "x"}}, 400, "Unauthorized"},
		{"the secret without token:", map[string]any{"id": 1, "method": "aria2.getVersion", "params": []any{b.secret}}, 400, "Unauthorized"},
		{"right token", map[string]any{"id": 1, "method": "aria2.getVersion", "params": []any{"token:" + b.secret}}, 200, ""},
		{"no id", map[string]any{"method": "aria2.getVersion", "params": []any{"token:" + b.secret}}, 400, "Invalid Request."},
		{"a GID that is not one", map[string]any{"id": 1, "method": "aria2.tellStatus", "params": []any{"token:" + b.secret, "zz"}}, 400, "Invalid GID zz"},
		{"no such method", map[string]any{"id": 1, "method": "aria2.nosuch", "params": []any{"token:" + b.secret}}, 400, "No such method: aria2.nosuch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, m := b.post(t, tc.body)
			if status != tc.status || errOf(m) != tc.err {
				t.Errorf("HTTP %d %q, want %d %q (%v)", status, errOf(m), tc.status, tc.err, m)
			}
		})
	}
}

func TestMulticall(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	good, bad := "token:"+b.secret, "token:wrong"
	status, m := b.post(t, map[string]any{"id": "m", "method": "system.multicall", "params": []any{[]any{
		map[string]any{"methodName": "aria2.getVersion", "params": []any{good}},
		map[string]any{"methodName": "aria2.getVersion", "params": []any{bad}},
		map[string]any{"methodName": "system.multicall", "params": []any{[]any{}}},
		map[string]any{"methodName": "aria2.getGlobalStat", "params": []any{good}},
	}}})
	if status != 200 {
		t.Fatalf("HTTP %d %v", status, m)
	}
	res, _ := m["result"].([]any)
	if len(res) != 4 {
		t.Fatalf("results %v", m)
	}
	if v, ok := res[0].([]any); !ok || v[0].(map[string]any)["version"] != AriaVersion {
		t.Errorf("first: %v, want [getVersion]", res[0])
	}
	if e, ok := res[1].(map[string]any); !ok || e["message"] != "Unauthorized" || e["code"] != 1.0 {
		t.Errorf("second: %v, want Unauthorized", res[1])
	}
	if e, ok := res[2].(map[string]any); !ok || !strings.Contains(e["message"].(string), "Recursive") {
		t.Errorf("third: %v, want a refused nested multicall", res[2])
	}
	if v, ok := res[3].([]any); !ok || v[0].(map[string]any)["numActive"] != "0" {
		t.Errorf("fourth: %v, want [getGlobalStat]", res[3])
	}
}

func TestBatchAndParseErrors(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	url := b.http.URL + Path
	resp, body := rawPost(t, url, `[{"jsonrpc":"2.0","id":"a","method":"aria2.getVersion","params":["token:`+b.secret+`"]},`+
		`{"jsonrpc":"2.0","id":"b","method":"aria2.getVersion","params":["token:bad"]},{"nonsense":true}]`)
	var out []map[string]any
	if err := json.Unmarshal([]byte(body), &out); err != nil || resp.StatusCode != 200 || len(out) != 3 {
		t.Fatalf("batch: HTTP %d %s", resp.StatusCode, body)
	}
	if out[0]["id"] != "a" || out[0]["result"] == nil || out[1]["id"] != "b" || out[1]["error"] == nil || out[2]["error"] == nil {
		t.Errorf("batch answers %v", out)
	}
	resp, body = rawPost(t, url, `{"jsonrpc":"2.0","id":`)
	if resp.StatusCode != 500 || !strings.Contains(body, `"code":-32700`) {
		t.Errorf("broken JSON: HTTP %d %s, want 500 and -32700 as aria2", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json-rpc" {
		t.Errorf("Content-Type %q", ct)
	}
	if strings.Contains(body, b.secret) {
		t.Error("an answer holds the secret")
	}
}

func TestOriginsAndHosts(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{AllowOrigins: []string{"http://ariang.test"}})
	url := b.http.URL + Path
	call := `{"jsonrpc":"2.0","id":1,"method":"system.listMethods"}`
	resp, _ := rawPost(t, url, call, "Origin", "http://ariang.test")
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "http://ariang.test" {
		t.Errorf("allowed origin: HTTP %d, CORS %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	resp, _ = rawPost(t, url, call, "Origin", "http://evil.test")
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("other origin: HTTP %d, CORS %q; want 403 and no CORS", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	resp, _ = rawPost(t, url, call)
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("no origin (a program): HTTP %d, CORS %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	resp, _ = rawPost(t, url, call, "Host", "rebound.evil.test:6800")
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a non-loopback Host: HTTP %d, want 403", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodOptions, url, nil)
	req.Header.Set("Origin", "http://ariang.test")
	req.Header.Set("Access-Control-Request-Method", "POST")
	pre, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	pre.Body.Close()
	if pre.StatusCode != 200 || !strings.Contains(pre.Header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight: HTTP %d %v", pre.StatusCode, pre.Header)
	}

	anyOrigin := newBraid(t, Options{AllowOrigins: []string{"*"}, AllowRemote: true})
	resp, _ = rawPost(t, anyOrigin.http.URL+Path, call, "Origin", "http://anywhere.test", "Host", "braid.lan:6800")
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "http://anywhere.test" {
		t.Errorf("\"*\" and remote allowed: HTTP %d, CORS %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
}

func TestBounds(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{MaxRequest: 1024})
	resp, _ := rawPost(t, b.http.URL+Path, `{"jsonrpc":"2.0","id":1,"method":"aria2.addUri","params":["`+strings.Repeat("x", 2048)+`"]}`)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the bound: HTTP %d, want 413", resp.StatusCode)
	}

	slow := newBraid(t, Options{Rate: 1})
	limited := 0
	for range 10 {
		resp, _ := rawPost(t, slow.http.URL+Path, `{"jsonrpc":"2.0","id":1,"method":"system.listMethods"}`)
		if resp.StatusCode == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited == 0 {
		t.Error("10 requests at once at 1 a second: none was refused")
	}
}

func TestWrongTokensAreBounded(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	for range failedAuthBurst {
		b.post(t, map[string]any{"id": 1, "method": "aria2.getVersion", "params": []any{"token:guess"}})
	}
	resp, body := rawPost(t, b.http.URL+Path, `{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion","params":["token:`+b.secret+`"]}`)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("after %d wrong tokens at once the right one got HTTP %d %s, want 429", failedAuthBurst, resp.StatusCode, body)
	}
}

func TestListenLoopbackOnly(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0"} {
		if ln, err := Listen(addr, false); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) without allowing remote clients: no error", addr)
		} else if !strings.Contains(err.Error(), "loopback") {
			t.Errorf("Listen(%q): %v, want a message about loopback", addr, err)
		}
	}
	ln, err := Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	ln, err = Listen("0.0.0.0:0", true)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

func TestNewNeedsSecret(t *testing.T) {
	t.Parallel()
	if _, err := New(&QueueDownloads{}, Options{}); err == nil {
		t.Error("a server without a secret was made")
	}
}

func TestShutdown(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	forced := make(chan bool, 2)
	b := newBraid(t, Options{Shutdown: func(force bool) { calls.Add(1); forced <- force }})
	if got := b.call(t, "aria2.forceShutdown"); got != "OK" {
		t.Fatalf("forceShutdown: %v", got)
	}
	b.call(t, "aria2.shutdown")
	select {
	case f := <-forced:
		if !f {
			t.Error("forceShutdown called Shutdown(false)")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown was not called")
	}
	select {
	case <-forced:
		t.Error("Shutdown was called twice")
	case <-time.After(300 * time.Millisecond):
	}

	window := newBraid(t, Options{})
	if msg := window.callErr(t, "aria2.shutdown"); !strings.Contains(msg, "not supported") {
		t.Errorf("shutdown without a Shutdown: %q", msg)
	}
}

func TestPage(t *testing.T) {
	t.Parallel()
	all := []int{0, 1, 2, 3, 4}
	tests := []struct {
		offset, num int64
		want        []int
	}{
		{0, 2, []int{0, 1}},
		{3, 10, []int{3, 4}},
		{5, 1, nil},
		{-1, 1, []int{4}},
		{-1, 3, []int{4, 3, 2}},
		{-2, 10, []int{3, 2, 1, 0}},
		{-6, 2, nil},
		{0, 0, []int{}},
	}
	for _, tc := range tests {
		got := page(all, tc.offset, tc.num)
		if !slices.Equal(got, tc.want) {
			t.Errorf("page(%d, %d) = %v, want %v", tc.offset, tc.num, got, tc.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"1024", 1024, true}, {"1K", 1024, true}, {"1M", 1 << 20, true},
		{"500k", 500 << 10, true}, {"-1", 0, false}, {"1G", 0, false}, {"", 0, false}, {"9999999999999999999M", 0, false},
	}
	for _, tc := range tests {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v", tc.in, got, err)
		}
	}
}

func TestGet(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	get := func(query string) (int, string) {
		resp, err := http.Get(b.http.URL + Path + "?" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	params := func(p string) string { return url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(p))) }
	status, body := get("method=aria2.getVersion&id=7&params=" + params(`["token:`+b.secret+`"]`))
	if status != 200 || !strings.Contains(body, `"id":"7"`) || !strings.Contains(body, AriaVersion) {
		t.Errorf("GET getVersion: HTTP %d %s", status, body)
	}
	status, body = get("method=aria2.getVersion&id=7&params=" + params(`["token:wrong"]`))
	if status != 400 || !strings.Contains(body, "Unauthorized") {
		t.Errorf("GET with a wrong token: HTTP %d %s", status, body)
	}
	status, _ = get("method=aria2.getVersion&id=7&jsoncallback=cb&params=" + params(`["token:`+b.secret+`"]`))
	if status != 400 {
		t.Errorf("JSONP: HTTP %d, want 400", status)
	}
	status, body = get("method=aria2.getVersion&id=7&params=!!!")
	if status != 500 || !strings.Contains(body, "-32700") {
		t.Errorf("params not base64: HTTP %d %s", status, body)
	}
}
