package ui

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// typeKey delivers a key as the desktop driver does: to the focused
// widget when there is one, else to the canvas. It holds the window's
// UI lock, as the one UI goroutine would be busy: a command the key
// starts applies its result only after the key is handled.
func typeKey(w *Window, name fyne.KeyName) {
	w.doMu.Lock()
	defer w.doMu.Unlock()
	ev := &fyne.KeyEvent{Name: name}
	c := w.Win.Canvas()
	if f := c.Focused(); f != nil {
		f.TypedKey(ev)
		return
	}
	if h := c.OnTypedKey(); h != nil {
		h(ev)
	}
}

func shortcutKey(w *Window, s fyne.Shortcut) {
	w.doMu.Lock()
	defer w.doMu.Unlock()
	w.Win.Canvas().(fyne.Shortcutable).TypedShortcut(s)
}

func dialogOpen(w *Window) bool { return w.Win.Canvas().Overlays().Top() != nil }

// TestDialogsAnswerEnterAndEscape opens each dialog and checks that
// Escape closes it having done nothing and Enter does what its default
// button does.
func TestDialogsAnswerEnterAndEscape(t *testing.T) {
	t.Run("Add URL", func(t *testing.T) {
		b := newMemBackend()
		w, _ := newTestWindow(t, b)
		shortcutKey(w, ctrl(fyne.KeyN))
		if !dialogOpen(w) {
			t.Fatal("Ctrl+N opened no dialog")
		}
		typeKey(w, fyne.KeyEscape)
		if dialogOpen(w) {
			t.Fatal("Escape left Add URL open")
		}
		shortcutKey(w, ctrl(fyne.KeyN))
		test.Type(w.Win.Canvas().Focused(), "https://example.org/a.iso")
		typeKey(w, fyne.KeyReturn)
		w.Settle()
		if dialogOpen(w) || !slices.Equal(b.Calls(), []string{"add https://example.org/a.iso [a.iso] paused=false dir=/home/user/Downloads"}) {
			t.Errorf("Enter in Add URL: dialog open %v, calls %q", dialogOpen(w), b.Calls())
		}
	})
	t.Run("picker", func(t *testing.T) {
		b := newMemBackend()
		w, _ := newTestWindow(t, b)
		w.OpenSource("testdata/app.meta4")
		w.Settle()
		typeKey(w, fyne.KeyEscape)
		if dialogOpen(w) || len(w.Pickers) != 0 || len(b.Calls()) != 0 {
			t.Fatalf("Escape in the picker: open %v, calls %q", dialogOpen(w), b.Calls())
		}
		w.OpenSource("testdata/app.meta4")
		w.Settle()
		// The focus in a filter entry: Enter still starts.
		p := w.Pickers[0]
		w.Win.Canvas().Focus(p.Languages)
		typeKey(w, fyne.KeyReturn)
		w.Settle()
		if dialogOpen(w) || len(b.Calls()) != 1 || !strings.Contains(b.Calls()[0], "paused=false") {
			t.Errorf("Enter in the picker: open %v, calls %q", dialogOpen(w), b.Calls())
		}
	})
	t.Run("picker with the focus on a file's box", func(t *testing.T) {
		b := newMemBackend()
		w, _ := newTestWindow(t, b)
		w.OpenSource("testdata/app.meta4")
		w.Settle()
		var box *keyCheck
		for _, o := range test.LaidOutObjects(w.Win.Canvas().Overlays().Top()) {
			if c, ok := o.(*keyCheck); ok && box == nil {
				box = c
			}
		}
		if box == nil {
			t.Fatal("no file box in the picker")
		}
		w.Win.Canvas().Focus(box)
		typeKey(w, fyne.KeyEscape)
		if dialogOpen(w) {
			t.Error("Escape with the focus on a box left the picker open")
		}
	})
	t.Run("Remove", func(t *testing.T) {
		b := newMemBackend()
		sampleQueue(b)
		w, _ := newTestWindow(t, b)
		w.List.Select(1)
		typeKey(w, fyne.KeyDelete)
		typeKey(w, fyne.KeyEscape)
		w.Settle()
		if dialogOpen(w) || len(b.Calls()) != 0 {
			t.Fatalf("Escape in Remove: open %v, calls %q", dialogOpen(w), b.Calls())
		}
		typeKey(w, fyne.KeyDelete)
		typeKey(w, fyne.KeyReturn)
		w.Settle()
		if want := fmt.Sprintf("remove %d", w.Jobs()[0].ID+1); !slices.Equal(b.Calls(), []string{want}) {
			t.Errorf("Enter in Remove: calls %q, want %q", b.Calls(), want)
		}
	})
	t.Run("Settings", func(t *testing.T) {
		b := newMemBackend()
		w, _ := newTestWindow(t, b)
		shortcutKey(w, ctrl(fyne.KeyComma))
		typeKey(w, fyne.KeyEscape)
		w.Settle()
		if dialogOpen(w) || len(b.Calls()) != 0 {
			t.Fatalf("Escape in Settings: open %v, calls %q", dialogOpen(w), b.Calls())
		}
		shortcutKey(w, ctrl(fyne.KeyComma))
		typeKey(w, fyne.KeyReturn)
		w.Settle()
		if dialogOpen(w) || !slices.Equal(b.Calls(), []string{"settings"}) {
			t.Errorf("Enter in Settings: open %v, calls %q", dialogOpen(w), b.Calls())
		}
	})
	t.Run("Schedule", func(t *testing.T) {
		b := newMemBackend()
		w, _ := newTestWindow(t, b)
		w.ShowSchedule()
		typeKey(w, fyne.KeyEscape)
		w.Settle()
		if dialogOpen(w) || len(b.Calls()) != 0 {
			t.Fatalf("Escape in Schedule: open %v, calls %q", dialogOpen(w), b.Calls())
		}
		w.ShowSchedule()
		typeKey(w, fyne.KeyReturn)
		w.Settle()
		if dialogOpen(w) || !slices.Equal(b.Calls(), []string{"schedule"}) {
			t.Errorf("Enter in Schedule: open %v, calls %q", dialogOpen(w), b.Calls())
		}
	})
	t.Run("F1", func(t *testing.T) {
		w, _ := newTestWindow(t, newMemBackend())
		typeKey(w, fyne.KeyF1)
		if !dialogOpen(w) {
			t.Fatal("F1 showed nothing")
		}
		found := false
		for _, o := range test.LaidOutObjects(w.Win.Canvas().Overlays().Top()) {
			if l, ok := o.(*widget.Label); ok && strings.Contains(l.Text, "Ctrl+A") && strings.Contains(l.Text, "Space") {
				found = true
			}
		}
		if !found {
			t.Error("the shortcuts dialog does not list Ctrl+A and Space")
		}
		typeKey(w, fyne.KeyEscape)
		if dialogOpen(w) {
			t.Error("Escape left the shortcuts open")
		}
	})
	t.Run("error", func(t *testing.T) {
		w, _ := newTestWindow(t, newMemBackend())
		w.OpenSource("testdata/does-not-exist.meta4")
		w.Settle()
		if !dialogOpen(w) {
			t.Fatal("no error shown")
		}
		typeKey(w, fyne.KeyReturn)
		if dialogOpen(w) {
			t.Error("Enter left the error open")
		}
	})
}

