package platform

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// The running Braid's pipe grants this user alone (the Windows form of
// TestSocketFolderIsPrivate): its access list, read back from the pipe,
// is protected from inheritance and has one entry, which allows this
// user's SID.
func TestPipeIsThisUsersAlone(t *testing.T) {
	path := socketPath(t)
	if !strings.HasPrefix(path, `\\.\pipe\braid-`) {
		t.Fatalf("SocketPath = %q, want a named pipe", path)
	}
	in, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, in, func(Handoff) (Answer, error) { return Answer{}, nil })
	c, err := winio.DialPipe(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := windows.Handle(c.(interface{ Fd() uintptr }).Fd())
	sd, err := windows.GetSecurityInfo(h, windows.SE_KERNEL_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	control, _, err := sd.Control()
	if err != nil {
		t.Fatal(err)
	}
	if control&windows.SE_DACL_PROTECTED == 0 {
		t.Errorf("the pipe's access list %s inherits entries", sd)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		t.Fatal(err)
	}
	own, err := userSID()
	if err != nil {
		t.Fatal(err)
	}
	if dacl == nil || dacl.AceCount != 1 {
		t.Fatalf("the pipe's access list %s: want one entry", sd)
	}
	var ace *windows.ACCESS_ALLOWED_ACE
	if err := windows.GetAce(dacl, 0, &ace); err != nil {
		t.Fatal(err)
	}
	sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
	if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || sid.String() != own {
		t.Errorf("the pipe's access list %s: want access for %s alone", sd, own)
	}
}

// Both ends tell that the other runs as this user: the listener of its
// client, a client of a listener in another process.
func TestPipePeerIsThisUser(t *testing.T) {
	path := socketPath(t)
	startListener(t, path)
	c, err := dial(context.Background(), path, true)
	if err != nil {
		t.Fatalf("dial with a secret: %v", err)
	}
	c.Close()

	path = socketPath(t)
	in, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	accepted := make(chan bool, 1)
	go func() {
		c, err := in.ln.Accept()
		if err != nil {
			accepted <- false
			return
		}
		defer c.Close()
		accepted <- samePeer(c)
	}()
	c, err = winio.DialPipe(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case ok := <-accepted:
		if !ok {
			t.Error("the listener does not see its client as this user")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the listener never accepted")
	}
}

// Listen takes pipe names only: a file path is a mistake on Windows, said
// as one, not a pipe made up from it.
func TestListenRefusesAFilePath(t *testing.T) {
	_, err := Listen(`C:\Users\u\AppData\Local\Braid\braid.sock`)
	if err == nil || errors.Is(err, ErrRunning) || !strings.Contains(err.Error(), "not a named pipe") {
		t.Fatalf("err = %v", err)
	}
}
