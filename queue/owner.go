package queue

import (
	"fmt"
	"os"
	"path/filepath"
)

// ownerName is the owner's record beside the lock file, where the system
// needs it (checksOwner): "PID START GEN", the owning process, its start
// time (so a reused PID is not taken for it) and the number of the lock
// file it holds (lockPath). The lock stays what makes a process the owner;
// the record only tells whether a held lock's process still lives.
const ownerName = "state.owner"

// ownerRecord is what the owner's record says; the zero value (no record)
// names no process.
type ownerRecord struct {
	PID   int
	Start int64
	Gen   int
}

// lockPath is the lock file of generation gen: state.lock, then
// state.lock.1, ... after each take-over from an owner whose lock the
// system still held when it had died.
func lockPath(dir string, gen int) string {
	if gen == 0 {
		return filepath.Join(dir, lockName)
	}
	return filepath.Join(dir, fmt.Sprintf("%s.%d", lockName, gen))
}

// readOwner reads the owner's record; an unreadable one names no process,
// so its lock is respected as a live owner's.
func readOwner(dir string) ownerRecord {
	var r ownerRecord
	if !checksOwner {
		return r
	}
	b, err := os.ReadFile(filepath.Join(dir, ownerName))
	if err != nil {
		return r
	}
	if _, err := fmt.Sscan(string(b), &r.PID, &r.Start, &r.Gen); err != nil || r.Gen < 0 {
		return ownerRecord{}
	}
	return r
}

// gone reports whether the record names a process that has ended.
func (r ownerRecord) gone() bool { return r.PID > 0 && processGone(r.PID, r.Start) }

// recordOwner writes this process into the owner's record, having taken
// the lock file of generation gen, and removes the lock files of earlier
// generations that the system has let go of.
func (q *Queue) recordOwner(dir string, gen int) {
	if !checksOwner {
		return
	}
	start, err := processStart()
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, ownerName), fmt.Appendf(nil, "%d %d %d\n", os.Getpid(), start, gen), 0o600)
	}
	if err != nil {
		// Without a record naming it, a crash of this process leaves the
		// queue to the system's own time again (a minute or so on Wine),
		// and the earlier record, naming a dead process, must not make
		// another Braid take the queue from this live one.
		_ = os.Remove(filepath.Join(dir, ownerName))
	}
	for g := range gen {
		_ = os.Remove(lockPath(dir, g))
	}
}