// TestSpacePausesAndResumes presses Space on the list with a running
// job selected, then on the paused job, with the list focused as a click
// leaves it.
func TestSpacePausesAndResumes(t *testing.T) {
	b := newMemBackend()
	running := sampleQueue(b)
	w, _ := newTestWindow(t, b)
	w.Select(running)
	w.Win.Canvas().Focus(w.List)
	typeKey(w, fyne.KeySpace)
	w.Settle()
	typeKey(w, fyne.KeySpace)
	w.Settle()
	want := []string{fmt.Sprintf("pause %d", running), fmt.Sprintf("resume %d", running)}
	if !slices.Equal(b.Calls(), want) {
		t.Errorf("calls %q, want %q", b.Calls(), want)
	}
}

// TestSelectAllAndBulk selects every job with Ctrl+A and pauses, resumes
// and removes them in one go each.
func TestSelectAllAndBulk(t *testing.T) {
	b := newMemBackend()
	sampleQueue(b)
	w, _ := newTestWindow(t, b)
	shortcutKey(w, &fyne.ShortcutSelectAll{})
	if n := len(w.Selection()); n != 5 {
		t.Fatalf("Ctrl+A selected %d jobs, want 5", n)
	}
	ids := func(states ...JobState) []JobID {
		var out []JobID
		for _, j := range w.Jobs() {
			if slices.Contains(states, j.State) {
				out = append(out, j.ID)
			}
		}
		return out
	}
	pausable := ids(Running, Queued)
	shortcutKey(w, ctrl(fyne.KeyP))
	w.Settle()
	var want []string
	for _, id := range pausable {
		want = append(want, fmt.Sprintf("pause %d", id))
	}
	if !slices.Equal(b.Calls(), want) {
		t.Fatalf("bulk pause: calls %q, want %q", b.Calls(), want)
	}
	if got := ids(Paused); len(got) != 3 {
		t.Errorf("%d paused after the bulk pause, want 3", len(got))
	}
	before := len(b.Calls())
	test.Tap(w.Toolbar.Resume)
	w.Settle()
	if got := b.Calls()[before:]; len(got) != 4 { // three paused, one failed
		t.Errorf("bulk resume: calls %q", got)
	}
	typeKey(w, fyne.KeyDelete)
	typeKey(w, fyne.KeyReturn)
	w.Settle()
	if w.List.Length() != 0 || len(w.Selection()) != 0 {
		t.Errorf("bulk remove left %d rows, %d selected", w.List.Length(), len(w.Selection()))
	}
}

