//go:build !headless

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/ui"
)

// TestMirrorOrderAgrees: for a user who prefers mirrors in the US, braid
// inspect lists, the picker calls best and the engine tries first the
// same mirror, and inspect and the picker list all four in the same order:
// the user's country first (the US mirrors, by their priority 2 and 3),
// then the rest by priority (the DE mirror and the one of no location,
// both priority 1, in document order). inspect said "mirrors in US first"
// and listed the DE mirror first; the picker's best was the DE mirror.
func TestMirrorOrderAgrees(t *testing.T) {
	t.Parallel()
	data := getData(1<<20 + 11)
	de := mirrortest.New(t, data)
	none := mirrortest.New(t, data)
	us2 := mirrortest.New(t, data)
	us3 := mirrortest.New(t, data)
	dir := t.TempDir()
	meta := writeMetalink(t, dir, "order.meta4", data, "order.bin", 256<<10, []metalink.URL{
		{URL: de.URL(), Location: "de", Priority: 1},
		{URL: us3.URL(), Location: "us", Priority: 3},
		{URL: none.URL(), Priority: 1},
		{URL: us2.URL(), Location: "us", Priority: 2},
	})
	want := []string{us2.URL(), us3.URL(), de.URL(), none.URL()}
	host := func(u string) string {
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		return p.Host
	}

	// braid inspect, in JSON and in words.
	var out, errs syncBuffer
	if code := cmdInspect(context.Background(), []string{"--location", "us", "--json", meta}, &out, &errs); code != 0 {
		t.Fatalf("inspect: exit %d\n%s", code, errs.String())
	}
	var report struct {
		Files []struct {
			Mirrors []struct{ URL string } `json:"mirrors"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(out.String()), &report); err != nil || len(report.Files) != 1 {
		t.Fatalf("inspect --json: %v\n%s", err, out.String())
	}
	var inspected []string
	for _, m := range report.Files[0].Mirrors {
		inspected = append(inspected, m.URL)
	}
	if !slices.Equal(inspected, want) {
		t.Errorf("inspect lists the mirrors\n %q\nwant\n %q", inspected, want)
	}
	var words syncBuffer
	if code := cmdInspect(context.Background(), []string{"--location", "us", meta}, &words, &errs); code != 0 {
		t.Fatalf("inspect: exit %d\n%s", code, errs.String())
	}
	if !strings.Contains(words.String(), "mirrors in US first") {
		t.Errorf("inspect does not say how mirrors are ordered:\n%s", words.String())
	}

	// The picker: its best, and its list of mirrors.
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	f, err := openMeta(meta)
	if err != nil {
		t.Fatal(err)
	}
	p := ui.NewPicker(meta, f, ui.Settings{Dir: t.TempDir(), Countries: []string{"US"}}, w)
	w.SetContent(p.Content)
	if got, wantTitle := p.MirrorsItem.Text, "Mirrors: 4, best "+host(want[0]); got != wantTitle {
		t.Errorf("the picker's mirrors tab says %q, want %q", got, wantTitle)
	}
	var listed []string
	for i := range p.Mirrors.Length() {
		item := p.Mirrors.CreateItem()
		p.Mirrors.UpdateItem(i, item)
		listed = append(listed, firstLabel(item))
	}
	var wantHosts []string
	for _, u := range want {
		wantHosts = append(wantHosts, host(u))
	}
	if !slices.Equal(listed, wantHosts) {
		t.Errorf("the picker lists the mirrors\n %q\nwant\n %q", listed, wantHosts)
	}

	// The engine: with one connection, the first mirror it tries sends
	// the whole file.
	dest := t.TempDir()
	if code := cmdGet(context.Background(), []string{"-d", dest, "--state", t.TempDir(), "--location", "us", "--max-conn", "1", meta}, &out, &errs); code != 0 {
		t.Fatalf("get: exit %d\n%s", code, errs.String())
	}
	served := map[string]int64{}
	for _, m := range []*mirrortest.Mirror{de, none, us2, us3} {
		served[m.URL()] = m.BytesServed()
	}
	if served[want[0]] < int64(len(data)) {
		t.Errorf("with one connection the engine took %d of %d bytes from the first mirror (%s); all served: %v",
			served[want[0]], len(data), want[0], served)
	}
	for _, u := range want[1:] {
		if served[u] != 0 {
			t.Errorf("with one connection the engine took %d bytes from %s, not its first mirror", served[u], u)
		}
	}
	if got, err := os.ReadFile(filepath.Join(dest, "order.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the file got: %d bytes, %v", len(got), err)
	}
}

// openMeta parses the metalink at path.
func openMeta(path string) (*metalink.Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return metalink.Parse(f)
}

// firstLabel is the text of the first cell of a list row of labels.
func firstLabel(o fyne.CanvasObject) string {
	if c, ok := o.(*fyne.Container); ok && len(c.Objects) > 0 {
		if l, ok := c.Objects[0].(*widget.Label); ok {
			return l.Text
		}
	}
	return ""
}
