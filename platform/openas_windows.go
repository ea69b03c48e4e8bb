package platform

import (
	"fmt"
	"path/filepath"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// shellExecuteInfo is SHELLEXECUTEINFOW.
type shellExecuteInfo struct {
	size          uint32
	mask          uint32
	hwnd          windows.Handle
	verb          *uint16
	file          *uint16
	parameters    *uint16
	directory     *uint16
	show          int32
	instApp       windows.Handle
	idList        uintptr
	class         *uint16
	keyClass      windows.Handle
	hotKey        uint32
	iconOrMonitor windows.Handle
	process       windows.Handle
}

const (
	seeMaskClassName = 0x00000001 // SEE_MASK_CLASSNAME: use class, not file's extension
	seeMaskNoAsync   = 0x00000100 // SEE_MASK_NOASYNC: done before the call returns
	seeMaskFlagNoUI  = 0x00000400 // SEE_MASK_FLAG_NO_UI: no error box; the window says it
	swShowNormal     = 1
	seErrNoAssoc     = 31 // SE_ERR_NOASSOC in hInstApp: no application for the class
)

var procShellExecuteExW = windows.NewLazySystemDLL("shell32.dll").NewProc("ShellExecuteExW")

// OpenAs opens target (a file's path, or an http URL that serves it) with
// the application registered for files named name: ShellExecuteEx with
// name's extension as the class, so the extension's open command runs on
// target whatever target's own name is. See openas.go.
func OpenAs(target, name string) error {
	ext := filepath.Ext(name)
	if ext == "" {
		return fmt.Errorf("%s has no extension to find its application by", filepath.Base(name))
	}
	file, err := windows.UTF16PtrFromString(target)
	if err != nil {
		return err
	}
	class, err := windows.UTF16PtrFromString(ext)
	if err != nil {
		return err
	}
	verb, _ := windows.UTF16PtrFromString("open")
	info := shellExecuteInfo{
		mask:  seeMaskClassName | seeMaskNoAsync | seeMaskFlagNoUI,
		verb:  verb,
		file:  file,
		show:  swShowNormal,
		class: class,
	}
	info.size = uint32(unsafe.Sizeof(info))
	// Shell extensions a handler may go through need COM on the thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// S_FALSE: COM was on already; it is counted all the same.
	if err := windows.CoInitializeEx(0, windows.COINIT_APARTMENTTHREADED|windows.COINIT_DISABLE_OLE1DDE); err == nil || err == syscall.Errno(1) {
		defer windows.CoUninitialize()
	}
	ok, _, callErr := procShellExecuteExW.Call(uintptr(unsafe.Pointer(&info)))
	if ok != 0 {
		return nil
	}
	return openAsError(filepath.Base(name), ext, callErr, uintptr(info.instApp))
}

// openAsError says why ShellExecuteEx failed, from its last error and
// its hInstApp (an SE_ERR_ code, most of them the Win32 error of the
// same number). Wine 8 leaves both at 0 when the class has no open
// command. The target is not named: a stream's URL holds its token.
func openAsError(name, ext string, lastErr error, instApp uintptr) error {
	errno, _ := lastErr.(syscall.Errno)
	if errno == windows.ERROR_NO_ASSOCIATION || instApp == seErrNoAssoc {
		return fmt.Errorf("no application opens %s files here", ext)
	}
	if errno == 0 && instApp <= 32 {
		errno = syscall.Errno(instApp)
	}
	if errno == 0 {
		return fmt.Errorf("no application opens %s files here", ext)
	}
	return fmt.Errorf("the application for %s files could not open %s: %w", ext, name, errno)
}
