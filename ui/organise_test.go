package ui

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// organisedBackend is the in-memory backend with categories and actions
// when done, as the bridge has them.
type organisedBackend struct {
	*memBackend
	omu     sync.Mutex
	cats    []Category
	saved   [][]Category // what SetCategories got, in order
	whens   map[JobID]WhenDone
	setErrs error
}

func defaultTestCategories() []Category {
	return []Category{
		{Name: "Video", Extensions: []string{"mkv", "mp4"}, Folder: "Video"},
		{Name: "Audio", Extensions: []string{"mp3", "flac"}, Folder: "Audio"},
		{Name: "Documents", Extensions: []string{"pdf"}, Folder: "Documents"},
	}
}

func newOrganisedBackend() *organisedBackend {
	return &organisedBackend{memBackend: newMemBackend(), cats: defaultTestCategories(), whens: map[JobID]WhenDone{}}
}

func (b *organisedBackend) Categories() ([]Category, error) {
	b.omu.Lock()
	defer b.omu.Unlock()
	return slices.Clone(b.cats), nil
}

func (b *organisedBackend) SetCategories(cs []Category) error {
	b.omu.Lock()
	defer b.omu.Unlock()
	b.saved = append(b.saved, cs)
	if cs == nil {
		cs = defaultTestCategories()
	}
	b.cats = cs
	return nil
}

func (b *organisedBackend) DefaultCategories() []Category { return defaultTestCategories() }

func (b *organisedBackend) SetWhenDone(id JobID, w WhenDone) error {
	b.omu.Lock()
	defer b.omu.Unlock()
	if b.setErrs != nil {
		return b.setErrs
	}
	b.whens[id] = w
	b.update(id, func(d *Detail) { d.WhenDone = w })
	return nil
}

var (
	_ CategoryKeeper = (*organisedBackend)(nil)
	_ WhenDoneSetter = (*organisedBackend)(nil)
)

// TestSidePanel: the panel counts each state entry and each category,
// a choice narrows the list together with the search box, Up and Down
// choose with the keyboard skipping the heading, and a click on the
// heading chooses nothing.
func TestSidePanel(t *testing.T) {
	b := newOrganisedBackend()
	b.put(Detail{Job: Job{Name: "film.mkv", State: Running, Category: "Video"}})
	b.put(Detail{Job: Job{Name: "song.mp3", State: Done, Category: "Audio"}})
	b.put(Detail{Job: Job{Name: "show.mkv", State: Seeding, Category: "Video"}})
	b.put(Detail{Job: Job{Name: "paper.pdf", State: Failed, Category: "Documents"}})
	b.put(Detail{Job: Job{Name: "data.bin", State: Waiting}})
	b.put(Detail{Job: Job{Name: "more.bin", State: Verifying}})
	w, _ := newTestWindow(t, b)
	w.poll.reload.Store(true)
	w.Tick()
	for label, want := range map[string]int{"All": 6, "Downloading": 2, "Waiting": 1, "Queued": 0, "Paused": 0,
		"Done": 2, "Failed": 1, "Video": 2, "Audio": 1, "Documents": 1} {
		if n, ok := w.Side.Count(label); !ok || n != want {
			t.Errorf("%s counts %d (%v), want %d", label, n, ok, want)
		}
	}
	if _, ok := w.Side.Count("Categories"); ok {
		t.Error("the heading has a count")
	}
	names := func() []string {
		var out []string
		for i := range w.List.Length() {
			j, _ := w.RowJob(i)
			out = append(out, j.Name)
		}
		return out
	}
	w.Side.Choose("Video")
	if got := names(); !slices.Equal(got, []string{"film.mkv", "show.mkv"}) {
		t.Errorf("Video shows %q", got)
	}
	test.Type(w.Search, "show")
	if got := names(); !slices.Equal(got, []string{"show.mkv"}) {
		t.Errorf("Video and the search show shows %q", got)
	}
	w.Search.SetText("")
	w.Select(3)
	if line := organiseText(w.Details.Organise); line != "Video" {
		t.Errorf("the details of show.mkv say %q, want its category", line)
	}
	w.Side.Choose("Done")
	if got := names(); !slices.Equal(got, []string{"song.mp3", "show.mkv"}) {
		t.Errorf("Done (seeding with it) shows %q", got)
	}

	// The keyboard: Down from Failed passes the heading to Video.
	w.Side.Choose("Failed")
	w.Win.Canvas().Focus(w.Side.List)
	w.Side.List.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	if w.Side.chosen != (sideKey{group: groupCategory, category: "Video"}) {
		t.Errorf("Down from Failed chose %v", w.Side.chosen)
	}
	w.Side.List.TypedKey(&fyne.KeyEvent{Name: fyne.KeyUp})
	if w.Side.chosen != (sideKey{group: groupFailed}) || !slices.Equal(names(), []string{"paper.pdf"}) {
		t.Errorf("Up from Video chose %v showing %q", w.Side.chosen, names())
	}
	// Space chooses the entry the keyboard is on: the one chosen.
	w.Side.List.TypedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
	if w.Side.chosen != (sideKey{group: groupFailed}) {
		t.Errorf("Space after Up chose %v", w.Side.chosen)
	}
	heading := slices.IndexFunc(w.Side.entries, func(e sideEntry) bool { return e.key.group == groupHeading })
	w.Side.List.Select(heading)
	if w.Side.chosen != (sideKey{group: groupFailed}) {
		t.Errorf("a click on the heading chose %v", w.Side.chosen)
	}
}