// TestClickModifiers selects with Ctrl-click and Shift-click as the rows
// hear them.
func TestClickModifiers(t *testing.T) {
	b := newMemBackend()
	sampleQueue(b)
	w, _ := newTestWindow(t, b)
	click := func(row int, mod fyne.KeyModifier) {
		r := w.List.CreateItem().(*jobRow)
		w.List.UpdateItem(row, r)
		r.MouseDown(&desktop.MouseEvent{Modifier: mod})
		r.Tapped(&fyne.PointEvent{})
	}
	selected := func() []int {
		var out []int
		for _, j := range w.Selection() {
			out = append(out, w.model.index[j.ID])
		}
		return out
	}
	click(0, 0)
	click(2, fyne.KeyModifierControl)
	if got := selected(); !slices.Equal(got, []int{0, 2}) {
		t.Errorf("after Ctrl-click: rows %v", got)
	}
	click(3, fyne.KeyModifierShift)
	if got := selected(); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("after Shift-click: rows %v", got)
	}
	click(1, fyne.KeyModifierControl) // not the last clicked: comes off
	click(2, 0)
	if got := selected(); !slices.Equal(got, []int{2}) {
		t.Errorf("after a plain click: rows %v", got)
	}
	// A marked row shows its mark.
	click(4, fyne.KeyModifierControl)
	r := w.List.CreateItem().(*jobRow)
	r.show(w.Jobs()[2], true)
	if !r.mark.Visible() {
		t.Error("a selected row beside the list's own selection is not marked")
	}
	typeKey(w, fyne.KeyEscape)
	if len(w.Selection()) != 0 || w.Selected() != 0 {
		t.Error("Escape kept the selection")
	}
}

