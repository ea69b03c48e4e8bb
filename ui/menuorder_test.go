package ui

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
)

// relinkBackend is a memBackend whose every job has one link to change.
type relinkBackend struct{ *memBackend }

func (relinkBackend) CanRelink(JobID) (ok, expired bool)   { return true, false }
func (relinkBackend) Relink(JobID, string) (string, error) { return "", nil }

var _ Relinker = relinkBackend{}

// TestChangeLinkHeadsTheMenuOnlyAsARemedy: "Change link…" heads a row's
// menu where it mends what stopped the job (failed, or its link
// expired); for a download running well it comes after the common
// actions, not first.
func TestChangeLinkHeadsTheMenuOnlyAsARemedy(t *testing.T) {
	b := relinkBackend{newMemBackend()}
	running := b.put(Detail{Job: Job{Name: "running.iso", State: Running, Size: 1 << 20, ETA: -1}})
	failed := b.put(Detail{Job: Job{Name: "failed.iso", State: Failed, Size: 1 << 20, ETA: -1, Err: "404"}})
	expired := b.put(Detail{Job: Job{Name: "expired.iso", State: Paused, Mend: MendLink, Size: 1 << 20, ETA: -1}})
	w, _ := newTestWindow(t, b)
	names := func(items []*fyne.MenuItem) []string {
		var out []string
		for _, it := range items {
			if !it.IsSeparator {
				out = append(out, it.Label)
			}
		}
		return out
	}
	change := lang.L("Change link…")
	for _, c := range []struct {
		id         JobID
		head, rest []string
	}{
		{running, nil, []string{change}},
		{failed, []string{change}, nil},
		{expired, []string{change}, nil},
	} {
		head, rest := w.jobMenuItems(c.id)
		if h, r := names(head), names(rest); !slices.Equal(h, c.head) || !slices.Equal(r, c.rest) {
			t.Errorf("job %d: head %q, rest %q; want %q, %q", c.id, h, r, c.head, c.rest)
		}
	}
}
