package explain

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/transport"
)

// realErrors are errors made the way a download meets them: a dial to a
// closed port, a TLS server with a certificate nobody trusts, a full
// disk, and the engine's and transport's typed errors, wrapped the way
// the engine wraps them.
func realErrors(t *testing.T) map[string]struct {
	err  error
	want Kind
} {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	_, refused := http.Get("http://" + closed + "/f.bin")

	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsSrv.Close()
	_, cert := (&http.Client{}).Get(tlsSrv.URL + "/f.bin")

	hup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
	}))
	defer hup.Close()
	_, hungUp := http.Get(hup.URL + "/f.bin")

	full := &os.PathError{Op: "write", Path: "/data/f.bin.braid", Err: syscall.ENOSPC}
	denied := &os.PathError{Op: "open", Path: "/data/f.bin.braid", Err: syscall.EACCES}
	dns := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "mirror.invalid", IsNotFound: true}}
	mirror := func(err error) error {
		return &engine.MirrorError{Mirror: "http://m/f.bin", Err: fmt.Errorf("bytes 0-1023: %w", err)}
	}
	return map[string]struct {
		err  error
		want Kind
	}{
		"refused":     {fmt.Errorf("f.bin: %w", mirror(refused)), Refused},
		"certificate": {mirror(cert), Certificate},
		"disk full":   {fmt.Errorf("f.bin: %w", full), DiskFull},
		"permission":  {fmt.Errorf("f.bin: %w", denied), NoPermission},
		"dns":         {mirror(dns), NameNotFound},
		"login":       {mirror(&transport.LoginError{Mirror: "http://m/f.bin", Detail: "401 Unauthorized"}), LoginNeeded},
		"proxy login": {mirror(&transport.LoginError{Mirror: "http://m/f.bin", Proxy: true, Detail: "407 Proxy Authentication Required"}), ProxyLogin},
		"404":         {mirror(fmt.Errorf("GET: 404 Not Found: %w", transport.ErrNotFound)), NotFound},
		"410":         {mirror(fmt.Errorf("GET: %w", &transport.StatusError{Code: 410, Status: "410 Gone", Err: transport.ErrNotFound})), Expired},
		"403":         {mirror(fmt.Errorf("GET: %w", &transport.StatusError{Code: 403, Status: "403 Forbidden", Err: transport.ErrDenied})), Forbidden},
		"503":         {mirror(&transport.RetryError{Err: errors.New("GET: 503 Service Unavailable")}), Busy},
		"hash":        {fmt.Errorf("f.bin: %w (sha-256 mismatch)", engine.ErrHashMismatch), BadData},
		"timeout":     {mirror(os.ErrDeadlineExceeded), TimedOut},
		"reset":       {mirror(&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), Dropped},
		"no mirror":   {fmt.Errorf("f.bin: %w", engine.ErrNoMirrors), NoMirrorLeft},
		"hang-up":     {mirror(hungUp), Dropped},
	}
}

// TestKinds: each error has its kind from its chain, and the same kind
// from its text alone, as the queue keeps it.
func TestKinds(t *testing.T) {
	for name, c := range realErrors(t) {
		if c.err == nil {
			t.Fatalf("%s: no error made", name)
		}
		if got := Of(c.err); got != c.want {
			t.Errorf("%s: Of(%q) = %v, want %v", name, c.err, got, c.want)
		}
		if got := OfText(c.err.Error()); got != c.want {
			t.Errorf("%s: OfText(%q) = %v, want %v", name, c.err, got, c.want)
		}
	}
}

// TestDiskErrors: the file system's refusals are a kind of their own,
// from the chain and from the text, and their raw text is never shown as
// it is. The Wine text is the one braid.exe showed under Wine 8.
func TestDiskErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/sub/x", 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	notEmpty := r.Remove("sub") // a real removeat error: the folder is not empty
	if notEmpty == nil {
		t.Fatal("removed a folder that is not empty")
	}
	for _, err := range []error{
		fmt.Errorf("f.bin: remove f.bin.part: %w", notEmpty),
		errors.New("big.bin: remove big.bin.part: removeat big.bin.part: Invalid function."),
	} {
		if got := Of(err); got != DiskError {
			t.Errorf("Of(%q) = %v, want disk error", err, got)
		}
		if got := OfText(err.Error()); got != DiskError {
			t.Errorf("OfText(%q) = %v, want disk error", err, got)
		}
		if RawFragment(err.Error()) == "" {
			t.Errorf("%q passes as a sentence", err)
		}
		if DiskError.Retrying() {
			t.Error("a disk error is retried like the network")
		}
	}
}

