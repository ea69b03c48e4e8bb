package rpc

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Every method with parameters of the wrong kinds answers an error or a
// result, never a panic, and never with the secret in it.
func TestHostileParams(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{Shutdown: func(bool) {}, Rate: 1e6})
	bad := [][]any{
		nil,
		{nil},
		{"0000000100000000"},
		{"zz", "yy", "xx"},
		{1, 2, 3, 4},
		{map[string]any{"dir": 5}, []any{1}, "x"},
		{[]any{map[string]any{}}, map[string]any{"pause": true, "header": 7}},
		{"AAAA", []string{"x"}, map[string]any{}, "not a position"},
		{"0000000100000000", -1, "POS_SIDEWAYS"},
		{-1, 1e30, []any{"gid"}},
		{strings.Repeat("[", 10000)},
	}
	for _, name := range methodNames {
		if name == "system.multicall" {
			continue
		}
		for _, p := range bad {
			params := append([]any{"token:" + b.secret}, p...)
			status, m := b.post(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": name, "params": params})
			if status != http.StatusOK && status != http.StatusBadRequest {
				t.Errorf("%s %v: HTTP %d", name, p, status)
			}
			out, _ := json.Marshal(m)
			if strings.Contains(string(out), b.secret) {
				t.Errorf("%s %v: the answer holds the secret", name, p)
			}
		}
	}
}

// FuzzHandle feeds bodies to the request reader: no panic, and a JSON
// answer for every body.
func FuzzHandle(f *testing.F) {
	b := newBraid(f, Options{})
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"system.listMethods"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion","params":["token:` + b.secret + `"]}]`,
		`{"jsonrpc":"2.0","id":1,"method":"system.multicall","params":[[{"methodName":"aria2.tellActive","params":["token:` + b.secret + `"]}]]}`,
		`{"jsonrpc":"2.0","id":1,"method":"aria2.tellWaiting","params":["token:` + b.secret + `",-5,3,["gid"]]}`,
		`{"id":{"a":[1,2]},"method":"aria2.tellStatus","params":["token:` + b.secret + `","0000000100000000",["files"]]}`,
		`[]`, `[[]]`, `null`, `"x"`, `{"method":1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		out, status := b.srv.handle(context.Background(), body)
		if !json.Valid(out) || status == 0 {
			t.Fatalf("%q: answer %q, HTTP %d", body, out, status)
		}
	})
}