// TestCategoriesSettings edits the categories in Settings: add one,
// change one, remove one, and reset; Save hands the backend the list.
func TestCategoriesSettings(t *testing.T) {
	b := newOrganisedBackend()
	w, _ := newTestWindow(t, b)
	w.Locked(w.ShowSettings)
	s := w.SettingsForm.Categories
	if s == nil || len(s.Cats) != 3 {
		t.Fatalf("the categories section: %+v", s)
	}
	r := newCategoryRow().(*categoryRow)
	r.show(s.Cats[0], "/home/user/Downloads")
	if r.name.Text != "Video" || r.exts.Text != "mkv mp4" || r.folder.Text != "/home/user/Downloads/Video" {
		t.Errorf("a row shows %q, %q, %q", r.name.Text, r.exts.Text, r.folder.Text)
	}
	// Add: a name, extensions typed loosely, a folder of its own.
	test.Tap(s.Add)
	e := s.editing
	e.Name.SetText("Books")
	e.Extensions.SetText(".EPUB, mobi *.azw3")
	e.Folder.SetText("/srv/books")
	e.dialog.Submit()
	if got := s.Cats[len(s.Cats)-1]; got.Name != "Books" || !slices.Equal(got.Extensions, []string{"epub", "mobi", "azw3"}) || got.Folder != "/srv/books" {
		t.Errorf("added %+v", got)
	}
	// A second category of the same name is refused; the list stays.
	test.Tap(s.Add)
	s.editing.Name.SetText("books")
	s.editing.dialog.Submit()
	if len(s.Cats) != 4 {
		t.Errorf("a second Books was added: %d categories", len(s.Cats))
	}
	w.Locked(func() { overlayButton(t, w, "OK").OnTapped() }) // the error's
	// Edit: the first one's extensions.
	s.List.Select(0)
	test.Tap(s.Edit)
	if s.editing.Name.Text != "Video" {
		t.Errorf("editing shows %q", s.editing.Name.Text)
	}
	s.editing.Extensions.SetText("mkv webm")
	s.editing.dialog.Submit()
	if got := s.Cats[0]; got.Name != "Video" || !slices.Equal(got.Extensions, []string{"mkv", "webm"}) {
		t.Errorf("edited %+v", got)
	}
	// Remove the second (Audio).
	s.List.Select(1)
	test.Tap(s.Remove)
	if len(s.Cats) != 3 || s.Cats[1].Name != "Documents" {
		t.Errorf("after Remove: %+v", s.Cats)
	}
	w.Locked(func() { overlayButton(t, w, "Save").OnTapped() })
	w.Settle()
	b.omu.Lock()
	saved := slices.Clone(b.saved)
	b.omu.Unlock()
	if len(saved) != 1 || len(saved[0]) != 3 || saved[0][2].Name != "Books" {
		t.Fatalf("saved %+v", saved)
	}
	if _, ok := w.Side.Count("Books"); !ok {
		t.Error("the side panel does not list the new category")
	}

	// Reset to defaults: the backend is told nil.
	w.Locked(w.ShowSettings)
	s = w.SettingsForm.Categories
	test.Tap(s.Defaults)
	if len(s.Cats) != 3 || s.Cats[1].Name != "Audio" {
		t.Errorf("after Reset: %+v", s.Cats)
	}
	w.Locked(func() { overlayButton(t, w, "Save").OnTapped() })
	w.Settle()
	b.omu.Lock()
	defer b.omu.Unlock()
	if len(b.saved) != 2 || b.saved[1] != nil {
		t.Errorf("reset saved %+v", b.saved[1:])
	}
}