// TestMoveKeys moves two selected jobs with each key and checks the
// queue's order afterwards.
func TestMoveKeys(t *testing.T) {
	for _, tt := range []struct {
		key  fyne.KeyName
		want []int // original rows in the new order
	}{
		{fyne.KeyUp, []int{0, 2, 3, 1, 4}},
		{fyne.KeyDown, []int{0, 1, 4, 2, 3}},
		{fyne.KeyHome, []int{2, 3, 0, 1, 4}},
		{fyne.KeyEnd, []int{0, 1, 4, 2, 3}},
	} {
		t.Run(string(tt.key), func(t *testing.T) {
			b := newMemBackend()
			sampleQueue(b)
			w, _ := newTestWindow(t, b)
			orig := slices.Clone(w.Jobs())
			w.SelectJobs(orig[2].ID, orig[3].ID)
			shortcutKey(w, ctrl(tt.key))
			w.Settle()
			var got, want []JobID
			for _, j := range w.Jobs() {
				got = append(got, j.ID)
			}
			for _, i := range tt.want {
				want = append(want, orig[i].ID)
			}
			if !slices.Equal(got, want) {
				t.Errorf("order %v, want %v (calls %q)", got, want, b.Calls())
			}
			if len(w.Selection()) != 2 {
				t.Errorf("the move lost the selection: %d selected", len(w.Selection()))
			}
		})
	}
}

// TestSearchAndStateFilter narrows the list by text and by state.
func TestSearchAndStateFilter(t *testing.T) {
	b := newMemBackend()
	running := sampleQueue(b)
	w, _ := newTestWindow(t, b)
	shortcutKey(w, ctrl(fyne.KeyF))
	if w.Win.Canvas().Focused() != w.Search {
		t.Fatal("Ctrl+F did not focus the search box")
	}
	test.Type(w.Search, "AMD64")
	if w.List.Length() != 3 {
		t.Errorf("search amd64 shows %d rows, want 3", w.List.Length())
	}
	paused := Paused
	w.SetFilter("", &paused)
	if w.List.Length() != 1 {
		t.Errorf("state filter Paused shows %d rows", w.List.Length())
	}
	// A live change moves a job into the filter's rows.
	b.update(running, func(d *Detail) { d.State = Paused })
	w.poll.reloadSoon()
	w.Tick()
	if w.List.Length() != 2 {
		t.Errorf("after the running job paused, the filter shows %d rows, want 2", w.List.Length())
	}
	w.SetFilter("", nil)
	if w.List.Length() != 5 {
		t.Errorf("no filter shows %d rows", w.List.Length())
	}
	w.Win.Canvas().Focus(w.Search)
	test.Type(w.Search, "zzz")
	typeKey(w, fyne.KeyEscape)
	if w.Search.Text != "" || w.List.Length() != 5 {
		t.Errorf("Escape in the search box left %q, %d rows", w.Search.Text, w.List.Length())
	}
}

// TestFinishedJobActions opens the file of a finished job, shows its
// folder and copies its source.
func TestFinishedJobActions(t *testing.T) {
	b := newMemBackend()
	sampleQueue(b)
	a := test.NewTempApp(t)
	var files, folders []string
	var filesMu sync.Mutex // the window opens files off the UI goroutine
	opened := func() []string {
		filesMu.Lock()
		defer filesMu.Unlock()
		return slices.Clone(files)
	}
	w := New(a, b, Options{
		OpenFile: func(p string) error {
			filesMu.Lock()
			defer filesMu.Unlock()
			files = append(files, p)
			return nil
		},
		OpenFolder: func(p string) error { folders = append(folders, p); return nil },
	})
	t.Cleanup(func() { w.Stop(); w.Win.Close() })
	w.Tick()
	done := w.Jobs()[3]
	b.update(done.ID, func(d *Detail) { d.Source = "https://go.example/go1.26.linux-amd64.tar.gz" })
	w.poll.reloadSoon()
	w.Tick()
	w.Select(done.ID)
	typeKey(w, fyne.KeyReturn)
	shortcutKey(w, ctrl(fyne.KeyE))
	shortcutKey(w, ctrlShift(fyne.KeyC))
	want := "/home/user/Downloads/go1.26.linux-amd64.tar.gz"
	for end := time.Now().Add(5 * time.Second); len(opened()) == 0 && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
	}
	if !slices.Equal(opened(), []string{want}) {
		t.Errorf("opened files %q, want %q", opened(), want)
	}
	if !slices.Equal(folders, []string{"/home/user/Downloads"}) {
		t.Errorf("opened folders %q", folders)
	}
	if got := a.Clipboard().Content(); got != "https://go.example/go1.26.linux-amd64.tar.gz" {
		t.Errorf("clipboard %q", got)
	}
	// A running job's file is not opened.
	w.Select(w.Jobs()[0].ID)
	w.OpenSelectedFile()
	w.Settle() // waits for the window's goroutines, an open among them
	if len(opened()) != 1 {
		t.Errorf("opened a file still downloading: %q", opened())
	}
}

