package runner

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	"braid/engine"
	"braid/queue"
)

// TestFinishCause: a download of braid get that ends on a problem with its
// destination the user can fix pauses its job with the reason, naming the
// folder as stored (absolute); a missing file in a folder that is there,
// and any other error, stay errors that fail the job.
func TestFinishCause(t *testing.T) {
	here := t.TempDir()
	gone := filepath.Join(t.TempDir(), "gone")
	notExist := &fs.PathError{Op: "open", Path: "x.bin", Err: fs.ErrNotExist}
	for _, tc := range []struct {
		name, dir string
		err       error
		reason    string // "" when not a pause
	}{
		{"folder gone", gone, notExist, fmt.Sprintf("the destination folder %s no longer exists", gone)},
		{"file gone, folder there", here, notExist, ""},
		{"read-only", here, &fs.PathError{Op: "open", Path: "x.bin", Err: fs.ErrPermission}, fmt.Sprintf("the destination folder %s is read-only", here)},
		{"disk full", here, &fs.PathError{Op: "write", Path: "x.bin", Err: syscall.ENOSPC}, fmt.Sprintf("the disk of %s is full", here)},
		{"other", here, engine.ErrNoMirrors, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := classify(tc.dir, tc.err)
			reason, paused := queue.PauseReason(got)
			if reason != tc.reason || paused != (tc.reason != "") {
				t.Errorf("reason %q (pause %v), want %q", reason, paused, tc.reason)
			}
		})
	}
	if classify(here, nil) != nil {
		t.Error("a download that ended well has a cause")
	}

}