// TestNoMirrorLeftSaysWhy: every mirror given up for one cause is that
// cause; nothing known is NoMirrorLeft; no error is Unknown.
func TestNoMirrorLeftSaysWhy(t *testing.T) {
	err := fmt.Errorf("f.bin: %w (http://m/f.bin: dial tcp 127.0.0.1:1: connect: connection refused)", engine.ErrNoMirrors)
	if got := Of(err); got != Refused {
		t.Errorf("Of(%q) = %v, want refused", err, got)
	}
	if got := Of(nil); got != Unknown {
		t.Errorf("Of(nil) = %v", got)
	}
	if got := OfText("something odd"); got != Unknown {
		t.Errorf("OfText(odd) = %v", got)
	}
	// Errors a queue kept in the words transport used before.
	for text, want := range map[string]Kind{
		"http://m/f.bin: GET bytes 0-9: mirror does not have the file": NotFound,
		"http://m/f.bin: HEAD: mirror refused access":                  Forbidden,
	} {
		if got := OfText(text); got != want {
			t.Errorf("OfText(%q) = %v, want %v", text, got, want)
		}
	}
	// A mirror that stopped sending waits as "stalled" (engine/dispatch.go).
	if got := OfText("stalled"); got != TimedOut {
		t.Errorf("OfText(stalled) = %v, want timed out", got)
	}
	if !Refused.Retrying() || DiskFull.Retrying() {
		t.Error("Retrying: refused waits, a full disk does not")
	}
}

// TestBadDocuments: a metalink Parse refuses (cut short, not XML, not a
// metalink, no files) is a bad document, as Open wraps it, and never a
// cause Braid would wait and retry on.
func TestBadDocuments(t *testing.T) {
	for _, doc := range []string{
		`<?xml version="1.0"?><metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="a`,
		`this is no XML`,
		`<?xml version="1.0"?><html><body>a login page</body></html>`,
		`<?xml version="1.0"?><metalink xmlns="urn:ietf:params:xml:ns:metalink"></metalink>`,
	} {
		_, perr := metalink.Parse(strings.NewReader(doc))
		if perr == nil {
			t.Fatalf("Parse(%q) took it", doc)
		}
		err := fmt.Errorf("source /tmp/broken.meta4: %w", perr)
		if got := Of(err); got != BadDocument {
			t.Errorf("Of(%q) = %v, want bad document", err, got)
		}
		if got := OfText(err.Error()); got != BadDocument {
			t.Errorf("OfText(%q) = %v, want bad document", err, got)
		}
	}
	if BadDocument.Retrying() {
		t.Error("a bad document is retried like the network")
	}
}

// TestEveryKindHasItsClause: each kind has words of its own for the
// command line, and a kind added without them is caught here.
func TestEveryKindHasItsClause(t *testing.T) {
	if Unknown.Clause() != "" {
		t.Errorf("Unknown has a clause: %q", Unknown.Clause())
	}
	seen := map[string]Kind{}
	for k := Unknown + 1; k.String() != Unknown.String(); k++ {
		c := k.Clause()
		if c == "" {
			t.Errorf("kind %q has no clause", k)
		}
		if other, ok := seen[c]; ok {
			t.Errorf("kinds %q and %q share the clause %q", other, k, c)
		}
		seen[c] = k
	}
	if len(seen) != len(kinds)-1 {
		t.Errorf("%d kinds have clauses, %d kinds written", len(seen), len(kinds)-1)
	}
}

func TestAsSentence(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                           "",
		"  ":                         "",
		"server busy":                "Server busy.",
		"already a sentence.":        "Already a sentence.",
		"épée in the name ":          "Épée in the name.",
		"1 file, 2 torrents seeding": "1 file, 2 torrents seeding.",
	} {
		if got := AsSentence(in); got != want {
			t.Errorf("AsSentence(%q) = %q, want %q", in, got, want)
		}
	}
}
