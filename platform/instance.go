package platform

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"
)

// ErrRunning: another Braid of this user already listens on the socket.
var ErrRunning = errors.New("braid is already running")

// ErrNotRunning: no Braid of this user is listening.
var ErrNotRunning = errors.New("braid is not running")

// ErrElsewhere: the running Braid does not take this handoff because it
// is not the Braid it is meant for (it runs another state folder's queue,
// or runs headless and opens no window). The sender goes on by itself.
var ErrElsewhere = errors.New("the running braid is not the one for this")

// ErrRefused is wrapped by Forward's error when the running Braid
// refused the handoff.
var ErrRefused = errors.New("the running braid refused")

// Handoff is what a second `braid SOURCE...` hands to the running one.
type Handoff struct {
	Args []string `json:"args"` // sources as given on the command line
	Dir  string   `json:"dir"`  // the second process's working directory, for relative paths
	// Wake says a job was added to the queue behind the window's back (by
	// another process; the browsers' native host of an earlier Braid
	// did): the window runs it without showing itself.
	Wake bool `json:"wake,omitempty"`
	// Add is a link the browser hands to Braid (through the native host),
	// with the login that reaches it: the running Braid adds it and keeps
	// the cookies for its session, which a short-lived host cannot.
	Add *Link `json:"add,omitempty"`
}

// Link is a download a browser hands over: the link, how the browser
// would ask for it, and where it goes. Its cookies are secrets: Link's
// String and Format never show them, and nothing may log them.
type Link struct {
	URL       string   `json:"url"`
	Referrer  string   `json:"referrer,omitempty"`
	UserAgent string   `json:"userAgent,omitempty"`
	Cookies   []Cookie `json:"cookies,omitempty"`
	Filename  string   `json:"filename,omitempty"` // the browser's name for the file
	// Dir is the folder the file goes to; "": the queue's.
	Dir string `json:"dir,omitempty"`
	// State is the queue's state folder the link is for (absolute); the
	// running Braid takes it only when it runs that queue.
	State string `json:"state,omitempty"`
}

// Cookie is one of the cookies the browser would send with the link.
type Cookie struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Path   string `json:"path,omitempty"`
	Secure bool   `json:"secure,omitempty"`
}

// String names the link and its cookies, without their values.
func (l Link) String() string {
	names := make([]string, len(l.Cookies))
	for i, c := range l.Cookies {
		names[i] = c.Name + "=…"
	}
	return fmt.Sprintf("%s (cookies %s)", l.URL, strings.Join(names, "; "))
}

// Format keeps %v, %+v and %#v from printing the cookies' values.
func (l Link) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, l.String()) }

// Answer is what the running Braid tells the sender back, besides ok:
// for an added link, its job, its file's name and a note for the user.
type Answer struct {
	Job     int64  `json:"job,omitempty"`
	Name    string `json:"name,omitempty"`
	Warning string `json:"warning,omitempty"`
}

// Instance is the listening side: the first Braid of a user.
type Instance struct {
	ln   net.Listener
	path string
	wg   sync.WaitGroup
}

// Listen makes this process the user's running Braid, listening at path
// (SocketPath's). It fails with ErrRunning when a live Braid already
// answers there. Only this user can connect: on Unix the socket's folder is
// made private (0700), and a socket left by a Braid that died is detected
// and replaced; on Windows the pipe's access list grants this user alone,
// and a pipe ends with its process.
func Listen(path string) (*Instance, error) {
	ln, err := listen(path)
	if err != nil {
		return nil, err
	}
	return &Instance{ln: ln, path: path}, nil
}

// Serve calls handle for every handoff until ctx ends or Close is called.
// handle runs on Serve's goroutines, one per connection; it must not block
// for long (the second process waits for the answer), except for an Add,
// which may read the link first (up to addTimeout). An error that wraps
// ErrElsewhere tells the sender to go on by itself.
func (in *Instance) Serve(ctx context.Context, handle func(Handoff) (Answer, error)) error {
	stop := context.AfterFunc(ctx, func() { in.ln.Close() })
	defer stop()
	for {
		c, err := in.ln.Accept()
		if err != nil {
			in.wg.Wait()
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		in.wg.Add(1)
		go func() {
			defer in.wg.Done()
			in.answer(c, handle)
		}()
	}
}

// addTimeout bounds the handling of an Add: the running Braid reads the
// link (its name and size, behind the login) before it answers.
const addTimeout = 2 * time.Minute

func (in *Instance) answer(c net.Conn, handle func(Handoff) (Answer, error)) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if !samePeer(c) {
		fmt.Fprintln(c, "refused: another user")
		return
	}
	var h Handoff
	if err := json.NewDecoder(io.LimitReader(c, 1<<20)).Decode(&h); err != nil {
		fmt.Fprintf(c, "refused: %v\n", err)
		return
	}
	if h.Add != nil {
		_ = c.SetDeadline(time.Now().Add(addTimeout))
	}
	a, err := handle(h)
	switch {
	case errors.Is(err, ErrElsewhere):
		fmt.Fprintf(c, "elsewhere: %s\n", oneLine(err.Error()))
	case err != nil:
		fmt.Fprintf(c, "refused: %s\n", oneLine(err.Error()))
	case a == Answer{}:
		fmt.Fprintln(c, "ok")
	default:
		b, _ := json.Marshal(a) // plain strings and a number: never fails
		fmt.Fprintf(c, "ok %s\n", b)
	}
}

// oneLine keeps an error's text on the answer's one line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// Close stops listening; on Unix it removes the socket.
func (in *Instance) Close() error {
	err := in.ln.Close()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// Forward hands h to the user's running Braid and waits for its answer.
// It returns ErrNotRunning when none listens (or only a stale socket is
// left), so the caller becomes the running one; an error wrapping
// ErrElsewhere when the running Braid is not the one for h; one wrapping
// ErrRefused when it refused h. A Link's cookies go only to a Braid of
// this user: the socket's folder must be this user's alone, and (where
// the system tells: Linux, Windows) the listener must run as this user.
func Forward(ctx context.Context, path string, h Handoff) (Answer, error) {
	c, err := dial(ctx, path, h.Add != nil)
	if err != nil {
		return Answer{}, err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	} else if h.Add != nil {
		_ = c.SetDeadline(time.Now().Add(addTimeout))
	} else {
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	}
	if err := json.NewEncoder(c).Encode(h); err != nil {
		return Answer{}, fmt.Errorf("handing over to the running braid: %w", err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return Answer{}, fmt.Errorf("the running braid did not answer: %w", err)
	}
	line = strings.TrimSuffix(line, "\n")
	switch {
	case line == "ok":
		return Answer{}, nil
	case strings.HasPrefix(line, "ok "):
		var a Answer
		if err := json.Unmarshal([]byte(line[len("ok "):]), &a); err != nil {
			return Answer{}, fmt.Errorf("the running braid's answer: %w", err)
		}
		return a, nil
	case strings.HasPrefix(line, "elsewhere: "):
		return Answer{}, fmt.Errorf("%w: %s", ErrElsewhere, line[len("elsewhere: "):])
	case strings.HasPrefix(line, "refused: "):
		return Answer{}, &refusedError{line[len("refused: "):]}
	}
	return Answer{}, fmt.Errorf("the running braid answered %q", line)
}

// refusedError is the running Braid's refusal.
type refusedError struct{ why string }

func (e *refusedError) Error() string { return "the running braid refused: " + e.why }
func (e *refusedError) Unwrap() error { return ErrRefused }
