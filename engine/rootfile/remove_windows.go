package rootfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// rootRemove and osRemoveAll are the standard library's; a test replaces
// them to force the error Wine gives.
var (
	rootRemove  = (*os.Root).Remove
	osRemoveAll = os.RemoveAll
)

// remove is os.Root.Remove, falling back for one error only. os.Root.Remove
// deletes with FileDispositionInformationEx (Windows 10 1607 and later).
// Wine 8, which people use to run Windows programs on Linux and macOS,
// answers STATUS_NOT_IMPLEMENTED to it, which Go shows as
// ERROR_INVALID_FUNCTION ("Invalid function"), and Go falls back to the
// older call only for other statuses. Without this a download under Wine
// lands its bytes and then fails to remove NAME.part.
func remove(r *os.Root, name string) error {
	err := rootRemove(r, name)
	if err == nil || !errors.Is(err, windows.ERROR_INVALID_FUNCTION) {
		return err
	}
	if err2 := removeOld(r, name); err2 != nil {
		return &os.PathError{Op: "remove", Path: name, Err: err2}
	}
	return nil
}

// removeAll is os.RemoveAll, falling back for the same error as remove:
// os.RemoveAll deletes each entry with the call Wine 8 lacks. The
// fallback removes what dir holds, deepest first, with remove, and then
// dir itself.
func removeAll(dir string) error {
	err := osRemoveAll(dir)
	if err == nil || !errors.Is(err, windows.ERROR_INVALID_FUNCTION) {
		return err
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	var names []string
	err = fs.WalkDir(r.FS(), ".", func(name string, _ fs.DirEntry, err error) error {
		if name != "." {
			names = append(names, name)
		}
		return err
	})
	for i := len(names) - 1; i >= 0 && err == nil; i-- {
		err = remove(r, names[i])
	}
	r.Close()
	if err != nil {
		return err
	}
	return os.Remove(dir)
}

// removeOld deletes the file or empty folder name inside r with the older
// FileDispositionInfo, which every Windows and Wine has. It opens name
// relative to a handle of its folder that it got through r, so the folder
// cannot lead outside r, and opens name itself without following a link
// (FILE_OPEN_REPARSE_POINT); a link or a junction is refused, never
// deleted, and a folder that is not empty stays, as with os.Root.Remove.
func removeOld(r *os.Root, name string) error {
	dir, err := r.Open(path.Dir(name))
	if err != nil {
		return err
	}
	defer dir.Close()
	u, err := windows.NewNTUnicodeString(path.Base(name))
	if err != nil {
		return err
	}
	oa := windows.OBJECT_ATTRIBUTES{
		RootDirectory: windows.Handle(dir.Fd()),
		ObjectName:    u,
		Attributes:    windows.OBJ_CASE_INSENSITIVE,
	}
	oa.Length = uint32(unsafe.Sizeof(oa))
	var h windows.Handle
	err = windows.NtCreateFile(&h, windows.DELETE|windows.FILE_READ_ATTRIBUTES|windows.SYNCHRONIZE, &oa,
		&windows.IO_STATUS_BLOCK{}, nil, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, windows.FILE_OPEN,
		windows.FILE_OPEN_REPARSE_POINT|windows.FILE_SYNCHRONOUS_IO_NONALERT, 0, 0)
	if err != nil {
		if st, ok := err.(windows.NTStatus); ok {
			return st.Errno()
		}
		return err
	}
	defer windows.CloseHandle(h)
	var fi windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &fi); err != nil {
		return err
	}
	if fi.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		return fmt.Errorf("a link, not a file or folder (attributes %#x)", fi.FileAttributes)
	}
	info := struct{ DeleteFile bool }{true} // FILE_DISPOSITION_INFO
	return windows.SetFileInformationByHandle(h, windows.FileDispositionInfo, (*byte)(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
}

// held reports the errors Windows gives for a file another program has
// open without sharing it for deletion, or has locked.
func held(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case windows.ERROR_SHARING_VIOLATION, windows.ERROR_LOCK_VIOLATION, windows.ERROR_ACCESS_DENIED:
		return true
	}
	return false
}