// TestWhenDoneDialog chooses a command for two selected jobs in the "When
// done" dialog; the details line then says it, and a note of what went
// wrong shows as a sentence with the detail behind Details.
func TestWhenDoneDialog(t *testing.T) {
	b := newOrganisedBackend()
	a := b.put(Detail{Job: Job{Name: "a.iso", State: Running}})
	c := b.put(Detail{Job: Job{Name: "c.iso", State: Queued}})
	w, _ := newTestWindow(t, b)
	w.Locked(func() { w.SelectJobs(a, c) })
	if w.menu.whenDone.Disabled {
		t.Fatal("When done… is disabled with two jobs selected")
	}
	w.Locked(w.AskWhenDone)
	f := w.whenDoneForm
	if f.Action.Selected != WhenDoneNothing.String() || !f.Command.Disabled() {
		t.Errorf("a new job's dialog: %q chosen, command enabled %v", f.Action.Selected, !f.Command.Disabled())
	}
	f.Action.SetSelected(WhenDoneCommand.String())
	if f.Command.Disabled() {
		t.Error("the command entry stays disabled for Run a command")
	}
	f.Command.SetText(`notify-send "Braid"`)
	w.Locked(f.dialog.Confirm)
	w.Settle()
	want := WhenDone{Action: WhenDoneCommand, Command: `notify-send "Braid"`}
	b.omu.Lock()
	got := map[JobID]WhenDone{a: b.whens[a], c: b.whens[c]}
	b.omu.Unlock()
	if got[a] != want || got[c] != want {
		t.Errorf("kept %+v", got)
	}
	w.Locked(func() { w.Select(a) })
	w.Settle()
	if line := organiseText(w.Details.Organise); line != "When done: run a command with the file" || w.Details.Organise.Hidden {
		t.Errorf("the details line %q does not say the action", line)
	}

	b.update(a, func(d *Detail) {
		d.State = Done
		d.WhenDoneNote = WhenDoneNote{Kind: WhenDoneCommand, Detail: "notify-send: exit status 1: no bus"}
	})
	w.poll.reload.Store(true)
	w.Settle()
	if line := organiseText(w.Details.Organise); !strings.Contains(line, "The command to run when done failed.") || strings.Contains(line, "exit status") {
		t.Errorf("the details line %q", line)
	}
	w.Locked(func() { w.Select(a) })
	w.Locked(w.AskWhenDone)
	f = w.whenDoneForm
	if f.Problem == nil || f.Detail.Text != "notify-send: exit status 1: no bus" || f.Command.Text != `notify-send "Braid"` {
		t.Errorf("the dialog of a job whose command failed: %+v", f)
	}
	w.Locked(f.dialog.Hide)
}

// TestCategoryEditorKeys: in the category editor, opened over Settings,
// Escape and Enter with nothing in focus answer the editor, not the
// Settings under it; the folder dialog of its Browse button and the
// error of a name taken answer Escape themselves, each leaving the
// editor open.
func TestCategoryEditorKeys(t *testing.T) {
	t.Setenv("BRAID_FILE_DIALOG", "fyne")
	b := newOrganisedBackend()
	w, _ := newTestWindow(t, b)
	w.Locked(w.ShowSettings)
	s := w.SettingsForm.Categories
	overlays := func() int {
		w.doMu.Lock()
		defer w.doMu.Unlock()
		return len(w.Win.Canvas().Overlays().List())
	}
	settingsOnly := overlays()

	w.Locked(func() { test.Tap(s.Add) })
	if overlays() != settingsOnly+1 {
		t.Fatalf("Add… opened %d dialogs over Settings, want 1", overlays()-settingsOnly)
	}
	w.Locked(func() { w.Win.Canvas().Unfocus() })
	typeKey(w, fyne.KeyEscape)
	if overlays() != settingsOnly {
		t.Fatalf("Escape in the category editor left %d dialogs, want Settings alone (%d)", overlays(), settingsOnly)
	}
	if w.SettingsForm == nil || !dialogOpen(w) {
		t.Fatal("Escape in the category editor closed Settings")
	}

	// Enter with nothing in focus keeps the edited category.
	w.Locked(func() {
		s.List.Select(0)
		test.Tap(s.Edit)
		s.editing.Extensions.SetText("mkv webm")
		w.Win.Canvas().Unfocus()
	})
	typeKey(w, fyne.KeyReturn)
	if overlays() != settingsOnly {
		t.Fatalf("Enter in the category editor left %d dialogs, want Settings alone (%d)", overlays(), settingsOnly)
	}
	if got := s.Cats[0].Extensions; !slices.Equal(got, []string{"mkv", "webm"}) {
		t.Errorf("Enter in the editor kept %v, want mkv webm", got)
	}

	// Browse, then Escape: the folder dialog closes, the editor stays.
	w.Locked(func() { test.Tap(s.Add) })
	w.Locked(func() { test.Tap(s.editing.Browse) })
	if overlays() != settingsOnly+2 {
		t.Fatalf("Browse opened %d dialogs over the editor, want 1", overlays()-settingsOnly-1)
	}
	w.Locked(func() { w.Win.Canvas().Unfocus() })
	typeKey(w, fyne.KeyEscape)
	if overlays() != settingsOnly+1 {
		t.Fatalf("Escape in the folder dialog left %d dialogs over Settings, want the editor alone", overlays()-settingsOnly)
	}

	// A name taken: its error closes on Escape, the editor stays.
	w.Locked(func() {
		s.editing.Name.SetText("video")
		s.editing.dialog.Submit()
	})
	if overlays() != settingsOnly+1 {
		t.Fatalf("a name taken: %d dialogs over Settings, want its error alone (the editor closes on OK)", overlays()-settingsOnly)
	}
	typeKey(w, fyne.KeyEscape)
	if overlays() != settingsOnly {
		t.Fatalf("Escape in the error left %d dialogs over Settings", overlays()-settingsOnly)
	}
}
