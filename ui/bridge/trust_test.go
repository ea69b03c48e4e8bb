package bridge

import (
	"strings"
	"testing"

	"braid/engine/signature"
	"braid/queue"
	"braid/ui"
)

// An unreadable signature is a warning beside the hashes' verdict on the
// job's row; a bad one is the job's failure.
func TestTrustUnreadableSignatureWarns(t *testing.T) {
	j := queue.Job{ID: 1, State: queue.Done, Files: []queue.File{{Name: "f.bin", Selected: true, Verified: true, VerifiedBy: "sha-256"}}}
	unreadable := signature.Outcome{Status: signature.Unreadable, Note: "no media type"}
	var v ui.Job
	trustLocked(&v, j, map[string]queue.FileTrust{"f.bin": {Signature: unreadable}})
	if v.State == ui.Failed || !strings.Contains(v.Outcome, "verified (sha-256)") || !strings.Contains(v.Outcome, unreadable.String()) {
		t.Errorf("unreadable signature: state %v, outcome %q; want the hash's verdict and the warning", v.State, v.Outcome)
	}
	v = ui.Job{}
	trustLocked(&v, j, map[string]queue.FileTrust{"f.bin": {Signature: signature.Outcome{Status: signature.Bad}}})
	if v.State != ui.Failed {
		t.Errorf("bad signature: state %v, want failed", v.State)
	}
}
