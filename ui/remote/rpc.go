// Package remote is a ui.Backend over aria2's JSON-RPC: the window drives
// the downloads of an aria2, or of a Braid `queue run --rpc-listen`, that
// runs elsewhere. Calls go over HTTP POST; the daemon's notifications
// come over a WebSocket and wake the window (Notifier). The daemon does
// the downloading: nothing here fetches a source.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"braid/engine/explain"
)

// callTimeout bounds one call: a daemon that hangs is a sentence after
// it, not a window that waits.
const callTimeout = 10 * time.Second

// maxAnswer bounds an answer read into memory (a queue of thousands of
// downloads with their files is a few MB).
const maxAnswer = 64 << 20

// rpcError is an error the daemon answered with.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// call makes one JSON-RPC call and decodes its result into out (nil:
// ignored). The secret goes first in params as aria2 wants it, and never
// into an error.
func (b *Backend) call(ctx context.Context, out any, method string, params ...any) error {
	err := b.callOnce(ctx, out, method, params...)
	var un *Unreachable
	if errors.As(err, &un) && un.Why == whyClosed && readOnly(method) {
		// A kept-alive connection to a daemon that went away fails
		// with the daemon's close, not with what a new one would
		// meet: a call that changes nothing is made again on a new
		// connection, whose failure says what is there now.
		b.client.CloseIdleConnections()
		err = b.callOnce(ctx, out, method, params...)
	}
	return err
}

// whyClosed is the words of a connection the daemon closed.
const whyClosed = "it closed the connection"

// readOnly reports whether method only reads, and so can be called again.
func readOnly(method string) bool {
	return strings.HasPrefix(method, "aria2.tell") || strings.HasPrefix(method, "aria2.get") || method == "system.listMethods"
}

func (b *Backend) callOnce(ctx context.Context, out any, method string, params ...any) error {
	if b.secret != "" {
		params = append([]any{"token:" + b.secret}, params...)
	}
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "braid", "method": method, "params": params})
	if err != nil {
		return sayf("The call %s could not be written: %w", method, err)
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.endpoint, bytes.NewReader(body))
	if err != nil {
		return b.unreachable(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.client.Do(req)
	if err != nil {
		return b.unreachable(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return b.unreachable(err)
	}
	var answer struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return sayf("The downloads at %s answered with something other than aria2's JSON-RPC (HTTP %d).", b.shown, resp.StatusCode)
	}
	if answer.Error != nil {
		if answer.Error.Message == "Unauthorized" {
			return ErrSecret
		}
		return &DaemonError{Method: method, Code: answer.Error.Code, Message: answer.Error.Message}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(answer.Result, out); err != nil {
		return sayf("The downloads at %s answered %s in a form Braid does not know.", b.shown, method)
	}
	return nil
}

// ErrSecret is a daemon's refusal of the secret (aria2's "Unauthorized").
var ErrSecret error = &said{text: "The remote refused the secret."}

// DaemonError is an error the daemon answered a call with.
type DaemonError struct {
	Method  string
	Code    int
	Message string
}

// Error is the daemon's message, as a sentence.
func (e *DaemonError) Error() string {
	return "The remote downloads answered: " + explain.AsSentence(e.Message)
}

// Unreachable is a daemon that could not be reached: nothing listens, it
// did not answer in time, or its name is unknown. Error is a sentence
// naming the endpoint (without any password in it); Err is the network's
// own error.
type Unreachable struct {
	Endpoint string
	Why      string
	Err      error
}

func (e *Unreachable) Error() string {
	return fmt.Sprintf("Cannot reach the downloads at %s: %s.", e.Endpoint, e.Why)
}

func (e *Unreachable) Unwrap() error { return e.Err }

// unreachable words a failed round trip. The words avoid the network's
// own ("connection refused"), which the window would take for a server's
// refusal of a download and replace.
func (b *Backend) unreachable(err error) error {
	why := "the connection failed"
	var dns *net.DNSError
	var ne net.Error
	switch {
	case refused(err):
		why = "nothing answers there"
	case errors.As(err, &dns):
		why = "its name is not known"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		why = fmt.Sprintf("it did not answer within %d s", int(callTimeout/time.Second))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		why = whyClosed
	}
	return &Unreachable{Endpoint: b.shown, Why: why, Err: err}
}

// redacted is endpoint with any password hidden, for sentences.
func redacted(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil {
		return u.Redacted()
	}
	return endpoint
}

// said is an error whose text is a whole sentence, as the window shows it
// (capitalised, with its full stop), wrapping the error behind it if any.
type said struct {
	text string
	err  error
}

func (s *said) Error() string { return s.text }
func (s *said) Unwrap() error { return s.err }

// sayf is fmt.Errorf for a sentence the window shows as it is.
func sayf(format string, args ...any) error {
	e := fmt.Errorf(format, args...)
	return &said{text: e.Error(), err: errors.Unwrap(e)}
}
