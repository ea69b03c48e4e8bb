// Package explain sorts a download's errors into the few kinds a user
// can act on (the server cannot be reached, the file is gone, the disk is
// full, ...), so that every face can say one short sentence for each kind
// and keep the error's own text as the detail behind it.
//
// Of looks at an error's chain with errors.Is and errors.As (syscall
// errors, *net.DNSError, x509 and TLS errors, engine/transport's typed
// errors); OfText reads the same kinds from an error's text, for errors
// that were stored as text (the queue keeps a job's error as a string).
package explain

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io/fs"
	"net"
	"os"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"braid/engine"
	"braid/engine/transport"
)

// Kind is what went wrong, as a user would act on it.
type Kind uint8

// The kinds, from the network outwards to the disk.
const (
	Unknown      Kind = iota // none of the below: the detail says it all
	Unreachable              // the network or the host cannot be reached
	NameNotFound             // the server's name is not known (DNS)
	Refused                  // the host refused the connection
	TimedOut                 // the server did not answer in time
	Dropped                  // the connection broke off mid-way
	Certificate              // the server's TLS certificate is not trusted
	NotFound                 // the server does not have the file (404)
	Expired                  // the link is gone for good (410)
	LoginNeeded              // the server wants a login, or refused the one given
	Forbidden                // the server refuses access (403)
	Busy                     // the server is busy, asks to come back (429, 503)
	ServerError              // the server failed (5xx)
	DiskFull                 // no space left on the disk
	NoPermission             // the folder or file may not be written
	BadData                  // what arrived does not match its hash
	NoMirrorLeft             // every mirror was given up
	Exists                   // a different file is at the name
	BadSignature             // the file's signature does not check out
	DiskError                // the file system refused to make, rename or remove a file
	BadDocument              // a metalink that cannot be read: malformed, cut short, not one
	ProxyLogin               // the proxy wants a login, or refused the one given
)

// kinds are each kind's name and its words for a line of the command
// line ("next try in 6 s (the server refused the connection)"), in the
// order of the constants; the window has its own sentences, translated.
var kinds = [...]struct{ name, clause string }{
	Unknown:      {"unknown", ""},
	Unreachable:  {"unreachable", "the server cannot be reached"},
	NameNotFound: {"name not found", "the server's name is not known"},
	Refused:      {"refused", "the server refused the connection"},
	TimedOut:     {"timed out", "the server did not answer in time"},
	Dropped:      {"connection dropped", "the connection to the server broke off"},
	Certificate:  {"certificate", "the server's certificate is not trusted"},
	NotFound:     {"not found", "the server does not have the file (not found)"},
	Expired:      {"expired", "the link has expired"},
	LoginNeeded:  {"login needed", "the server asks for a login, or refused the one given"},
	Forbidden:    {"forbidden", "the server refuses access"},
	Busy:         {"busy", "the server is busy"},
	ServerError:  {"server error", "the server failed (an error on its side)"},
	DiskFull:     {"disk full", "the disk is full"},
	NoPermission: {"no permission", "no permission to write the folder or the file"},
	BadData:      {"bad data", "what arrived does not match its hash"},
	NoMirrorLeft: {"no mirror left", "no server is left that can send the file"},
	Exists:       {"exists", "a different file is already at the name"},
	BadSignature: {"bad signature", "the signature does not check out"},
	DiskError:    {"disk error", "the file system refused to make, rename or remove a file"},
	BadDocument:  {"bad document", "the metalink cannot be read"},
	ProxyLogin:   {"proxy login needed", "the proxy asks for a login, or refused the one given"},
}

func (k Kind) String() string {
	if int(k) < len(kinds) {
		return kinds[k].name
	}
	return "unknown"
}

// Clause is the kind in words, lower case, for a line of the command
// line; "" for Unknown, whose error text says it all.
func (k Kind) Clause() string {
	if int(k) < len(kinds) {
		return kinds[k].clause
	}
	return ""
}

// Retrying reports whether errors of the kind are passing: Braid waits
// and tries again rather than giving up.
func (k Kind) Retrying() bool {
	switch k {
	case Unreachable, NameNotFound, Refused, TimedOut, Dropped, Busy, ServerError:
		return true
	}
	return false
}

// Of is the kind of err: the most specific cause in its chain. An error
// that lists several causes (every mirror's) is the kind of the first
// cause with one, else NoMirrorLeft when no mirror is left.
func Of(err error) Kind {
	if err == nil {
		return Unknown
	}
	if k := ofChain(err); k != Unknown {
		return k
	}
	return OfText(err.Error())
}

