package ui

import (
	"errors"
	"runtime"
	"syscall"

	"golang.org/x/sys/windows"
)

// inDialogApartment runs show, which shows a system file dialog, on an
// OS thread whose COM is single-threaded (STA), and returns its answer.
//
// Windows' file dialogs (IFileOpenDialog, SHBrowseForFolder) hold a
// shell view and want an STA thread: Microsoft's docs for them say to
// initialize COM apartment-threaded. zenity starts COM multithreaded
// (MTA) unless the thread has COM already, and leaves an STA to callers
// who need one. Under Wine, in an MTA the dialog's shell view never
// listed the folder and the dialog stopped answering: Open, Enter and
// Cancel did nothing, and Braid's window stayed disabled behind it.
//
// The thread stays locked, so it ends with the goroutine and takes its
// COM state along: no other goroutine inherits an apartment it would not
// pump. A thread that has an MTA already (COM cannot change it) is left
// locked and the dialog tries on a new one, a few times at most.
func inDialogApartment(show func() (string, error)) (string, error) {
	return inSTA(show, 3)
}

func inSTA(show func() (string, error), tries int) (string, error) {
	runtime.LockOSThread()
	err := windows.CoInitializeEx(0, windows.COINIT_APARTMENTTHREADED|windows.COINIT_DISABLE_OLE1DDE)
	if !errors.Is(err, syscall.Errno(windows.RPC_E_CHANGED_MODE)) || tries <= 1 {
		// nil or S_FALSE: this thread is an STA. Anything else: the
		// dialog starts COM itself, as it did before.
		return show()
	}
	type answer struct {
		path string
		err  error
	}
	c := make(chan answer, 1)
	go func() {
		p, err := inSTA(show, tries-1)
		c <- answer{p, err}
	}()
	a := <-c
	return a.path, a.err
}
