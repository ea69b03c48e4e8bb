package queue

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"braid/queue/queuetest"
)

// TestCategoryOf: a job takes a category only when all its files fall in
// the same one, by extension, case and folders aside.
func TestCategoryOf(t *testing.T) {
	t.Parallel()
	cs := DefaultCategories()
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"Film.MKV"}, "Video"},
		{[]string{"show/ep1.mkv", "show/ep2.webm"}, "Video"},
		{[]string{"album/01.flac", "album/02.FLAC"}, "Audio"},
		{[]string{"gimp-2.10.tar.xz"}, "Archives"},
		{[]string{"debian-12.iso"}, "Archives"},
		{[]string{"setup.exe"}, "Programs"},
		{[]string{"braid.AppImage"}, "Programs"},
		{[]string{"manual.pdf", "notes.txt"}, "Documents"},
		{[]string{"film.mkv", "film.srt"}, ""},  // a subtitle falls in none
		{[]string{"film.mkv", "cover.pdf"}, ""}, // two categories
		{[]string{"keys.bin"}, ""},
		{[]string{".mkv"}, ""}, // a dot file, not a video
		{[]string{"mkv"}, ""},
		{nil, ""},
	} {
		c, ok := CategoryOf(cs, tc.names)
		if got := c.Name; ok != (tc.want != "") || got != tc.want {
			t.Errorf("CategoryOf(%q) = %q, %v; want %q", tc.names, got, ok, tc.want)
		}
	}
}

