// Package transport reads byte ranges of one remote file from one mirror.
// Every protocol (HTTP, FTP, and later BitTorrent) stands behind Source, so
// the scheduler never knows which it is talking to.
package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"braid/engine/metalink"
	"braid/engine/netconf"
)

// Source reads one file from one mirror. Its methods are safe for concurrent
// use: the scheduler may read several ranges at once from the same Source.
type Source interface {
	// Mirror names the mirror for display and blame: its URL without
	// credentials.
	Mirror() string
	// ReadRange returns the bytes [off, off+n) of the file. The reader
	// yields exactly n bytes and then io.EOF; a mirror that stops early
	// makes it fail with io.ErrUnexpectedEOF. A mirror that cannot start at
	// off (it ignores ranges) fails with ErrNoRanges before any byte is read.
	// Closing the reader ends the transfer cleanly.
	ReadRange(ctx context.Context, off, n int64) (io.ReadCloser, error)
}

// Stater is a Source that can describe the remote file before it sends a
// byte of it, so a mirror that disagrees is dropped early.
type Stater interface {
	Source
	Stat(ctx context.Context) (Info, error)
}

// Info is what a mirror says about the file before sending it.
type Info struct {
	Size    int64  // -1 when the mirror does not say
	Ranges  bool   // the mirror serves arbitrary ranges
	ETag    string // strong or weak validator, as sent
	Name    string // from Content-Disposition, unchecked; "" when absent
	Digests []metalink.Hash
	// Links are Metalink/HTTP Link headers (RFC 6249) as sent; only the
	// origin's count, mirrors' are ignored by the caller.
	Links []metalink.Link
}

// Errors a Source returns, wrapped with the mirror and range; test with errors.Is.
var (
	// ErrNoRanges: the mirror answered a range request with the whole file.
	ErrNoRanges = errors.New("mirror does not serve byte ranges")
	// ErrMismatch: the mirror's size, Content-Range, ETag or Digest
	// disagrees with what is expected of the file.
	ErrMismatch = errors.New("mirror disagrees with the expected file")
	// ErrNotFound: the mirror does not have the file.
	ErrNotFound = errors.New("the server does not have the file")
	// ErrDenied: the mirror refuses us for good: credentials it does not
	// accept (HTTP 401 and 403, FTP 530) or a request it calls malformed
	// (another 4xx). Asking again the same way cannot help.
	ErrDenied = errors.New("the server refused access")
)

// LoginError is a server's refusal for want of a login: it asks for one
// (HTTP 401, FTP 530 to an anonymous login) and none was given, or it
// refused the one given. Proxy says it was the proxy that asked (HTTP
// 407). It matches ErrDenied with errors.Is: asking again the same way
// cannot help, but a user with a password can.
type LoginError struct {
	Mirror  string // the URL that asked, without credentials
	Refused bool   // a login was given and refused; false: none was given
	Proxy   bool   // the proxy asked (it does not say whether it had one)
	Detail  string // the server's answer, such as "401 Unauthorized"
	// Err is the error behind it when there is one (a SOCKS proxy's
	// refusal wraps netconf.ErrProxyLogin).
	Err error
}

// Error is the sentence for a user; the wrapping error names the mirror.
func (e *LoginError) Error() string {
	var what string
	switch {
	case e.Proxy:
		what = "the proxy asks for a login or refused the one given"
	case e.Refused:
		what = "the login was refused"
	default:
		what = "the server asks for a login"
	}
	if e.Detail != "" {
		what += " (" + e.Detail + ")"
	}
	return what
}

// Unwrap makes a LoginError match ErrDenied, and Err.
func (e *LoginError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrDenied, e.Err}
	}
	return []error{ErrDenied}
}

// proxyLogin makes an error that says the proxy wants a login (it wraps
// netconf.ErrProxyLogin) a LoginError; other errors are returned as
// they are.
func proxyLogin(mirror string, err error) error {
	if err == nil || !errors.Is(err, netconf.ErrProxyLogin) {
		return err
	}
	return &LoginError{Mirror: mirror, Proxy: true, Err: err}
}

// RetryError is a temporary refusal (429, 503, FTP 421): try this mirror
// again after After, not before.
type RetryError struct {
	After time.Duration
	Err   error
}

func (e *RetryError) Error() string {
	return fmt.Sprintf("%v (retry after %s)", e.Err, e.After)
}

func (e *RetryError) Unwrap() error { return e.Err }
