package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// limitBackend is the in-memory backend with a speed limit per download.
type limitBackend struct{ *memBackend }

func (b limitBackend) SetJobLimit(id JobID, bps int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.called("limit %d %d", id, bps); err != nil {
		return err
	}
	j, _ := b.find(id)
	if j == nil {
		return fmt.Errorf("no job %d", id)
	}
	j.Limit = bps
	return nil
}

// limitDialog is the open "Speed limit" dialog's choice and rate field.
func limitDialog(t *testing.T, w *Window) (*keyRadio, *Entry) {
	t.Helper()
	top := w.Win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog open")
	}
	var rg *keyRadio
	var e *Entry
	for _, o := range test.LaidOutObjects(top) {
		switch o := o.(type) {
		case *keyRadio:
			rg = o
		case *Entry:
			e = o
		}
	}
	if rg == nil || e == nil {
		t.Fatal("the dialog has no choice or no rate field")
	}
	return rg, e
}

// "Speed limit…" in the row menu, the Downloads menu and the details
// pane opens a dialog that sets the selected download's own limit, which
// its row then shows; the dialog opens on the limit in force; "No limit
// of its own" removes it; a rate that does not read is said and sets
// nothing.
func TestJobLimitDialog(t *testing.T) {
	b := limitBackend{newMemBackend()}
	running := sampleQueue(b.memBackend)
	w, _ := newTestWindow(t, b)
	if w.menu.limit == nil || !slices.Contains(w.Menu.Items[1].Items, w.menu.limit) {
		t.Fatal("no Speed limit… in the Downloads menu")
	}
	w.Select(running)
	w.Settle()
	if w.menu.limit.Disabled {
		t.Fatal("Speed limit… is disabled with a download selected")
	}

	// From the row menu.
	r := w.List.CreateItem().(*jobRow)
	j, _ := w.model.find(running)
	r.show(j, false)
	test.TapSecondary(r)
	if w.Win.Canvas().Overlays().Top() == nil {
		t.Fatal("no row menu")
	}
	w.Win.Canvas().Overlays().Top().Hide()
	w.Win.Canvas().Overlays().Remove(w.Win.Canvas().Overlays().Top())

	w.menu.limit.Action()
	choice, rate := limitDialog(t, w)
	if choice.Selected != "No limit of its own" || rate.Text != "" {
		t.Fatalf("a download without a limit opens on %q %q", choice.Selected, rate.Text)
	}
	if w.Win.Canvas().Focused() != rate {
		t.Error("the rate field does not have the focus")
	}
	test.Type(rate, "300 KiB/s")
	if choice.Selected != "At most" {
		t.Errorf("typing a rate left the choice at %q", choice.Selected)
	}
	test.Tap(overlayButton(t, w, "Save"))
	w.Settle()
	if calls := b.Calls(); !slices.Contains(calls, fmt.Sprintf("limit %d %d", running, 300<<10)) {
		t.Fatalf("calls %q, want the limit set to 300 KiB/s", calls)
	}
	w.Tick()
	j, _ = w.model.find(running)
	r.show(j, false)
	if r.speed.Text != "6.4 MiB/s ≤ 300 KiB/s" {
		t.Errorf("the row's speed cell is %q, want the limit beside the speed", r.speed.Text)
	}
	if line := jobLine(j); !strings.Contains(line, "6.4 MiB/s ≤ 300 KiB/s") {
		t.Errorf("the details line %q does not show the limit beside the speed", line)
	}

	// From the details pane: opens on 300 KiB/s; a bad rate sets nothing.
	w.Details.Show(Detail{Job: j})
	var btn *widget.Button
	for _, o := range w.Details.actions.Objects {
		if b, ok := o.(*widget.Button); ok && b.Text == "Speed limit…" {
			btn = b
		}
	}
	if btn == nil {
		t.Fatal("no Speed limit… button in the details pane")
	}
	test.Tap(btn)
	choice, rate = limitDialog(t, w)
	if choice.Selected != "At most" || rate.Text != "300 KiB/s" {
		t.Fatalf("the dialog opens on %q %q, want At most 300 KiB/s", choice.Selected, rate.Text)
	}
	rate.SetText("fast")
	before := len(b.Calls())
	test.Tap(overlayButton(t, w, "Save"))
	w.Settle()
	if n := len(b.Calls()); n != before {
		t.Errorf("a rate that does not read made calls %q", b.Calls()[before:])
	}
	overlayButton(t, w, "OK") // the error, said
	test.Tap(overlayButton(t, w, "OK"))

	test.Tap(btn)
	choice, _ = limitDialog(t, w)
	choice.SetSelected("No limit of its own")
	test.Tap(overlayButton(t, w, "Save"))
	w.Settle()
	if calls := b.Calls(); calls[len(calls)-1] != fmt.Sprintf("limit %d 0", running) {
		t.Fatalf("calls %q, want the limit removed", calls)
	}
	w.Tick()
	j, _ = w.model.find(running)
	r.show(j, false)
	if r.speed.Text != "6.4 MiB/s" {
		t.Errorf("the row's speed cell is %q after the limit was removed", r.speed.Text)
	}
}

// A queued download's row shows its limit alone; a backend without
// limits per download offers no Speed limit… at all.
func TestJobLimitShownAndOffered(t *testing.T) {
	if got := rowSpeed(Job{State: Queued, Limit: 2 << 20}); got != "≤ 2.0 MiB/s" {
		t.Errorf("a queued job with a limit: %q", got)
	}
	if got := rowSpeed(Job{State: Done, Limit: 2 << 20}); got != "" {
		t.Errorf("a finished job with a limit: %q, want nothing", got)
	}
	if got := rowSpeed(Job{State: Seeding, Upload: 1 << 20, Limit: 2 << 20}); got != "↑1.0 MiB/s" {
		t.Errorf("a seeding job: %q, want its upload alone", got)
	}
	b := newMemBackend()
	sampleQueue(b)
	w, _ := newTestWindow(t, b)
	if w.menu.limit != nil {
		t.Error("Speed limit… offered by a backend that keeps no limit per download")
	}
	for _, o := range w.Details.actions.Objects {
		if b, ok := o.(*widget.Button); ok && b.Text == "Speed limit…" {
			t.Error("Speed limit… in the details of a backend that keeps no limit per download")
		}
	}
}