// TestMenu checks the main menu has the actions and follows the
// selection.
func TestMenu(t *testing.T) {
	b := newMemBackend()
	running := sampleQueue(b)
	w, _ := newTestWindow(t, b)
	var labels []string
	for _, m := range w.Menu.Items {
		labels = append(labels, m.Label)
	}
	if !slices.Equal(labels, []string{"File", "Downloads", "Speed", "Help"}) {
		t.Fatalf("menus %q", labels)
	}
	if !w.menu.pause.Disabled || !w.menu.copyURL.Disabled {
		t.Error("selection items enabled with nothing selected")
	}
	w.Select(running)
	if w.menu.pause.Disabled || !w.menu.resume.Disabled || !w.menu.openFile.Disabled {
		t.Error("the menu does not follow a running job")
	}
	w.menu.pause.Action()
	w.Settle()
	if !slices.Equal(b.Calls(), []string{fmt.Sprintf("pause %d", running)}) {
		t.Errorf("menu Pause: calls %q", b.Calls())
	}
}

// TestScheduleAndSlow switches the alternative limit with the button and
// Ctrl+L, pauses all for an hour and sets a time window.
func TestScheduleAndSlow(t *testing.T) {
	b := newMemBackend()
	b.settings.AltSpeedLimit = 100 << 10
	w, _ := newTestWindow(t, b)
	w.loadSchedule()
	test.Tap(w.Toolbar.AltSpeed)
	w.Settle()
	if s, _ := b.Schedule(); !s.AltSpeed || w.Toolbar.AltSpeed.Importance != widget.WarningImportance {
		t.Fatalf("Slow did not switch the alternative limit on: %+v", s)
	}
	if !strings.Contains(w.Status.Text, "slow: 100 KiB/s") {
		t.Errorf("status %q does not say the slower limit is on", w.Status.Text)
	}
	shortcutKey(w, ctrl(fyne.KeyL))
	w.Settle()
	if s, _ := b.Schedule(); s.AltSpeed {
		t.Error("Ctrl+L did not switch it off")
	}
	now = func() time.Time { return time.Date(2026, 11, 23, 15, 0, 0, 0, time.Local) }
	t.Cleanup(func() { now = time.Now })
	w.PauseAllFor(time.Hour)
	w.Settle()
	if s, _ := b.Schedule(); !s.PausedUntil.Equal(now().Add(time.Hour)) {
		t.Errorf("paused until %v", s.PausedUntil)
	}
	if !strings.Contains(w.Status.Text, "all paused until 16:00") {
		t.Errorf("status %q", w.Status.Text)
	}
	w.ResumeSchedule()
	w.Settle()
	if s, _ := b.Schedule(); !s.PausedUntil.IsZero() {
		t.Error("End the pause kept it")
	}

	f := NewScheduleForm(Schedule{})
	f.Limited.SetChecked(true)
	f.From.SetText("23:00")
	f.To.SetText("6:30")
	f.Days.SetSelected([]string{"Sat", "Sun"})
	got, err := f.Windows()
	if err != nil || len(got) != 1 || got[0].Start != 23*60 || got[0].End != 6*60+30 || !slices.Equal(got[0].Days, []time.Weekday{time.Saturday, time.Sunday}) {
		t.Errorf("schedule form read %+v, %v", got, err)
	}
	f.To.SetText("25:00")
	if _, err := f.Windows(); err == nil {
		t.Error("25:00 accepted")
	}
}

