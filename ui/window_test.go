package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"braid/internal/testkit"
)

// newTestWindow builds the window over b on a test app and reads the
// queue once. Opened folders are recorded in *opened.
func newTestWindow(t *testing.T, b Backend) (*Window, *[]string) {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(lightTheme())
	var opened []string
	w := New(a, b, Options{OpenFolder: func(dir string) error {
		opened = append(opened, dir)
		return nil
	}})
	if s, err := b.Settings(); err == nil {
		w.Settings = s
	}
	w.Win.Resize(fyne.NewSize(1100, 720))
	t.Cleanup(func() {
		w.Stop()
		w.Win.Close()
	})
	w.Tick()
	return w, &opened
}

// overlayButton finds a button by its text in the top overlay (a dialog).
func overlayButton(t *testing.T, w *Window, text string) *widget.Button {
	t.Helper()
	top := w.Win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatalf("no dialog open, looking for %q", text)
	}
	for _, o := range test.LaidOutObjects(top) {
		if b, ok := o.(*widget.Button); ok && b.Text == text {
			return b
		}
	}
	t.Fatalf("no button %q in the dialog", text)
	return nil
}

func rowState(w *Window, id JobID) JobState {
	j, _ := w.model.find(id)
	return j.State
}

func TestWindowShowsQueue(t *testing.T) {
	b := newMemBackend()
	running := sampleQueue(b)
	w, _ := newTestWindow(t, b)

	if w.Win.Title() != "Braid" {
		t.Errorf("title %q", w.Win.Title())
	}
	if n := w.List.Length(); n != 5 {
		t.Fatalf("list has %d rows, want 5", n)
	}
	if w.Empty.Visible() {
		t.Error("empty-queue hint shown over a full queue")
	}
	want := "↓6.4 MiB/s  ·  1 active  ·  1 queued  ·  1 paused  ·  1 done  ·  1 checksum mismatch"
	if w.Status.Text != want {
		t.Errorf("status bar\n %q\nwant\n %q", w.Status.Text, want)
	}

	r := newJobRow().(*jobRow)
	j, _ := w.model.find(running)
	r.show(j, false)
	if r.name.Text != "debian-13.1.0-amd64-DVD-1.iso" || r.size.Text != "140 MiB" || r.speed.Text != "6.4 MiB/s" || r.eta.Text != "9 s" {
		t.Errorf("running row shows %q %q %q %q", r.name.Text, r.size.Text, r.speed.Text, r.eta.Text)
	}
	if r.state.String() != "Downloading" {
		t.Errorf("state %q", r.state.String())
	}
	if got, want := r.progress.Value, j.Progress(); got != want || got <= 0 || got >= 1 {
		t.Errorf("progress %v, want %v", got, want)
	}
	// The checksum mismatch is marked in words, in red, with its own icon.
	bad := w.model.jobs[4]
	r.show(bad, false)
	seg := r.state.Segments[0].(*widget.TextSegment)
	if seg.Text != "Checksum mismatch" || seg.Style.ColorName != theme.ColorNameError || r.icon.Resource.Name() != lookOf(Job{Mismatch: true}).Icon.Name() || r.progress.Color != theme.ColorNameError {
		t.Errorf("mismatch row: %q colour %v icon %v bar %v", seg.Text, seg.Style.ColorName, r.icon.Resource, r.progress.Color)
	}
	if r.speed.Text != "" || r.eta.Text != "" {
		t.Errorf("a failed job shows speed %q and ETA %q", r.speed.Text, r.eta.Text)
	}
}

func TestWindowEmptyQueue(t *testing.T) {
	w, _ := newTestWindow(t, newMemBackend())
	if !w.Empty.Visible() {
		t.Error("no hint on an empty queue")
	}
	if w.Status.Text != "0 active  ·  0 queued" {
		t.Errorf("status %q", w.Status.Text)
	}
	for _, b := range []*widget.Button{w.Toolbar.Pause, w.Toolbar.Resume, w.Toolbar.Remove, w.Toolbar.OpenFolder} {
		if !b.Disabled() {
			t.Errorf("%s enabled with nothing selected", b.Text)
		}
	}
}

