package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// TestRunRecordsWhatWasChecked: a job run by the runner records which hash
// verified each file, or none; a file that was at its name already and no
// hash proves is left alone, the download is saved beside it, and removing
// the job with its files deletes only the file the job wrote.
func TestRunRecordsWhatWasChecked(t *testing.T) {
	t.Parallel()
	data := testkit.Data(1<<20 + 9)
	m := mirrortest.New(t, data)
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()

	hashed, err := q.Add(queue.NewJob{Source: "h.meta4", Dest: dest, Doc: describe(t, "h.bin", data, 256<<10, m)})
	if err != nil {
		t.Fatal(err)
	}
	plain := describe(t, "p.bin", data, 0, m)
	plain.Files[0].Hashes, plain.Files[0].Pieces = nil, nil
	mine := []byte(strings.Repeat("x", len(data)))
	if err := os.WriteFile(filepath.Join(dest, "p.bin"), mine, 0o644); err != nil {
		t.Fatal(err)
	}
	unhashed, err := q.Add(queue.NewJob{Source: "p.meta4", Dest: dest, Doc: plain})
	if err != nil {
		t.Fatal(err)
	}
	if err := runner(q).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	h, _ := q.Get(hashed)
	// sha-256 piece hashes cover every byte: they prove the file, with no
	// whole-file pass (DESIGN, "The engine's contract").
	if f := h.Files[0]; f.VerifiedBy != "sha-256 pieces" || f.Outcome() != "verified (sha-256 piece hashes)" || h.Checked() != "verified (sha-256 piece hashes)" || !f.Created {
		t.Errorf("hashed file: verified by %q, outcome %q, job %q, created %v", f.VerifiedBy, f.Outcome(), h.Checked(), f.Created)
	}
	p, _ := q.Get(unhashed)
	f := p.Files[0]
	if f.VerifiedBy != "" || f.Outcome() != "not verified (no hash published)" || f.SavedAs != "p (1).bin" || !f.Created {
		t.Errorf("unhashed file: verified by %q, outcome %q, saved as %q, created %v", f.VerifiedBy, f.Outcome(), f.SavedAs, f.Created)
	}
	if got, _ := os.ReadFile(filepath.Join(dest, "p (1).bin")); !bytes.Equal(got, data) {
		t.Error("p (1).bin does not hold the download")
	}
	if _, err := RemoveWithFiles(q, unhashed); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dest, "p (1).bin")); !os.IsNotExist(err) {
		t.Errorf("remove with files left the file the job wrote: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dest, "p.bin")); !bytes.Equal(got, mine) {
		t.Error("remove with files touched the file that was there before")
	}
}
