package queue

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/windows"
)

// checksOwner: Windows releases a dead process's file locks "depending on
// available system resources" (LockFileEx), so the owner keeps a record
// and a held lock whose process has ended is taken over at once.
const checksOwner = true

// processGone asks the system whether process pid, started at start, has
// ended. A process this user may not look at is taken as alive.
func processGone(pid int, start int64) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		// ERROR_INVALID_PARAMETER: no process has that ID.
		return errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	defer windows.CloseHandle(h)
	if ev, err := windows.WaitForSingleObject(h, 0); err == nil && ev == windows.WAIT_OBJECT_0 {
		return true // ended; someone still holds its handle
	}
	created, err := startOf(h)
	if err != nil {
		return false
	}
	return created != start // the ID was given to a new process
}

// processStart is this process's start time, as processGone compares it.
func processStart() (int64, error) { return startOf(windows.CurrentProcess()) }

func startOf(h windows.Handle) (int64, error) {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, err
	}
	return created.Nanoseconds(), nil
}

// ownerDecision holds, until release is called, a named mutex that every
// Braid takes to decide who owns the state folder dir: the lock, the
// record and a take-over are then one step. The mutex is named after the
// folder's identity (volume and file index), so two spellings of one
// folder share it. A mutex whose holder died is handed on at once
// (WAIT_ABANDONED). A mutex belongs to a thread, so the goroutine stays on
// its thread until release.
func ownerDecision(dir string) (release func(), err error) {
	name, err := decisionName(dir)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	h, err := windows.CreateMutex(nil, false, windows.StringToUTF16Ptr(name))
	if h == 0 {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("create mutex %s: %w", name, err)
	}
	ev, err := windows.WaitForSingleObject(h, uint32((30 * time.Second).Milliseconds()))
	if err != nil || (ev != windows.WAIT_OBJECT_0 && ev != windows.WAIT_ABANDONED) {
		windows.CloseHandle(h)
		runtime.UnlockOSThread()
		if err == nil {
			err = errors.New("another Braid did not decide in 30 s")
		}
		return nil, fmt.Errorf("wait for mutex %s: %w", name, err)
	}
	return func() {
		_ = windows.ReleaseMutex(h)
		_ = windows.CloseHandle(h)
		runtime.UnlockOSThread()
	}, nil
}

// decisionName names ownerDecision's mutex after the folder's identity.
func decisionName(dir string) (string, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return "", err
	}
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return "", fmt.Errorf("open state folder %s: %w", dir, err)
	}
	defer windows.CloseHandle(h)
	var fi windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &fi); err != nil {
		return "", fmt.Errorf("identify state folder %s: %w", dir, err)
	}
	return fmt.Sprintf(`Local\Braid.queue.%08x.%08x%08x`, fi.VolumeSerialNumber, fi.FileIndexHigh, fi.FileIndexLow), nil
}
