package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2/lang"

	"braid/queue"
	"braid/rpc"
	"braid/ui"
)

var _ ui.RemoteControl = (*Backend)(nil)

// defaultRemote is where the remote control listens unless the user
// says. Its settings are kept in the queue (queue.Settings.Remote); its
// secret is not (a secret never goes to the database in clear): each start
// of the window makes a new one.
const defaultRemote = "127.0.0.1:6800"

// remote is the window's aria2 JSON-RPC server, when on.
type remote struct {
	mu       sync.Mutex
	secret   string
	address  string
	endpoint string             // "" while off
	stop     context.CancelFunc // ends the server; nil while off
	done     chan struct{}
	// on is the server while on, told of the window's changes (changed).
	on atomic.Pointer[rpc.Server]
}

// Remote is the remote control as it stands.
func (b *Backend) Remote() ui.Remote {
	b.rpc.mu.Lock()
	defer b.rpc.mu.Unlock()
	addr := b.rpc.address
	if addr == "" {
		s, _ := b.q.Settings()
		addr = s.Remote.Address
	}
	if addr == "" {
		addr = defaultRemote
	}
	return ui.Remote{On: b.rpc.stop != nil, Address: addr, Secret: b.secretLocked(), Endpoint: b.rpc.endpoint}
}

// secretLocked is the session's secret, made on first use.
func (b *Backend) secretLocked() string {
	if b.rpc.secret == "" {
		buf := make([]byte, 16)
		_, _ = rand.Read(buf)
		b.rpc.secret = hex.EncodeToString(buf)
	}
	return b.rpc.secret
}

// SetRemote turns the remote control on or off, keeping the choice for
// the next start.
func (b *Backend) SetRemote(r ui.Remote) (ui.Remote, error) {
	if r.Address == "" {
		r.Address = defaultRemote
	}
	b.stopRemote()
	b.rpc.mu.Lock()
	if r.Secret == "" {
		b.rpc.secret = ""
	}
	b.rpc.address = r.Address
	b.rpc.mu.Unlock()
	if err := b.q.UpdateSettings(func(s *queue.Settings) { s.Remote = queue.Remote{On: r.On, Address: r.Address} }); err != nil {
		return b.Remote(), err
	}
	if r.On {
		if err := b.startRemote(r.Address); err != nil {
			return b.Remote(), err
		}
	}
	return b.Remote(), nil
}

// startRemoteFromSettings turns the remote control on at Start when the
// user left it on.
func (b *Backend) startRemoteFromSettings() error {
	if s, _ := b.q.Settings(); !s.Remote.On {
		return nil
	}
	return b.startRemote(b.Remote().Address)
}

// startRemote serves aria2's JSON-RPC at addr over the queue and the
// session's runner; aria2.shutdown is refused (the window is closed by
// its user).
func (b *Backend) startRemote(addr string) error {
	ln, err := rpc.Listen(addr, false)
	if err != nil {
		return fmt.Errorf(lang.L("remote control: %w"), err)
	}
	b.rpc.mu.Lock()
	secret := b.secretLocked()
	b.rpc.mu.Unlock()
	dl := &rpc.QueueDownloads{Queue: b.q, Live: b.runner, Wake: b.Wake, Reader: b.svc}
	srv, err := rpc.New(dl, rpc.Options{Secret: secret, Activity: b.svc.Activity})
	if err != nil {
		ln.Close()
		return err
	}
	ctx, stop := context.WithCancel(b.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ctx, ln)
	}()
	b.rpc.on.Store(srv)
	b.rpc.mu.Lock()
	b.rpc.stop, b.rpc.done = stop, done
	b.rpc.endpoint = "http://" + ln.Addr().(*net.TCPAddr).String() + "/jsonrpc"
	b.rpc.mu.Unlock()
	return nil
}

// stopRemote ends the server, if on, and waits for it.
func (b *Backend) stopRemote() {
	b.rpc.mu.Lock()
	stop, done := b.rpc.stop, b.rpc.done
	b.rpc.stop, b.rpc.done, b.rpc.endpoint = nil, nil, ""
	b.rpc.mu.Unlock()
	b.rpc.on.Store(nil)
	if stop != nil {
		stop()
		<-done
	}
}
