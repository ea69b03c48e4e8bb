package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"braid/engine/metalink"
	"braid/internal/testkit"
)

// slowMagnets is a memBackend whose Open of a magnet link waits, as
// fetching its metadata from peers does, until the test hands it the
// document or the open's context ends; ended receives how each such open
// ended.
type slowMagnets struct {
	*memBackend
	release chan *metalink.Document
	ended   chan error
}

func newSlowMagnets() *slowMagnets {
	return &slowMagnets{memBackend: newMemBackend(), release: make(chan *metalink.Document), ended: make(chan error, 4)}
}

func (b *slowMagnets) Open(ctx context.Context, source string) (*metalink.Document, error) {
	if !strings.HasPrefix(source, "magnet:") {
		return b.memBackend.Open(ctx, source)
	}
	select {
	case doc := <-b.release:
		b.ended <- nil
		return doc, nil
	case <-ctx.Done():
		b.ended <- ctx.Err()
		return nil, ctx.Err()
	}
}

// overlayLabels returns the texts of the labels in the window's dialogs.
func overlayLabels(w *Window) []string {
	var out []string
	w.Locked(func() {
		for _, o := range w.Win.Canvas().Overlays().List() {
			for _, c := range test.LaidOutObjects(o) {
				if l, ok := c.(*widget.Label); ok && l.Visible() {
					out = append(out, l.Text)
				}
			}
		}
	})
	return out
}

func showsFetching(w *Window, name string) bool {
	for _, s := range overlayLabels(w) {
		if s == "Fetching metadata for "+name+"…" {
			return true
		}
	}
	return false
}

func openEnded(t *testing.T, b *slowMagnets) error {
	t.Helper()
	select {
	case err := <-b.ended:
		return err
	case <-time.After(time.Minute):
		t.Fatal("the open did not end")
		return nil
	}
}

const testMagnet = "magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567&dn=Big%20Set&x.pe=127.0.0.1:1"

// While a magnet link's metadata is fetched the window says so in a
// dialog; its Cancel (or Escape) ends the open without an error dialog or
// a picker; when the metadata comes, the dialog closes and the picker
// shows the torrent's files.
func TestFetchingMetadataDialog(t *testing.T) {
	b := newSlowMagnets()
	w, _ := newTestWindow(t, b)

	w.OpenSource(testMagnet)
	testkit.WaitFor(t, "Big Set shown as fetching", func() bool { return showsFetching(w, "Big Set") })
	w.Locked(func() { test.Tap(overlayButton(t, w, "Cancel")) })
	if err := openEnded(t, b); !errors.Is(err, context.Canceled) {
		t.Fatalf("Cancel ended the open with %v, want canceled", err)
	}
	w.Settle()
	if dialogOpen(w) || len(w.Pickers) != 0 || len(b.Calls()) != 0 {
		t.Fatalf("after Cancel: dialogs %q, %d pickers, calls %q", overlayLabels(w), len(w.Pickers), b.Calls())
	}

	w.OpenSource(testMagnet)
	testkit.WaitFor(t, "Big Set shown as fetching", func() bool { return showsFetching(w, "Big Set") })
	typeKey(w, fyne.KeyEscape)
	if err := openEnded(t, b); !errors.Is(err, context.Canceled) {
		t.Fatalf("Escape ended the open with %v, want canceled", err)
	}
	w.Settle()
	if dialogOpen(w) || len(w.Pickers) != 0 {
		t.Fatalf("after Escape: dialogs %q, %d pickers", overlayLabels(w), len(w.Pickers))
	}

	w.OpenSource(testMagnet)
	testkit.WaitFor(t, "Big Set shown as fetching", func() bool { return showsFetching(w, "Big Set") })
	mu := metalink.MetaURL{URL: testMagnet, MediaType: "torrent", Priority: 1}
	b.release <- &metalink.Document{Version: 4, Files: []metalink.File{
		{Name: "Big Set/a.iso", Size: 3 << 20, MetaURLs: []metalink.MetaURL{mu}},
		{Name: "Big Set/b/c.txt", Size: 900, MetaURLs: []metalink.MetaURL{mu}},
	}}
	if err := openEnded(t, b); err != nil {
		t.Fatal(err)
	}
	w.Settle()
	if showsFetching(w, "Big Set") {
		t.Fatal("the fetching dialog stayed over the picker")
	}
	if len(w.Pickers) != 1 {
		t.Fatalf("%d pickers open, want the magnet's", len(w.Pickers))
	}
	w.Locked(func() { w.Pickers[0].Accept() })
	w.Settle()
	want := "add " + testMagnet + " [Big Set/a.iso Big Set/b/c.txt] paused=false dir=/home/user/Downloads"
	if calls := b.Calls(); len(calls) != 1 || calls[0] != want {
		t.Fatalf("calls %q, want %q", calls, want)
	}
}

// A magnet link is named by its display name, else its info hash.
func TestMagnetName(t *testing.T) {
	for _, c := range []struct {
		source, name string
		ok           bool
	}{
		{testMagnet, "Big Set", true},
		{"MAGNET:?xt=urn:btih:ABCDEF0123456789ABCDEF0123456789ABCDEF01&tr=http://t/a", "abcdef0123456789abcdef0123456789abcdef01", true},
		{"magnet:?dn=%20&xt=urn:btih:aa", "aa", true},
		{"https://example.org/a.torrent", "", false},
	} {
		if name, ok := magnetName(c.source); name != c.name || ok != c.ok {
			t.Errorf("magnetName(%q) = %q, %v; want %q, %v", c.source, name, ok, c.name, c.ok)
		}
	}
}