// TestQueueActions drives each toolbar button and shortcut and checks both
// what the backend was asked and what the list shows afterwards.
func TestQueueActions(t *testing.T) {
	ctrl := func(k fyne.KeyName) func(w *Window) {
		return func(w *Window) {
			w.Win.Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault})
		}
	}
	tap := func(b func(*Toolbar) *widget.Button) func(w *Window) {
		return func(w *Window) { test.Tap(b(w.Toolbar)) }
	}
	tests := []struct {
		name   string
		pick   int // row to select
		act    func(w *Window)
		call   string // %d is the selected job's ID
		after  JobState
		remove bool
	}{
		{"Pause button", 0, tap(func(t *Toolbar) *widget.Button { return t.Pause }), "pause %d", Paused, false},
		{"Ctrl+P", 1, ctrl(fyne.KeyP), "pause %d", Paused, false},
		{"Resume button", 2, tap(func(t *Toolbar) *widget.Button { return t.Resume }), "resume %d", Queued, false},
		{"Ctrl+R", 4, ctrl(fyne.KeyR), "resume %d", Queued, false},
		{"Ctrl+Down", 0, ctrl(fyne.KeyDown), "move %d 1", Running, false},
		{"Remove button", 3, tap(func(t *Toolbar) *widget.Button { return t.Remove }), "remove %d", 0, true},
		{"Ctrl+Delete", 2, ctrl(fyne.KeyDelete), "remove %d", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newMemBackend()
			sampleQueue(b)
			w, _ := newTestWindow(t, b)
			id := w.model.jobs[tt.pick].ID
			w.List.Select(tt.pick)
			if w.Selected() != id {
				t.Fatalf("selected %d, want %d", w.Selected(), id)
			}
			tt.act(w)
			if tt.remove {
				// Remove asks first; nothing happens until the user agrees.
				w.Settle()
				if len(b.Calls()) != 0 {
					t.Fatalf("removed without asking: %q", b.Calls())
				}
				test.Tap(overlayButton(t, w, "Remove"))
			}
			w.Settle()
			if want := fmt.Sprintf(tt.call, id); !slices.Equal(b.Calls(), []string{want}) {
				t.Fatalf("backend calls %q, want %q", b.Calls(), want)
			}
			if tt.remove {
				if _, ok := w.model.find(id); ok || w.List.Length() != 4 {
					t.Errorf("removed job still listed (%d rows)", w.List.Length())
				}
				if w.Selected() != 0 || !w.Details.Empty {
					t.Errorf("details still show the removed job")
				}
				return
			}
			if got := rowState(w, id); got != tt.after {
				t.Errorf("row state %v, want %v", got, tt.after)
			}
			if w.Selected() != id {
				t.Errorf("selection moved to %d", w.Selected())
			}
		})
	}
}

func TestToolbarFollowsSelection(t *testing.T) {
	b := newMemBackend()
	sampleQueue(b)
	w, opened := newTestWindow(t, b)
	tests := []struct {
		row           int
		pause, resume bool
	}{
		{0, true, false}, // running
		{1, true, false}, // queued
		{2, false, true}, // paused
		{3, false, false},
		{4, false, true}, // failed
	}
	for _, tt := range tests {
		w.List.Select(tt.row)
		if w.Toolbar.Pause.Disabled() == tt.pause || w.Toolbar.Resume.Disabled() == tt.resume {
			t.Errorf("row %d (%v): pause enabled %v, resume enabled %v", tt.row, w.model.jobs[tt.row].State,
				!w.Toolbar.Pause.Disabled(), !w.Toolbar.Resume.Disabled())
		}
		if w.Toolbar.Remove.Disabled() || w.Toolbar.OpenFolder.Disabled() {
			t.Errorf("row %d: remove or open folder disabled", tt.row)
		}
	}
	test.Tap(w.Toolbar.OpenFolder)
	if !slices.Equal(*opened, []string{"/home/user/Downloads"}) {
		t.Errorf("opened %q", *opened)
	}
}

