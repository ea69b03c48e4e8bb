package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// A download of a size not known yet shows its bytes so far and its
// speed, and no percentage; once the size is known the percentage shows.
func TestRowOfUnknownSize(t *testing.T) {
	test.NewTempApp(t)
	r := newJobRow().(*jobRow)
	test.NewTempWindow(t, r)
	j := Job{ID: 1, Name: "stream.bin", State: Running, Size: -1, Done: 5 << 20, Speed: 1 << 20, ETA: -1}
	r.show(j, false)
	if r.size.Text != "5.0 MiB so far" || r.speed.Text != "1.0 MiB/s" {
		t.Errorf("size %q, speed %q; want the bytes so far and the speed", r.size.Text, r.speed.Text)
	}
	if got := barText(t, r.progress); got != "" || r.progress.Value >= 0 {
		t.Errorf("a size not known shows %q (value %v)", got, r.progress.Value)
	}
	j.Size = 10 << 20
	r.show(j, false)
	if r.size.Text != "10.0 MiB" || barText(t, r.progress) != "50%" {
		t.Errorf("known size: %q, bar %q", r.size.Text, barText(t, r.progress))
	}
}

func barText(t *testing.T, b *Bar) string {
	t.Helper()
	return test.WidgetRenderer(b).(*barRenderer).text.Text
}