func ofChain(err error) Kind {
	var (
		dns      *net.DNSError
		login    *transport.LoginError
		retry    *transport.RetryError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
		netErr   net.Error
	)
	switch {
	case errors.As(err, &login) && login.Proxy:
		return ProxyLogin
	case errors.As(err, &login):
		return LoginNeeded
	case errors.As(err, &unknown), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &verify):
		return Certificate
	case errors.As(err, &dns):
		if dns.IsTimeout {
			return TimedOut
		}
		return NameNotFound
	case errors.Is(err, syscall.ECONNREFUSED):
		return Refused
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.EHOSTDOWN), errors.Is(err, syscall.ENETDOWN):
		return Unreachable
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED):
		return Dropped
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return DiskFull
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return NoPermission
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return TimedOut
	case errors.As(err, &netErr) && netErr.Timeout():
		return TimedOut
	case errors.As(err, &retry):
		return Busy
	case errors.Is(err, engine.ErrHashMismatch), errors.Is(err, engine.ErrBadPiece):
		return BadData
	case errors.Is(err, engine.ErrExists):
		return Exists
	}
	// The typed errors that carry a status: 404 or 410, 403.
	if errors.Is(err, transport.ErrNotFound) {
		if transport.StatusOf(err) == 410 {
			return Expired
		}
		return NotFound
	}
	if errors.Is(err, transport.ErrDenied) {
		return Forbidden
	}
	if errors.Is(err, engine.ErrNoMirrors) {
		if k := OfText(err.Error()); k != Unknown && k != NoMirrorLeft {
			return k
		}
		return NoMirrorLeft
	}
	// Any other refusal of the file system: its cause is in the detail
	// ("Invalid function", "directory not empty").
	var (
		pathErr *fs.PathError
		linkErr *os.LinkError
	)
	if errors.As(err, &pathErr) || errors.As(err, &linkErr) {
		return DiskError
	}
	return Unknown
}

// clues are fragments of the standard library's and the engine's error
// texts, each with its kind, most specific first.
var clues = []struct {
	text string
	kind Kind
}{
	{"bad openpgp signature", BadSignature},
	// metalink.SyntaxError and the sentinels Parse wraps without a line.
	{"metalink: line ", BadDocument},
	{"not a metalink document", BadDocument},
	{"document lists no files", BadDocument},
	{"the proxy asks for a login", ProxyLogin},
	{"asks for a login", LoginNeeded},
	{"login was refused", LoginNeeded},
	{"x509:", Certificate},
	{"certificate", Certificate},
	{"no such host", NameNotFound},
	{"server misbehaving", NameNotFound},
	{"connection refused", Refused},
	{"network is unreachable", Unreachable},
	{"no route to host", Unreachable},
	{"host is down", Unreachable},
	{"gave up waiting for the network", Unreachable},
	{"i/o timeout", TimedOut},
	{"deadline exceeded", TimedOut},
	{"timeout", TimedOut},
	{"stalled", TimedOut}, // the engine's reason for a mirror that stopped sending
	{"connection reset", Dropped},
	{"broken pipe", Dropped},
	{"unexpected eof", Dropped},
	{": eof", Dropped},
	{"server closed", Dropped},
	{"no space left on device", DiskFull},
	{"disk quota exceeded", DiskFull},
	{"permission denied", NoPermission},
	{"operation not permitted", NoPermission},
	{"read-only file system", NoPermission},
	{" 410 ", Expired},
	{"410 gone", Expired},
	{" 404 ", NotFound},
	{"404 not found", NotFound},
	{transport.ErrNotFound.Error(), NotFound},
	{"mirror does not have the file", NotFound}, // the earlier text, in queues kept from then
	{" 403 ", Forbidden},
	{"403 forbidden", Forbidden},
	{transport.ErrDenied.Error(), Forbidden},
	{"mirror refused access", Forbidden}, // the earlier text, in queues kept from then
	{" 429 ", Busy},
	{" 503 ", Busy},
	{"retry after", Busy},
	{"unexpected answer 5", ServerError},
	{engine.ErrHashMismatch.Error(), BadData},
	{engine.ErrBadPiece.Error(), BadData},
	{engine.ErrExists.Error(), Exists},
	{engine.ErrNoMirrors.Error(), NoMirrorLeft},
	// The file system's operations as Go names them in its errors
	// ("removeat big.bin.part: Invalid function."), and Windows' texts.
	{"removeat ", DiskError},
	{"renameat ", DiskError},
	{"unlinkat ", DiskError},
	{"openat ", DiskError},
	{"mkdirat ", DiskError},
	{"linkat ", DiskError},
	{"statat ", DiskError},
	{"invalid function", DiskError},
	{"sharing violation", DiskError},
	{"being used by another process", DiskError},
	{"input/output error", DiskError},
}

// OfText is the kind an error's text shows, for errors kept as text;
// Unknown when it shows none.
func OfText(text string) Kind {
	if text == "" {
		return Unknown
	}
	low := strings.ToLower(text) + " "
	for _, c := range clues {
		if strings.Contains(low, strings.ToLower(c.text)) {
			return c.kind
		}
	}
	return Unknown
}

// rawFragments are pieces of Go's error texts that no user should read.
var rawFragments = []string{"dial tcp", "dial udp", `Get "`, `Head "`, `Post "`, "connect:", "read tcp", "write tcp", "lookup ", ": EOF", "x509:", "tls:",
	"removeat ", "renameat ", "unlinkat ", "openat ", "mkdirat ", "linkat ", "statat ", "Invalid function."}

// RawFragment returns the first piece of raw Go error text in s ("dial
// tcp", `Get "`, "connect:", ...), "" when there is none: a face that
// shows s to a user shows a sentence instead.
func RawFragment(s string) string {
	for _, f := range rawFragments {
		if strings.Contains(s, f) {
			return f
		}
	}
	return ""
}

// AsSentence is s with a capital first letter and a full stop, as a face
// shows a message it did not write (a server's, the queue's) among its own
// sentences.
func AsSentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
