package bridge

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/queue"
	"braid/ui"
)

// TestRepairShowsItsProgress damages three pieces of a finished file and
// presses Verify, then Repair, in the window, with a slow mirror: while
// the repair runs the row and the details header say "Repairing" and how
// many bad pieces are mended (never "Checksum mismatch"), Verify and
// Repair cannot be pressed; when it ends the row says verified and both
// can be pressed again.
func TestRepairShowsItsProgress(t *testing.T) {
	data := payload(16 * pieceLen)
	m := mirrortest.New(t, data, mirrortest.Rate(64<<10))
	f := describeData(t, "mend.bin", data, m.URL())
	dir := t.TempDir()
	damaged := slices.Clone(data)
	for _, p := range []int{3, 9, 12} {
		damaged[p*pieceLen+7] ^= 0xff
	}
	if err := os.WriteFile(filepath.Join(dir, "mend.bin"), damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	q := openQueue(t)
	id, err := q.Add(queue.NewJob{Source: "mend.meta4", Dest: dir, Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}})
	if err == nil {
		if err = q.SetFile(id, "mend.bin", queue.VerifiedBy("sha-256")); err == nil {
			_, err = q.Finish(id)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	b := newBackend(t, q)
	w := newWindow(t, b)
	w.SelectJobs(ui.JobID(id))
	w.Tick()
	d := w.Details
	row := func() string {
		return lineWith(strings.Join(ui.VisibleTexts(w.Win.Canvas()), "\n"), "mend.bin")
	}
	// settle ticks until the job is in a state other than Verifying or
	// Repairing, and returns the row; meanwhile, each tick, see is told
	// what the window shows.
	settle := func(what string, see func(row string)) string {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			w.Tick()
			st := jobByID(t, b, ui.JobID(id)).State
			if st != ui.Verifying && st != ui.Repairing {
				w.Tick()
				return row()
			}
			see(row())
		}
		t.Fatalf("%s never ended", what)
		return ""
	}

	test.Tap(d.Verify)
	w.Settle() // the command under way: the check has started
	if r := settle("Verify", func(string) {}); !strings.Contains(r, "Checksum mismatch") {
		t.Fatalf("after Verify of a damaged file the row says %q", r)
	}
	if d.Verify.Disabled() || d.Repair.Disabled() {
		t.Fatal("after Verify, Verify or Repair cannot be pressed")
	}

	test.Tap(d.Repair)
	w.Settle()
	var progress []string
	r := settle("Repair", func(r string) {
		if !d.Verify.Disabled() || !d.Repair.Disabled() {
			t.Error("Verify or Repair can be pressed while the repair runs")
		}
		if strings.Contains(r, "Checksum mismatch") {
			t.Errorf("the row says %q while the repair runs", r)
		}
		if i := strings.Index(r, "Repairing"); i >= 0 {
			cell, _, _ := strings.Cut(r[i:], " | ")
			if !slices.Contains(progress, cell) {
				progress = append(progress, cell)
			}
		}
		if header := d.State.String(); !strings.HasPrefix(header, "Repairing") && !strings.HasPrefix(header, "Verifying") {
			t.Errorf("the details header says %q while the repair runs", header)
		}
	})
	t.Logf("the row said, in turn: %q", progress)
	if !slices.ContainsFunc(progress, func(s string) bool { return strings.Contains(s, "of 3 bad pieces mended") }) {
		t.Errorf("the row never said how far the repair was: %q", progress)
	}
	if !strings.Contains(r, "Done · verified (") {
		t.Errorf("after the repair the row says %q", r)
	}
	if d.Verify.Disabled() || d.Repair.Disabled() {
		t.Error("after the repair, Verify or Repair cannot be pressed")
	}
	got, err := os.ReadFile(filepath.Join(dir, "mend.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the mended file differs (%v)", err)
	}
}
