package platform

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// pipePrefix begins the name of every Braid pipe.
const pipePrefix = `\\.\pipe\braid-`

// dialTimeout bounds the wait for a pipe that exists but has no free
// instance (its Braid is between two connections, or hung): a second
// start says so rather than waiting for ever.
const dialTimeout = 5 * time.Second

// SocketPath is the named pipe the user's running Braid listens on:
// \\.\pipe\braid-<the user's SID>-<a hash of the user's folder>. The folder
// is LOCALAPPDATA, the Windows counterpart of XDG_RUNTIME_DIR, which a
// process may set instead (as tests do) to have a pipe of its own. Windows
// keeps pipes in one namespace for all users; the pipe's access list (see
// Listen) keeps it this user's.
func SocketPath(getenv func(string) string) string {
	dir := getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		dir = getenv("LOCALAPPDATA")
	}
	if dir == "" {
		dir = os.TempDir()
	}
	sum := sha256.Sum256([]byte(strings.ToLower(filepath.Clean(dir))))
	sid, err := userSID()
	if err != nil {
		// Without the SID (never seen) the folder, the user's own,
		// still tells users apart.
		sid = "user"
	}
	return pipePrefix + sid + "-" + hex.EncodeToString(sum[:6])
}

// userSID is the SID of the user this process runs as, in S-1-5-… form.
func userSID() (string, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("the user's SID: %w", err)
	}
	return u.User.Sid.String(), nil
}

