//go:build !windows

package queue

// checksOwner: Unix drops a process's locks when it dies, so a held lock
// always means a live owner and no record is kept.
const checksOwner = false

func processGone(int, int64) bool { return false }

func processStart() (int64, error) { return 0, nil }

func ownerDecision(string) (func(), error) { return func() {}, nil }