func TestCommandErrorIsShown(t *testing.T) {
	b := newMemBackend()
	sampleQueue(b)
	w, _ := newTestWindow(t, b)
	w.List.Select(0)
	b.failNext = errors.New("queue database is locked by another Braid?")
	test.Tap(w.Toolbar.Pause)
	w.Settle()
	top := w.Win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no error dialog")
	}
	found := false
	for _, o := range test.LaidOutObjects(top) {
		if l, ok := o.(*widget.Label); ok && strings.Contains(l.Text, "locked by another Braid") {
			found = true
		}
	}
	if !found {
		t.Error("the error dialog does not say what went wrong")
	}
	if rowState(w, w.model.jobs[0].ID) != Running {
		t.Error("the job changed state though the command failed")
	}
}

func TestDetailsPane(t *testing.T) {
	b := newMemBackend()
	running := sampleQueue(b)
	w, _ := newTestWindow(t, b)
	d := w.Details
	if !d.Empty {
		t.Fatal("details show a job before any is selected")
	}
	w.Select(running)
	w.Tick()
	if d.Empty || d.Title.Text != "debian-13.1.0-amd64-DVD-1.iso" {
		t.Fatalf("details title %q (empty %v)", d.Title.Text, d.Empty)
	}
	if !d.Verify.Disabled() || !d.Repair.Disabled() {
		t.Error("Verify or Repair enabled while downloading")
	}

	d.Tabs.Select(d.MirrorsTab)
	if n := d.Mirrors.Length(); n != 4 {
		t.Errorf("%d mirror rows, want 4", n)
	}
	r := newMirrorRow().(*mirrorRow)
	d.updateMirrorRow(1, r)
	if r.host.Text != "ftp.example.net" || r.location.Text != "NL" || r.priority.Text != "1" || r.state.Text != "Active" ||
		r.speed.Text != "2.2 MiB/s" || r.bytes.Text != "35.0 MiB" || r.strikesLb.Text != "1" {
		t.Errorf("mirror row %q %q %q %q %q %q %q", r.host.Text, r.location.Text, r.priority.Text, r.state.Text, r.speed.Text, r.bytes.Text, r.strikesLb.Text)
	}
	d.updateMirrorRow(3, r)
	if !strings.Contains(r.state.Text, "Dropped: size 4 GiB") || r.state.Importance != widget.DangerImportance {
		t.Errorf("dropped mirror shows %q", r.state.Text)
	}

	// Switching to Segments asks the backend for pieces, which the other
	// tabs do without.
	if d.Segments.Map.Len() != 0 {
		t.Error("segment map filled before its tab was shown")
	}
	d.Tabs.Select(d.SegmentsTab)
	w.Tick()
	if got, want := d.Segments.Map.Len(), smallMap().Len(); got != want {
		t.Fatalf("segment map has %d pieces, want %d", got, want)
	}
	if !slices.Equal(d.Segments.Mirrors, []string{"mirror.example.org", "ftp.example.net", "dl.example.de:8080", "slow.example.com"}) {
		t.Errorf("legend mirrors %q", d.Segments.Mirrors)
	}
	if c := dimText(d.SegSummary); !strings.HasPrefix(c, "92 of 140 pieces done") || !strings.Contains(c, "1.0 MiB each") {
		t.Errorf("segment caption %q", c)
	}
	// The map is live: a tick after progress redraws it.
	b.update(running, func(det *Detail) {
		p := &det.Files[0].Pieces
		p.State = slices.Clone(p.State)
		for i := range p.State {
			p.State[i] = PieceDone
		}
	})
	w.Tick()
	if c := dimText(d.SegSummary); !strings.HasPrefix(c, "140 of 140 pieces done") {
		t.Errorf("segment caption after progress %q", c)
	}

	d.Tabs.Select(d.InfoTab)
	info := map[string]string{}
	for i := 0; i+1 < len(d.Info.Objects); i += 2 {
		info[d.Info.Objects[i].(*widget.Label).Text] = d.Info.Objects[i+1].(*widget.Label).Text
	}
	for k, want := range map[string]string{
		"Hashes":       "sha-256  3f0a377b",
		"Signature":    "present (application/pgp-signature)",
		"Piece hashes": "sha-256, 140 pieces of 1.0 MiB",
		"Origin":       "",
		"Source":       "https://cdimage.example.org/",
		"Publisher":    "Debian",
	} {
		if !strings.Contains(info[k], want) || (want == "" && info[k] != "") {
			t.Errorf("info %s = %q, want %q", k, info[k], want)
		}
	}
}

