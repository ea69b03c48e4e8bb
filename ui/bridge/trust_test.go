package bridge

import (
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/signature"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

// An unreadable signature is a warning beside the hashes' verdict on the
// job's row; a bad one is the job's failure.
func TestTrustUnreadableSignatureWarns(t *testing.T) {
	t.Parallel()
	j := queue.Job{ID: 1, State: queue.Done, Files: []queue.File{{Name: "f.bin", Selected: true, Verified: true, VerifiedBy: "sha-256"}}}
	unreadable := signature.Outcome{Status: signature.Unreadable, Note: "no media type"}
	var v ui.Job
	trustLocked(&v, j, map[string]queue.FileTrust{"f.bin": {Signature: runner.SignatureRecord(unreadable)}})
	if v.State == ui.Failed || !strings.Contains(v.Outcome, "verified (sha-256)") || !strings.Contains(v.Outcome, unreadable.String()) {
		t.Errorf("unreadable signature: state %v, outcome %q; want the hash's verdict and the warning", v.State, v.Outcome)
	}
	v = ui.Job{}
	trustLocked(&v, j, map[string]queue.FileTrust{"f.bin": {Signature: runner.SignatureRecord(signature.Outcome{Status: signature.Bad})}})
	if v.State != ui.Failed {
		t.Errorf("bad signature: state %v, want failed", v.State)
	}
}

// A row says when its job joined the queue, for the Added column.
func TestViewAdded(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	id, err := q.Add(queue.NewJob{Source: "a.meta4", Dest: t.TempDir(), Doc: &metalink.Document{Version: 4, Files: []metalink.File{{Name: "a.bin", Size: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	v := b.viewLocked(j)
	b.mu.Unlock()
	if j.AddedAt.IsZero() || !v.Added.Equal(j.AddedAt) {
		t.Errorf("row added %v, job added %v", v.Added, j.AddedAt)
	}
}
