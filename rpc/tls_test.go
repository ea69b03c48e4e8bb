package rpc

import (
	"crypto/tls"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"braid/internal/testkit"
)

// TestServeTLS: with aria2's certificate and key the server answers
// HTTPS and WSS (same-origin https:// included), and a plain HTTP client
// gets no JSON-RPC answer; files that are not a pair are refused with a
// sentence that names them.
func TestServeTLS(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pool := testkit.SelfSigned(t)
	cfg, err := LoadTLS(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	b := newBraid(t, Options{TLS: cfg})
	ln, err := Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- b.srv.Serve(t.Context(), ln) }()
	addr := ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}

	body := `{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion","params":["token:` + b.secret + `"]}`
	resp, err := client.Post("https://"+addr+Path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("HTTPS: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("getVersion over HTTPS: HTTP %d", resp.StatusCode)
	}

	d := websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: pool}}
	ws, resp, err := d.Dial("wss://"+addr+Path, http.Header{"Origin": {"https://" + addr}})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Errorf("WSS with its own https origin: HTTP %d %v", status, err)
	} else {
		ws.Close()
	}
	if _, resp, err := d.Dial("wss://"+addr+Path, http.Header{"Origin": {"http://" + addr}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("WSS with an http:// origin (not this listener's scheme): %v, want 403", err)
	}

	plain, err := http.Post("http://"+addr+Path, "application/json", strings.NewReader(body))
	if err == nil {
		plain.Body.Close()
		if plain.StatusCode == http.StatusOK {
			t.Errorf("plain HTTP to the TLS listener: HTTP %d", plain.StatusCode)
		}
	}

	b.srv.Close()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}

	if _, err := LoadTLS(keyFile, certFile); err == nil || !strings.Contains(err.Error(), keyFile) || !strings.Contains(err.Error(), "PEM") {
		t.Errorf("LoadTLS with the files swapped: %v, want a sentence naming them", err)
	}
}