func TestVerifyAndRepair(t *testing.T) {
	b := newMemBackend()
	sampleQueue(b)
	w, _ := newTestWindow(t, b)
	bad := w.model.jobs[4].ID
	w.Select(bad)
	w.Tick()
	d := w.Details
	if d.Verify.Disabled() || d.Repair.Disabled() {
		t.Fatal("Verify or Repair disabled on a file with a checksum mismatch")
	}
	if d.Repair.Importance != widget.HighImportance {
		t.Error("Repair is not the suggested action on a mismatch")
	}
	test.Tap(d.Verify)
	test.Tap(d.Repair)
	w.Settle()
	// Commands run concurrently, so their order is not fixed.
	got := b.Calls()
	slices.Sort(got)
	if want := []string{fmt.Sprintf("repair %d", bad), fmt.Sprintf("verify %d", bad)}; !slices.Equal(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
}

// TestDropAddsSources drops a metalink, two links at once (as the
// desktop hands them over, disguised as file names), a ResourceSync
// list and a photo on the window: every source lands in a picker, where
// Enter starts it, and nothing starts unseen.
func TestDropAddsSources(t *testing.T) {
	b := newMemBackend()
	w, _ := newTestWindow(t, b)
	w.dropped(fyne.NewPos(10, 10), []fyne.URI{
		storage.NewFileURI("testdata/app.meta4"),
		storage.NewFileURI("https://example.org/pub/file.iso"),
		storage.NewFileURI("https://example.org/pub/other.iso"),
		mustParseURI("https://sync.example.org/resourcelist.xml"),
		storage.NewFileURI("/home/user/photo.jpg"),
	})
	w.Settle()
	var sources []string
	for _, p := range w.Pickers {
		sources = append(sources, p.Source)
	}
	slices.Sort(sources)
	abs, _ := filepath.Abs("testdata/app.meta4")
	want := []string{abs, "https://example.org/pub/file.iso", "https://example.org/pub/other.iso", "https://sync.example.org/resourcelist.xml"}
	slices.Sort(want)
	if !slices.Equal(sources, want) {
		t.Fatalf("pickers for %q, want %q", sources, want)
	}
	if got := b.Calls(); len(got) != 0 {
		t.Fatalf("calls %q: a drop started something unseen", got)
	}
	for range want {
		typeKey(w, fyne.KeyReturn)
		w.Settle()
	}
	if len(w.Pickers) != 0 || len(b.Calls()) != len(want) || w.List.Length() != len(want) {
		t.Errorf("after Enter in each picker: %d pickers open, calls %q, %d rows", len(w.Pickers), b.Calls(), w.List.Length())
	}
}

func TestDroppedSource(t *testing.T) {
	tests := []struct {
		uri  fyne.URI
		want string
		ok   bool
	}{
		{storage.NewFileURI("/tmp/a.meta4"), "/tmp/a.meta4", true},
		{storage.NewFileURI("/tmp/A.METALINK"), "/tmp/A.METALINK", true},
		{storage.NewFileURI("/tmp/b.torrent"), "/tmp/b.torrent", true},
		{storage.NewFileURI("/tmp/b.iso"), "", false},
		{storage.NewFileURI("/tmp/resourcelist.xml"), "/tmp/resourcelist.xml", true},
		{storage.NewFileURI("https://x.example/a.iso"), "https://x.example/a.iso", true},
		{storage.NewFileURI("ftp://x.example/a.iso"), "ftp://x.example/a.iso", true},
		{storage.NewFileURI("javascript://x"), "", false},
		{storage.NewFileURI("magnet:?xt=urn:btih:abc"), "magnet:?xt=urn:btih:abc", true},
		{mustParseURI("https://x.example/b.iso"), "https://x.example/b.iso", true},
		{nil, "", false},
	}
	for _, tt := range tests {
		name := "nil"
		if tt.uri != nil {
			name = tt.uri.String()
		}
		t.Run(name, func(t *testing.T) {
			got, ok := droppedSource(tt.uri)
			if ok != tt.ok || (ok && got != tt.want) {
				t.Errorf("droppedSource = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestOpenPickStart goes from Open to a running job: the picker shows,
// the user changes a filter, and Start adds what is ticked.
func TestOpenPickStart(t *testing.T) {
	b := newMemBackend()
	w, _ := newTestWindow(t, b)
	w.OpenSource("testdata/app.meta4")
	w.Settle()
	if len(w.Pickers) != 1 {
		t.Fatalf("%d pickers open", len(w.Pickers))
	}
	p := w.Pickers[0]
	if w.Win.Canvas().Overlays().Top() == nil {
		t.Fatal("the picker is not shown")
	}
	p.Languages.SetText("de")
	test.Tap(p.Start)
	w.Settle()
	want := "add testdata/app.meta4 [braidtest-1.0-de-linux-x64.tar.gz README.txt] paused=false dir=/home/user/Downloads"
	if got := b.Calls(); !slices.Equal(got, []string{want}) {
		t.Fatalf("calls %q, want %q", got, want)
	}
	if len(w.Pickers) != 0 || w.Win.Canvas().Overlays().Top() != nil {
		t.Error("the picker stayed open after Start")
	}
	if w.List.Length() != 1 || w.Selected() != w.model.jobs[0].ID {
		t.Error("the new job is not listed and selected")
	}
}

func TestOpenErrorIsShown(t *testing.T) {
	w, _ := newTestWindow(t, newMemBackend())
	w.OpenSource("testdata/does-not-exist.meta4")
	w.Settle()
	if w.Win.Canvas().Overlays().Top() == nil || len(w.Pickers) != 0 {
		t.Error("no error shown for a missing file")
	}
}

func TestPasteURL(t *testing.T) {
	b := newMemBackend()
	w, _ := newTestWindow(t, b)
	for _, clip := range []string{"not a link", "  https://example.org/a.tar.gz \n"} {
		w.App.Clipboard().SetContent(clip)
		w.Win.Canvas().(fyne.Shortcutable).TypedShortcut(&fyne.ShortcutPaste{})
		w.Settle()
	}
	if got := b.Calls(); len(got) != 1 || !strings.HasPrefix(got[0], "add https://example.org/a.tar.gz ") {
		t.Errorf("calls %q", got)
	}
}

func TestNotifications(t *testing.T) {
	tests := []struct {
		name  string
		end   func(*Detail)
		title string
		text  string
	}{
		{"finished", func(d *Detail) { d.State, d.Done = Done, d.Size }, "Download finished",
			"debian-13.1.0-amd64-DVD-1.iso is saved in /home/user/Downloads."},
		{"mismatch", func(d *Detail) { d.State, d.Mismatch = Failed, true }, "Verification failed",
			"debian-13.1.0-amd64-DVD-1.iso does not match its checksum. Repair fetches only the bad pieces again."},
		{"failed", func(d *Detail) { d.State, d.Err = Failed, "every mirror failed" }, "Download failed",
			"debian-13.1.0-amd64-DVD-1.iso: every mirror failed"},
		{"signed", func(d *Detail) {
			d.State, d.Done, d.Outcome, d.Signer = Done, d.Size, "verified (sha-256)", "Debian CD signing key <debian-cd@lists.debian.org>"
		}, "Download finished",
			"debian-13.1.0-amd64-DVD-1.iso is saved in /home/user/Downloads: verified (sha-256), signed by Debian CD signing key <debian-cd@lists.debian.org>."},
		{"unknown key", func(d *Detail) {
			d.State, d.Done, d.Outcome, d.Signer, d.SignerUnknown = Done, d.Size, "verified (sha-256)", "DF9B9C49EAA9298432589D76DA87E80D6294BE9B", true
		}, "Download finished",
			"debian-13.1.0-amd64-DVD-1.iso is saved in /home/user/Downloads: verified (sha-256), signed by an unknown key: DF9B9C49EAA9298432589D76DA87E80D6294BE9B."},
		{"not verified", func(d *Detail) { d.State, d.Done, d.Unverified = Done, d.Size, true }, "Download finished",
			"debian-13.1.0-amd64-DVD-1.iso is saved in /home/user/Downloads: not verified."},
		{"synced", func(d *Detail) { d.State, d.Sync = Synced, true }, "Sync finished",
			"debian-13.1.0-amd64-DVD-1.iso is in sync in /home/user/Downloads."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newMemBackend()
			running := sampleQueue(b)
			w, _ := newTestWindow(t, b)
			// Jobs that were already done when the window opened are not
			// news.
			test.AssertNotificationSent(t, nil, w.Tick)
			b.update(running, tt.end)
			test.AssertNotificationSent(t, fyne.NewNotification(tt.title, tt.text), w.Tick)
			test.AssertNotificationSent(t, nil, w.Tick)
		})
	}
}

func TestCloseWhileRunningAsks(t *testing.T) {
	b := newMemBackend()
	running := sampleQueue(b)
	w, _ := newTestWindow(t, b)
	w.closeRequested()
	if w.ctx.Err() != nil {
		t.Fatal("quit without asking while a download runs")
	}
	test.Tap(overlayButton(t, w, "Cancel"))
	if w.ctx.Err() != nil {
		t.Fatal("Cancel quit")
	}
	b.update(running, func(d *Detail) { d.State = Paused })
	b.update(running+1, func(d *Detail) { d.State = Paused })
	w.Tick()
	w.Details.Clear()
	w.poll.reloadSoon()
	w.Tick()
	w.closeRequested()
	if w.ctx.Err() == nil {
		t.Error("did not quit with nothing running")
	}
}

// TestQuitCountsTheQueueAsItIsNow asks to quit right after a queued
// download started, before the window's next reading: the dialog names it
// running, as the queue has it, not queued, as the list still shows it.
func TestQuitCountsTheQueueAsItIsNow(t *testing.T) {
	b := newMemBackend()
	id := b.put(Detail{Job: Job{Name: "next.iso", Dir: "/home/user/Downloads", State: Queued, Size: 1 << 30, ETA: -1}})
	w, _ := newTestWindow(t, b)
	if got := w.model.totals(); got.Queued != 1 || got.Running != 0 {
		t.Fatalf("the list counts %+v before the start, want 1 queued", got)
	}
	b.update(id, func(d *Detail) { d.State = Running })
	w.closeRequested()
	labels := strings.Join(overlayLabels(w), "\n")
	if !strings.Contains(labels, "1 download running") || strings.Contains(labels, "queued") {
		t.Errorf("the quit dialog says:\n%s\nwant 1 download running, nothing queued", labels)
	}
}

func TestSettingsDialog(t *testing.T) {
	b := newMemBackend()
	w, _ := newTestWindow(t, b)
	test.Tap(w.Toolbar.Settings)
	if w.Win.Canvas().Overlays().Top() == nil {
		t.Fatal("no settings dialog")
	}
	// The form is the dialog's; reach it through a fresh one built the
	// same way to fill it, then save through the dialog's button.
	var form *SettingsForm
	for _, o := range test.LaidOutObjects(w.Win.Canvas().Overlays().Top()) {
		if f, ok := o.(*widget.Form); ok {
			form = &SettingsForm{Form: f}
		}
	}
	if form == nil {
		t.Fatal("no form in the dialog")
	}
	entries := map[string]*Entry{}
	for _, it := range form.Form.Items {
		switch x := it.Widget.(type) {
		case *Entry:
			entries[it.Text] = x
		case *fyne.Container:
			for _, o := range x.Objects {
				if e, ok := o.(*Entry); ok {
					entries[it.Text] = e
				}
			}
		}
	}
	entries["Languages"].SetText("de, en")
	entries["Mirror countries"].SetText("DE")
	entries["Speed limit"].SetText("2 MiB/s")
	entries["Connections"].SetText("8")
	test.Tap(overlayButton(t, w, "Save"))
	w.Settle()
	got, _ := b.Settings()
	if !slices.Equal(got.Languages, []string{"de", "en"}) || !slices.Equal(got.Countries, []string{"DE"}) ||
		got.SpeedLimit != 2<<20 || got.MaxConns != 8 || got.Dir != "/home/user/Downloads" {
		t.Errorf("saved %+v", got)
	}
	if !slices.Equal(w.Settings.Languages, []string{"de", "en"}) {
		t.Error("the window kept the old settings")
	}
}

func TestSettingsFormValue(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	in := Settings{Dir: "/data", Languages: []string{"de", "en"}, OS: []string{"Linux-x64"}, Countries: []string{"DE", "AT"},
		MaxConns: 12, MaxConnsPerMirror: 2, SpeedLimit: 3 << 20, StartOnLaunch: true}
	f := NewSettingsForm(in, w)
	out, err := f.Value()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(out) != fmt.Sprint(in) {
		t.Errorf("round trip\n %+v\nwant\n %+v", out, in)
	}
	f.SpeedLimit.SetText("fast")
	f.MaxConns.SetText("-3")
	f.Dir.SetText("")
	_, err = f.Value()
	for _, want := range []string{"speed limit", "connections", "download folder"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{"", 0, false}, {"0", 0, false}, {"none", 0, false},
		{"800000", 800000, false}, {"500K", 500 << 10, false}, {"500 KiB/s", 500 << 10, false},
		{"2M", 2 << 20, false}, {"2 MiB/s", 2 << 20, false}, {"1.5MiB", 3 << 19, false}, {"1 GiB", 1 << 30, false},
		{"2 mbps", 2 << 20, false},
		{"fast", 0, true}, {"-1M", 0, true}, {"1e30", 0, true}, {"NaN", 0, true}, {"nan MiB/s", 0, true}, {"inf", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRate(tt.in)
			if (err != nil) != tt.bad || got != tt.want {
				t.Errorf("ParseRate(%q) = %d, %v", tt.in, got, err)
			}
		})
	}
}

// TestTickerSleepsWhenIdle runs the real ticker loop at a 1 ms period:
// with nothing live it must read once and then wait to be woken, and with
// a job running it must keep reading.
func TestTickerSleepsWhenIdle(t *testing.T) {
	b := newMemBackend()
	p := newPoller(b)
	var applied atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.loop(ctx, time.Millisecond, func(reading) { applied.Add(1) })
	}()
	testkit.WaitFor(t, "a first reading", func() bool { return applied.Load() >= 1 })
	time.Sleep(50 * time.Millisecond) // fifty periods: an awake ticker would read fifty times
	if n := applied.Load(); n != 1 {
		t.Errorf("idle ticker read %d times, want 1", n)
	}
	p.reloadSoon()
	testkit.WaitFor(t, "the reading asked for", func() bool { return applied.Load() >= 2 })

	b.put(Detail{Job: Job{Name: "x", State: Running, ETA: -1}})
	p.reloadSoon()
	testkit.WaitFor(t, "20 readings with a job running", func() bool { return applied.Load() >= 20 })
	cancel()
	<-done
}

// TestWindowGolden draws the whole window over the sample queue with the
// running job's segment map showing, in light and dark, and the window of
// an empty queue: the pictures to look at before a change to the layout is
// committed.
func TestWindowGolden(t *testing.T) {
	tests := []struct {
		name  string
		theme func() fyne.Theme
		empty bool
		tab   func(*Details) *container.TabItem
	}{
		{"window.png", lightTheme, false, nil},
		{"window_dark.png", darkTheme, false, nil},
		{"window_empty.png", lightTheme, true, nil},
		{"window_mirrors.png", lightTheme, false, func(d *Details) *container.TabItem { return d.MirrorsTab }},
		{"window_info.png", lightTheme, false, func(d *Details) *container.TabItem { return d.InfoTab }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newMemBackend()
			var running JobID
			if !tt.empty {
				running = sampleQueue(b)
			}
			w, _ := newTestWindow(t, b)
			w.App.Settings().SetTheme(tt.theme())
			if running != 0 {
				w.Select(running)
				tab := w.Details.SegmentsTab
				if tt.tab != nil {
					tab = tt.tab(w.Details)
				}
				w.Details.Tabs.Select(tab)
			}
			w.Tick()
			w.Win.Content().Refresh()
			assertGolden(t, tt.name, w.Win.Canvas().Capture())
		})
	}
}

func mustParseURI(s string) fyne.URI {
	u, err := storage.ParseURI(s)
	if err != nil {
		panic(err)
	}
	return u
}

// TestPickerDialogGolden draws the picker as it opens over the window.
func TestPickerDialogGolden(t *testing.T) {
	b := newMemBackend()
	w, _ := newTestWindow(t, b)
	w.OpenSource("testdata/app.meta4")
	w.Settle()
	if len(w.Pickers) != 1 {
		t.Fatalf("%d pickers", len(w.Pickers))
	}
	w.Pickers[0].Content.Refresh()
	assertGolden(t, "window_picker.png", w.Win.Canvas().Capture())
}