// listen makes this process the pipe's server. A named mutex of the
// pipe's name says whether a Braid of this user serves it already
// (ErrRunning): pipes cannot say so themselves under Wine, which lets a
// second server make instances of a pipe that exists. The mutex and the
// pipe end with their process, so a Braid that died leaves nothing behind.
//
// Only this user may open either ("P": the access list inherits nothing;
// "GA": all access, to this user's SID alone).
func listen(path string) (net.Listener, error) {
	name, ok := strings.CutPrefix(path, `\\.\pipe\`)
	if !ok {
		return nil, fmt.Errorf("listening on %s: not a named pipe (\\\\.\\pipe\\…)", path)
	}
	sid, err := userSID()
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;GA;;;" + sid + ")")
	if err != nil {
		return nil, fmt.Errorf("listening on %s: the access list: %w", path, err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	mutex, err := windows.CreateMutex(sa, false, windows.StringToUTF16Ptr(`Local\`+name))
	if errors.Is(err, windows.ERROR_ALREADY_EXISTS) || errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		if mutex != 0 {
			windows.CloseHandle(mutex)
		}
		return nil, ErrRunning
	}
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	l := &pipeListener{path: path, sa: sa, mutex: mutex}
	if l.stop, err = windows.CreateEvent(nil, 1, 0, nil); err != nil {
		windows.CloseHandle(mutex)
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	// The first instance must make the pipe: on Windows a pipe of this
	// name made by someone else (another user, first) fails here.
	if l.next, err = l.instance(windows.FILE_FLAG_FIRST_PIPE_INSTANCE); err != nil {
		windows.CloseHandle(l.stop)
		windows.CloseHandle(mutex)
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	return l, nil
}

// pipeListener serves a named pipe: one instance always waits for the
// next client, so that the pipe never disappears between two connections
// (a client would take that for no Braid running).
type pipeListener struct {
	path  string
	sa    *windows.SecurityAttributes
	mutex windows.Handle // held while listening: see listen
	stop  windows.Handle // an event, set by Close

	mu        sync.Mutex
	next      windows.Handle // the instance that waits for a client
	accepting bool
	closed    bool
}

// instance makes one more instance of the pipe, for overlapped I/O.
func (l *pipeListener) instance(flags uint32) (windows.Handle, error) {
	return windows.CreateNamedPipe(windows.StringToUTF16Ptr(l.path),
		windows.PIPE_ACCESS_DUPLEX|windows.FILE_FLAG_OVERLAPPED|flags,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		windows.PIPE_UNLIMITED_INSTANCES, 4096, 4096, 0, l.sa)
}

// Accept waits for a client on the waiting instance, makes the next one,
// and hands the connected one over. Serve calls it from one goroutine.
func (l *pipeListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, net.ErrClosed
	}
	l.accepting = true
	h := l.next
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.accepting = false
		if l.closed {
			l.release()
		}
		l.mu.Unlock()
	}()
	for {
		err := l.connect(h)
		if errors.Is(err, windows.ERROR_NO_DATA) {
			// The client came and went: wait for the next one.
			_ = windows.DisconnectNamedPipe(h)
			continue
		}
		if err != nil {
			return nil, err
		}
		next, err := l.instance(0)
		if err != nil {
			return nil, fmt.Errorf("accepting on %s: %w", l.path, err)
		}
		l.mu.Lock()
		l.next = next
		l.mu.Unlock()
		f, err := winio.NewOpenFile(h)
		if err != nil {
			windows.CloseHandle(h)
			return nil, fmt.Errorf("accepting on %s: %w", l.path, err)
		}
		return &pipeConn{f.(pipeFile), l.path}, nil
	}
}

// connect waits until a client opens the instance h, or Close is called
// (net.ErrClosed).
func (l *pipeListener) connect(h windows.Handle) error {
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(ev)
	ov := &windows.Overlapped{HEvent: ev}
	err = windows.ConnectNamedPipe(h, ov)
	switch {
	case err == nil, errors.Is(err, windows.ERROR_PIPE_CONNECTED):
		return nil
	case !errors.Is(err, windows.ERROR_IO_PENDING):
		return err
	}
	w, err := windows.WaitForMultipleObjects([]windows.Handle{ev, l.stop}, false, windows.INFINITE)
	if err != nil {
		return err
	}
	if w != windows.WAIT_OBJECT_0 {
		_ = windows.CancelIoEx(h, ov)
	}
	var n uint32
	err = windows.GetOverlappedResult(h, ov, &n, true)
	if w != windows.WAIT_OBJECT_0 {
		return net.ErrClosed
	}
	return err
}

// Close stops listening: an Accept under way returns net.ErrClosed, and the
// pipe and the mutex go once it has.
func (l *pipeListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return net.ErrClosed
	}
	l.closed = true
	_ = windows.SetEvent(l.stop)
	if !l.accepting {
		l.release()
	}
	return nil
}

// release closes the waiting instance, the mutex and the stop event; l.mu
// is held.
func (l *pipeListener) release() {
	if l.next != 0 {
		windows.CloseHandle(l.next)
		l.next = 0
	}
	if l.mutex != 0 {
		windows.CloseHandle(l.mutex)
		l.mutex = 0
	}
	if l.stop != 0 {
		windows.CloseHandle(l.stop)
		l.stop = 0
	}
}

// Addr is the pipe's name.
func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.path) }

// pipeAddr is a pipe's name as a net.Addr.
type pipeAddr string

func (pipeAddr) Network() string  { return "pipe" }
func (a pipeAddr) String() string { return string(a) }

// pipeFile is what go-winio's file for an overlapped handle offers.
type pipeFile interface {
	io.ReadWriteCloser
	SetReadDeadline(time.Time) error
	SetWriteDeadline(time.Time) error
	Fd() uintptr
}

// pipeConn is the server's end of one connection.
type pipeConn struct {
	pipeFile
	path string
}

func (c *pipeConn) LocalAddr() net.Addr  { return pipeAddr(c.path) }
func (c *pipeConn) RemoteAddr() net.Addr { return pipeAddr(c.path) }

func (c *pipeConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// dial connects to the running Braid's pipe, or fails with ErrNotRunning
// when there is none. A pipe that exists but takes no connection within
// dialTimeout is an error of its own: a Braid runs there but does not
// answer. With secret (a link's cookies go over it) the pipe's server must
// run as this user: another user could have made a pipe of this name first.
func dial(ctx context.Context, path string, secret bool) (net.Conn, error) {
	c, err := dialPipe(ctx, path, dialTimeout)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, ErrNotRunning
	case errors.Is(err, winio.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("the running braid takes no connection on %s: %w", path, err)
	case err != nil:
		return nil, fmt.Errorf("connecting to the running braid on %s: %w", path, err)
	}
	if secret && !samePeer(c) {
		c.Close()
		return nil, fmt.Errorf("the pipe %s is another user's: the link's cookies are not handed to it", path)
	}
	return c, nil
}

// dialPipe dials path, waiting at most timeout (or until ctx ends) for a
// free instance of the pipe.
func dialPipe(ctx context.Context, path string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := winio.DialPipeContext(ctx, path)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, winio.ErrTimeout
	}
	return c, err
}

// samePeer reports whether the process at the other end of the pipe c
// runs as this user: the client's process for a listener's connection, the
// server's for a dialled one.
func samePeer(c net.Conn) bool {
	f, ok := c.(interface{ Fd() uintptr })
	if !ok {
		return false
	}
	h := windows.Handle(f.Fd())
	var pid uint32
	if err := windows.GetNamedPipeClientProcessId(h, &pid); err != nil || pid == uint32(os.Getpid()) {
		// Our own end is the client's: the peer is the server.
		if err := windows.GetNamedPipeServerProcessId(h, &pid); err != nil {
			return false
		}
	}
	sid, err := processSID(pid)
	if err != nil {
		return false
	}
	own, err := userSID()
	return err == nil && sid == own
}

// processSID is the SID of the user process pid runs as.
func processSID(pid uint32) (string, error) {
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return "", err
	}
	defer windows.CloseHandle(p)
	var tok windows.Token
	if err := windows.OpenProcessToken(p, windows.TOKEN_QUERY, &tok); err != nil {
		return "", err
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return "", err
	}
	return u.User.Sid.String(), nil
}
