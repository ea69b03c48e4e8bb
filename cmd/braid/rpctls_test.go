package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"braid/internal/testkit"
)

// TestQueueRunTLS: `queue run --rpc-secure` with aria2's certificate and
// key flags answers HTTPS only, says https:// and does not warn about a
// plain listener; the flags without each other are refused in words.
func TestQueueRunTLS(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pool := testkit.SelfSigned(t)
	secretFile := writeSecret(t, "tls-s3cret\n")
	endpoint, done, _, errOut := startQueueRPC(t, t.TempDir(), t.TempDir(), "--rpc-secret-file", secretFile,
		"--rpc-listen", "0.0.0.0:0", "--rpc-allow-remote", "--rpc-secure", "--rpc-certificate", certFile, "--rpc-private-key", keyFile)
	if !strings.HasPrefix(endpoint, "https://") {
		t.Fatalf("queue run --rpc-secure says %s, want https://", endpoint)
	}
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	call := func(method string) (int, map[string]any) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "1", "method": method, "params": []any{"token:tls-s3cret"}})
		resp, err := client.Post(endpoint, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s over HTTPS: %v", method, err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var v map[string]any
		_ = json.Unmarshal(raw, &v)
		return resp.StatusCode, v
	}
	if code, v := call("aria2.getVersion"); code != http.StatusOK {
		t.Errorf("getVersion over HTTPS: HTTP %d %v", code, v)
	}
	if resp, err := http.Post(strings.Replace(endpoint, "https://", "http://", 1), "application/json", strings.NewReader(`{}`)); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP answered by a --rpc-secure listener")
		}
	}
	if code, v := call("aria2.shutdown"); code != http.StatusOK {
		t.Fatalf("shutdown: HTTP %d %v", code, v)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("queue run ended with %d: %s", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("queue run still serving 20 s after aria2.shutdown")
	}
	if strings.Contains(errOut.String(), "plain HTTP") {
		t.Errorf("a TLS listener was warned about as plain: %s", errOut.String())
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rpc-secure"}, "needs --rpc-certificate"},
		{[]string{"--rpc-secure", "--rpc-certificate", certFile}, "needs --rpc-certificate"},
		{[]string{"--rpc-certificate", certFile, "--rpc-private-key", keyFile}, "add it"},
		{[]string{"--rpc-secure", "--rpc-certificate", keyFile, "--rpc-private-key", certFile}, "cannot use"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"--state", t.TempDir(), "run", "--rpc-listen", "127.0.0.1:0", "--rpc-secret-file", secretFile}, tc.args...)
		if code := cmdQueue(t.Context(), args, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want a refusal saying %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}
