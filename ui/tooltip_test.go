package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

// TestTooltipFollowsStillMouse: with the mouse resting on a mirror's
// state, the tooltip follows the state as it changes: none while it
// reads "Active" (not cut), the whole sentence once it turns into a
// cut "Waiting: …", none again when the mouse leaves.
func TestTooltipFollowsStillMouse(t *testing.T) {
	b := newMemBackend()
	mirror := func(st MirrorState, err string) Detail {
		return Detail{Job: Job{Name: "refused.iso", State: Running, Size: 5 << 20}, Files: []FileDetail{{
			Name: "refused.iso", Size: 5 << 20, State: FileRunning,
			Mirrors: []MirrorDetail{{Host: "127.0.0.1:9", State: st, Err: err, Priority: 1}},
		}}}
	}
	id := b.put(mirror(MirrorActive, ""))
	var r *mirrorRow
	w, _ := newTestWindow(t, b)
	w.Select(id)
	w.Settle()
	w.Details.Tabs.Select(w.Details.MirrorsTab)
	show := func(st MirrorState, err string) {
		d := mirror(st, err)
		d.ID = id
		w.Details.Show(d)
		if r != nil {
			// What the list does to its rows on a refresh. (The test
			// driver builds its renderers again when the window is
			// walked, so the row is updated by hand.)
			w.Details.updateMirrorRow(0, r)
		}
	}
	show(MirrorActive, "")

	for _, o := range test.LaidOutObjects(w.Win.Canvas().Content()) {
		if m, ok := o.(*mirrorRow); ok && m.Visible() && m.host.Text == "127.0.0.1:9" {
			r = m
		}
	}
	if r == nil {
		t.Fatal("the Mirrors tab shows no row for the mirror")
	}
	cell := r.state.Position().Add(fyne.NewPos(10, 5))
	abs := fyne.CurrentApp().Driver().AbsolutePositionForObject(r).Add(cell)
	r.MouseIn(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: cell, AbsolutePosition: abs}})
	if w.tips.Text != "" {
		t.Fatalf("an Active mirror, not cut, has the tooltip %q", w.tips.Text)
	}

	const whole = "Waiting: The server refused the connection. Braid tries it again in a minute."
	show(MirrorWaiting, whole[len("Waiting: "):])
	if !isCut(r.state.Text, r.state.Size().Width) {
		t.Fatalf("the state cell (%v wide) shows %q whole; the test needs it cut", r.state.Size().Width, r.state.Text)
	}
	if w.tips.Text != whole {
		t.Errorf("under a still mouse the state turned to %q; the tooltip is %q", whole, w.tips.Text)
	}

	show(MirrorActive, "")
	if w.tips.Text != "" {
		t.Errorf("the state is Active again, and the tooltip still says %q", w.tips.Text)
	}
	show(MirrorWaiting, whole[len("Waiting: "):])
	r.MouseOut()
	show(MirrorWaiting, whole[len("Waiting: "):])
	if w.tips.Text != "" {
		t.Errorf("the mouse left the row, and the tooltip says %q", w.tips.Text)
	}
}

// TestTitleTooltipWhenCut: the details' bold title, cut short with an
// ellipsis, shows the whole file name in a tooltip under the mouse; one
// that fits shows none.
func TestTitleTooltipWhenCut(t *testing.T) {
	long := strings.Repeat("very-long-dataset-part-", 8) + "2026-11-29.tar.zst"
	b := newMemBackend()
	longID := b.put(Detail{Job: Job{Name: long, State: Done, Size: 1 << 20, Done: 1 << 20}})
	shortID := b.put(Detail{Job: Job{Name: "short.iso", State: Done, Size: 1 << 20, Done: 1 << 20}})
	w, _ := newTestWindow(t, b)
	for _, tc := range []struct {
		id   JobID
		want string
	}{{longID, long}, {shortID, ""}} {
		w.Select(tc.id)
		w.Settle()
		title := w.Details.Title
		if title.Text != w.Details.Detail.Name {
			t.Fatalf("the title says %q for %q", title.Text, w.Details.Detail.Name)
		}
		at := fyne.NewPos(20, 5)
		abs := fyne.CurrentApp().Driver().AbsolutePositionForObject(title).Add(at)
		title.MouseIn(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: at, AbsolutePosition: abs}})
		if w.tips.Text != tc.want {
			t.Errorf("resting on the title %q (%v wide), the tooltip is %q, want %q", title.Text, title.Size().Width, w.tips.Text, tc.want)
		}
		title.MouseOut()
		if w.tips.Text != "" {
			t.Errorf("the mouse left the title, and the tooltip says %q", w.tips.Text)
		}
	}
}
