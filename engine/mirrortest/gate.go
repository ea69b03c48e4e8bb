package mirrortest

import (
	"net"
	"sync"
)

// gate is a listener that can go away and come back on the same address:
// while paused its socket is closed, so the kernel refuses connections,
// and Accept waits for it to be back.
type gate struct {
	addr string

	mu      sync.Mutex
	ln      net.Listener  // nil while paused
	changed chan struct{} // closed and replaced at each pause, resume, shut
	closed  bool
}

func newGate(ln net.Listener) *gate {
	return &gate{addr: ln.Addr().String(), ln: ln, changed: make(chan struct{})}
}

func (g *gate) Accept() (net.Conn, error) {
	for {
		g.mu.Lock()
		ln, changed, closed := g.ln, g.changed, g.closed
		g.mu.Unlock()
		if closed {
			return nil, net.ErrClosed
		}
		if ln == nil {
			<-changed
			continue
		}
		c, err := ln.Accept()
		if err == nil {
			return c, nil
		}
		g.mu.Lock()
		same := g.ln == ln && !g.closed
		g.mu.Unlock()
		if same {
			return nil, err
		}
		// Paused or shut under us: look again.
	}
}

func (g *gate) Addr() net.Addr {
	a, _ := net.ResolveTCPAddr("tcp", g.addr)
	return a
}

func (g *gate) Close() error {
	g.shut()
	return nil
}

// swap sets the listener and wakes Accept.
func (g *gate) swap(ln net.Listener, closed bool) net.Listener {
	g.mu.Lock()
	defer g.mu.Unlock()
	old := g.ln
	g.ln, g.closed = ln, g.closed || closed
	close(g.changed)
	g.changed = make(chan struct{})
	return old
}

func (g *gate) pause() {
	if old := g.swap(nil, false); old != nil {
		old.Close()
	}
}

func (g *gate) resume() error {
	ln, err := net.Listen("tcp", g.addr)
	if err != nil {
		return err
	}
	g.mu.Lock()
	closed := g.closed
	g.mu.Unlock()
	if closed {
		ln.Close()
		return nil
	}
	if old := g.swap(ln, false); old != nil {
		old.Close()
	}
	return nil
}

func (g *gate) shut() {
	if old := g.swap(nil, true); old != nil {
		old.Close()
	}
}