// TestStateLooks checks that every state has its own icon, colour and
// words, and that the fields the bridge sets show.
func TestStateLooks(t *testing.T) {
	test.NewTempApp(t)
	now = func() time.Time { return time.Date(2026, 11, 23, 15, 0, 0, 0, time.Local) }
	t.Cleanup(func() { now = time.Now })
	jobs := []Job{
		{State: Queued},
		{State: FetchingMetadata},
		{State: Running},
		{State: Waiting, Err: "connection reset", NextTry: now().Add(42 * time.Second)},
		{State: Paused},
		{State: Paused, Err: "the destination folder is read-only"},
		{State: Verifying},
		{State: Repairing},
		{State: Seeding, Ratio: 1.25, Peers: 12, Seeds: 3, Upload: 1 << 20},
		{State: Done, Outcome: "verified (sha-256)"},
		{State: Done, Unverified: true, Outcome: "not verified"},
		{State: Done, Signer: "Debian CD signing key <debian-cd@lists.debian.org>"},
		{State: Done, Signer: "0xDEADBEEF", SignerUnknown: true},
		{State: Synced, Outcome: "12 files match the source"},
		{State: Failed, Err: "404 from every mirror"},
		{State: Failed, Mismatch: true},
	}
	wantText := []string{
		"Queued", "Fetching metadata", "Downloading",
		"Waiting: connection reset · next try in 42 s",
		"Paused", "Paused: the destination folder is read-only", "Verifying", "Repairing",
		"Seeding · ratio 1.25", "Done · verified (sha-256)", "Done · not verified",
		"Done · signed by Debian CD signing key <debian-cd@lists.debian.org>",
		"Done · signed by an unknown key: 0xDEADBEEF", "Synced: 12 files match the source",
		"Failed: 404 from every mirror", "Checksum mismatch",
	}
	seen := map[string]int{}
	for i, j := range jobs {
		l := lookOf(j)
		if l.Text != wantText[i] {
			t.Errorf("job %d: %q, want %q", i, l.Text, wantText[i])
		}
		if l.Icon == nil || l.Color == "" {
			t.Errorf("job %d has no icon or colour", i)
		}
		seen[l.Icon.Name()+"/"+string(l.Color)]++
	}
	// Every look has its own icon and colour pair (variants of a state,
	// such as paused with a reason, differ at least in colour).
	if len(seen) != len(jobs) {
		t.Errorf("%d distinct icon and colour pairs for %d looks: %v", len(seen), len(jobs), seen)
	}
	if c := lookOf(Job{State: Done, Unverified: true}).Color; c != theme.ColorNameWarning {
		t.Errorf("a file nothing verified is drawn in %s", c)
	}
	if got := NextTryText(now().Add(3 * time.Hour)); got != "next try at 18:00" {
		t.Errorf("a far retry: %q", got)
	}
	for _, s := range States {
		if s.String() == "Unknown" {
			t.Errorf("state %d has no name", s)
		}
	}
	// A seeding row shows the upload rate where a download shows speed.
	r := newJobRow().(*jobRow)
	r.show(jobs[8], false)
	if r.speed.Text != "↑1.0 MiB/s" {
		t.Errorf("seeding row speed %q", r.speed.Text)
	}
}

// TestDetailsShowTrustAndPeers shows a torrent's peers and ratio and a
// document's signer, publisher and licence in the details pane.
func TestDetailsShowTrustAndPeers(t *testing.T) {
	test.NewTempApp(t)
	d := NewDetails()
	d.Tabs.Select(d.InfoTab)
	d.Show(Detail{
		Job: Job{ID: 1, Name: "debian.iso", State: Seeding, Size: 100, Done: 100, Peers: 12, Seeds: 3, Ratio: 0.84,
			Signer: "Debian CD signing key", Outcome: "verified (sha-256)"},
		Publisher: "Debian", License: "GPL-3.0",
		Files: []FileDetail{{Name: "debian.iso", Size: 100}},
	})
	text := map[string]string{}
	for i := 0; i+1 < len(d.Info.Objects); i += 2 {
		text[d.Info.Objects[i].(*widget.Label).Text] = d.Info.Objects[i+1].(*widget.Label).Text
	}
	for k, want := range map[string]string{
		"Signed by": "Debian CD signing key",
		"Publisher": "Debian",
		"Licence":   "GPL-3.0",
		"Peers":     "peers: 12, seeds: 3 · ratio 0.84",
		"Outcome":   "verified (sha-256)",
	} {
		if text[k] != want {
			t.Errorf("%s: %q, want %q", k, text[k], want)
		}
	}
	if line := d.State.String(); !strings.Contains(line, "peers: 12, seeds: 3") {
		t.Errorf("state line %q lacks the peers", line)
	}
}