// TestCategoryDir: relative folders are under the download folder,
// absolute ones and ~/ are used as they are.
func TestCategoryDir(t *testing.T) {
	t.Parallel()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	// Absolute folders as the system writes them.
	dl, music := "/dl", "/srv/music/"
	if runtime.GOOS == "windows" {
		dl, music = `C:\dl`, `D:\srv\music\`
	}
	tests := []struct {
		c    Category
		want string
	}{
		{Category{Name: "Video", Folder: "Video"}, filepath.Join(dl, "Video")},
		{Category{Name: "Books"}, filepath.Join(dl, "Books")},
		{Category{Name: "Music", Folder: music}, filepath.Clean(music)},
		{Category{Name: "Films", Folder: "~/Videos"}, filepath.Join(home, "Videos")},
		{Category{Name: "Deep", Folder: "a/b"}, filepath.Join(dl, "a", "b")},
	}
	if runtime.GOOS == "windows" {
		tests = append(tests, struct {
			c    Category
			want string
		}{Category{Name: "Films", Folder: `~\Videos`}, filepath.Join(home, "Videos")})
	}
	for _, tc := range tests {
		if got := tc.c.Dir(dl); got != tc.want {
			t.Errorf("%+v.Dir = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// TestCategoriesStored: the queue starts with the defaults; changes are
// kept tidy in the settings, refused when a name is missing or twice,
// and nil resets.
func TestCategoriesStored(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	st, err := q.Settings()
	cs := st.Categories
	if err != nil || !reflect.DeepEqual(cs, DefaultCategories()) {
		t.Fatalf("fresh queue: %v, %v", cs, err)
	}
	mine := append(DefaultCategories()[:2], Category{Name: " Books ", Extensions: []string{"*.EPUB, .mobi", "epub"}, Folder: " ~/Books "})
	if err := q.UpdateSettings(func(st *Settings) { st.Categories = mine }); err != nil {
		t.Fatal(err)
	}
	st, err = q.Settings()
	cs = st.Categories
	if err != nil || len(cs) != 3 {
		t.Fatalf("stored: %v, %v", cs, err)
	}
	if want := (Category{Name: "Books", Extensions: []string{"epub", "mobi"}, Folder: "~/Books"}); !reflect.DeepEqual(cs[2], want) {
		t.Errorf("stored %+v, want %+v", cs[2], want)
	}
	if err := q.UpdateSettings(func(st *Settings) { st.Categories = []Category{{Name: "A"}, {Name: "a"}} }); err == nil {
		t.Error("two categories named a were stored")
	}
	if err := q.UpdateSettings(func(st *Settings) { st.Categories = []Category{{Name: " ", Extensions: []string{"x"}}} }); err == nil {
		t.Error("a category without a name was stored")
	}
	if err := q.UpdateSettings(func(st *Settings) { st.Categories = nil }); err != nil {
		t.Fatal(err)
	}
	if st, _ := q.Settings(); !reflect.DeepEqual(st.Categories, DefaultCategories()) {
		t.Errorf("after reset: %v", st.Categories)
	}
}

// TestSplitCommand reads command lines as a shell quotes them and
// nothing more: no expansion of any kind.
func TestSplitCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"mpv", []string{"mpv"}},
		{"  mpv   --fs  ", []string{"mpv", "--fs"}},
		{`notify-send "Braid: done" 'it $(is) here'`, []string{"notify-send", "Braid: done", "it $(is) here"}},
		{`echo $(rm -rf ~) ; ls | cat`, []string{"echo", "$(rm", "-rf", "~)", ";", "ls", "|", "cat"}},
		{`a\ b "c\"d" "e\f" 'g\h'`, []string{"a b", `c"d`, `e\f`, `g\h`}},
		{`x "" ''`, []string{"x", "", ""}},
		{`pre"mid"'post'`, []string{"premidpost"}},
	} {
		got, err := SplitCommand(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "   ", `a "b`, `a 'b`, `a\`} {
		if got, err := SplitCommand(bad); !errors.Is(err, ErrBadCommand) {
			t.Errorf("SplitCommand(%q) = %q, %v; want ErrBadCommand", bad, got, err)
		}
	}
}

// TestWhenDoneStored: a job's action and note are kept with it, a new
// action forgets the old note, and a bad command is refused.
func TestWhenDoneStored(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	id, err := q.Add(NewJob{Source: "a.meta4", Dest: t.TempDir(), Doc: queuetest.Doc(10, 0, "a.bin")})
	if err != nil {
		t.Fatal(err)
	}
	other, err := q.Add(NewJob{Source: "b.meta4", Dest: t.TempDir(), Doc: queuetest.Doc(10, 0, "b.bin")})
	if err != nil {
		t.Fatal(err)
	}
	if j, err := q.Get(id); err != nil || j.WhenDone != (WhenDone{}) || j.WhenDoneNote != (WhenDoneNote{}) {
		t.Fatalf("new job: %+v %+v %v", j.WhenDone, j.WhenDoneNote, err)
	}
	cmd := WhenDone{Action: ActionCommand, Command: `notify-send "done"`}
	if err := q.SetJob(id, DoWhenDone(cmd)); err != nil {
		t.Fatal(err)
	}
	if err := q.SetJob(id, WhenDoneWent(WhenDoneNote{Kind: ActionCommand, Detail: "exit status 3"})); err != nil {
		t.Fatal(err)
	}
	jobs, err := q.List()
	if err != nil || len(jobs) != 2 || jobs[0].WhenDone != cmd || jobs[0].WhenDoneNote.Detail != "exit status 3" || jobs[1].WhenDone != (WhenDone{}) {
		t.Fatalf("List: %+v, %v", jobs, err)
	}
	if err := q.SetJob(id, DoWhenDone(WhenDone{Action: ActionOpen})); err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Get(id); j.WhenDone.Action != ActionOpen || j.WhenDoneNote != (WhenDoneNote{}) {
		t.Errorf("after a new action: %+v %+v", j.WhenDone, j.WhenDoneNote)
	}
	if err := q.SetJob(other, DoWhenDone(WhenDone{Action: ActionCommand, Command: `x "open`})); !errors.Is(err, ErrBadCommand) {
		t.Errorf("a command with a quote open: %v", err)
	}
	if err := q.SetJob(other, DoWhenDone(WhenDone{Action: "reboot"})); err == nil {
		t.Error("an unknown action was stored")
	}
	if err := q.SetJob(999, DoWhenDone(WhenDone{Action: ActionOpen})); !errors.Is(err, ErrNotFound) {
		t.Errorf("no such job: %v", err)
	}
	// Finish says what to do now that the job is done: the runner reads
	// the action nowhere else.
	if w, err := q.Finish(id); err != nil || w != (WhenDone{Action: ActionOpen}) {
		t.Errorf("Finish of a job to open when done: %+v, %v", w, err)
	}
	if w, err := q.Finish(other); err != nil || w != (WhenDone{}) {
		t.Errorf("Finish of a job with no action: %+v, %v", w, err)
	}
	if _, err := q.Finish(999); !errors.Is(err, ErrNotFound) {
		t.Errorf("Finish of no such job: %v", err)
	}
}
