package platform

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// ErrRunning: another Braid of this user already listens on the socket.
var ErrRunning = errors.New("braid is already running")

// ErrNotRunning: no Braid of this user is listening.
var ErrNotRunning = errors.New("braid is not running")

// Handoff is what a second `braid SOURCE...` hands to the running one.
type Handoff struct {
	Args []string `json:"args"` // sources as given on the command line
	Dir  string   `json:"dir"`  // the second process's working directory, for relative paths
	// Wake says a job was added to the queue behind the window's back (by
	// the browsers' native host): the window runs it without showing
	// itself.
	Wake bool `json:"wake,omitempty"`
}

// SocketPath is the per-user socket the running Braid listens on: in
// XDG_RUNTIME_DIR on Linux (already private to the user), in LOCALAPPDATA on
// Windows (which speaks AF_UNIX since Windows 10), else in a private folder
// of the temporary directory named after the user.
func SocketPath(getenv func(string) string) string {
	if dir := getenv("XDG_RUNTIME_DIR"); dir != "" {
		return filepath.Join(dir, "braid", "braid.sock")
	}
	if dir := getenv("LOCALAPPDATA"); dir != "" {
		return filepath.Join(dir, "Braid", "braid.sock")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("braid-%d", os.Getuid()), "braid.sock")
}

// Instance is the listening side: the first Braid of a user.
type Instance struct {
	ln   net.Listener
	path string
	wg   sync.WaitGroup
}

// Listen makes this process the user's running Braid. It fails with
// ErrRunning when a live Braid already answers at path; a socket left by a
// Braid that died is detected and replaced. The socket's folder is made
// private (0700), so other users cannot connect to it.
func Listen(path string) (*Instance, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("socket folder %s: %w", dir, err)
	}
	if err := privateDir(dir); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil && errors.Is(err, syscall.EADDRINUSE) {
		if alive(path) {
			return nil, ErrRunning
		}
		// Stale: nobody answers. Remove it and take its place.
		if rmErr := os.Remove(path); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
			return nil, fmt.Errorf("removing stale socket %s: %w", path, rmErr)
		}
		ln, err = net.Listen("unix", path)
	}
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	return &Instance{ln: ln, path: path}, nil
}

func alive(path string) bool {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Serve calls handle for every handoff until ctx ends or Close is called.
// handle runs on Serve's goroutines, one per connection; it must not block
// for long (the second process waits for the answer).
func (in *Instance) Serve(ctx context.Context, handle func(Handoff) error) error {
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

func (in *Instance) answer(c net.Conn, handle func(Handoff) error) {
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
	if err := handle(h); err != nil {
		fmt.Fprintf(c, "refused: %v\n", err)
		return
	}
	fmt.Fprintln(c, "ok")
}

// Close stops listening and removes the socket.
func (in *Instance) Close() error {
	err := in.ln.Close()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// Forward hands h to the user's running Braid and waits for its answer.
// It returns ErrNotRunning when none listens (or only a stale socket is
// left), so the caller becomes the running one.
func Forward(ctx context.Context, path string, h Handoff) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return ErrNotRunning
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	} else {
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	}
	if err := json.NewEncoder(c).Encode(h); err != nil {
		return fmt.Errorf("handing over to the running braid: %w", err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return fmt.Errorf("the running braid did not answer: %w", err)
	}
	if line != "ok\n" {
		return fmt.Errorf("the running braid %s", line[:len(line)-1])
	}
	return nil
}