// TestDragMovesJobs drags a row two rows down and another, in a
// selection of two, one row up.
func TestDragMovesJobs(t *testing.T) {
	b := newMemBackend()
	sampleQueue(b)
	w, _ := newTestWindow(t, b)
	orig := slices.Clone(w.Jobs())
	order := func() []JobID {
		var ids []JobID
		for _, j := range w.Jobs() {
			ids = append(ids, j.ID)
		}
		return ids
	}
	drag := func(j Job, dy float32) {
		r := w.List.CreateItem().(*jobRow)
		r.onDrop = w.dropRow
		r.Resize(fyne.NewSize(800, 36))
		r.show(j, false)
		r.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DY: dy / 2}})
		r.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DY: dy / 2}})
		r.DragEnd()
		w.Settle()
	}
	row := float32(36) + theme.Padding()
	drag(orig[0], 2*row)
	if want := []JobID{orig[1].ID, orig[2].ID, orig[0].ID, orig[3].ID, orig[4].ID}; !slices.Equal(order(), want) {
		t.Fatalf("after dragging the first job two rows down: %v, want %v", order(), want)
	}
	if w.Selected() != orig[0].ID {
		t.Error("the dragged job is not selected")
	}
	w.SelectJobs(orig[3].ID, orig[4].ID)
	drag(orig[4], -row)
	if want := []JobID{orig[1].ID, orig[2].ID, orig[3].ID, orig[4].ID, orig[0].ID}; !slices.Equal(order(), want) {
		t.Errorf("after dragging a selection of two up: %v, want %v", order(), want)
	}
}

// TestRowMenu right-clicks a finished job's row and uses its menu.
func TestRowMenu(t *testing.T) {
	b := newMemBackend()
	sampleQueue(b)
	w, _ := newTestWindow(t, b)
	done := w.Jobs()[3]
	r := w.List.CreateItem().(*jobRow)
	r.show(done, false)
	test.TapSecondary(r)
	if w.Selected() != done.ID {
		t.Fatalf("a right click selected %d, want %d", w.Selected(), done.ID)
	}
	if w.Win.Canvas().Overlays().Top() == nil {
		t.Fatal("no menu")
	}
	if !w.menu.pause.Disabled || w.menu.openFile.Disabled || w.menu.copyURL.Disabled {
		t.Error("the menu of a finished job offers Pause, or not Open file and Copy source URL")
	}
	w.menu.top.Action()
	w.Settle()
	if w.Jobs()[0].ID != done.ID {
		t.Errorf("Move to the top from the row menu: calls %q", b.Calls())
	}
}

// TestCloseDialogKeys asks to quit while a download runs: Escape goes
// back to the window, Enter quits.
func TestCloseDialogKeys(t *testing.T) {
	b := newMemBackend()
	sampleQueue(b)
	w, _ := newTestWindow(t, b)
	shortcutKey(w, ctrl(fyne.KeyQ))
	if !dialogOpen(w) {
		t.Fatal("Ctrl+Q with a download running did not ask")
	}
	typeKey(w, fyne.KeyEscape)
	if dialogOpen(w) || w.ctx.Err() != nil {
		t.Fatal("Escape did not go back to the window")
	}
	shortcutKey(w, ctrl(fyne.KeyQ))
	typeKey(w, fyne.KeyReturn)
	if w.ctx.Err() == nil {
		t.Error("Enter did not quit")
	}
}
