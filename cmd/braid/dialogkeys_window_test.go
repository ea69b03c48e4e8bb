//go:build !headless

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/theme"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/queue"
	"braid/ui"
)

// TestWindowDialogKeysAfterAClick walks the dialogs of the real window
// (Xvfb, keys and clicks through the X server with xdotool): Add URL
// (Ctrl+N), Settings (Ctrl+,), Keyboard shortcuts (F1), About and
// Schedule (the menu bar), When done and Change link (a row's menu), an
// information (a link already in the queue), an error with Details (a
// broken metalink handed over), Speed limit (a row's menu) and Remove
// (Ctrl+Delete). Each is opened,
// clicked inside (an entry, a radio button, else its middle), and
// Escape must close it with the queue as it was; opened again and
// clicked, Enter must close it and apply it where it applies (the link
// added, the download folder saved, the action when done set, the limit
// set, the download removed). Fyne's test driver skips the real event
// dispatch, so this is where a widget that takes the focus and eats the
// keys shows: the Speed limit's radio group did, and When done's greyed
// out command field did for Enter.
//
// It takes one to two minutes, the longest of the tests: eleven dialogs,
// each opened twice, clicked and closed, each step waiting for the window
// to draw it. Split, each part would start its own window and queue for
// a dialog or two; it runs beside the other tests instead.
func TestWindowDialogKeysAfterAClick(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	needXwd(t)
	r := newWindowRig(t, "downloads")
	data := mirrortest.Bytes(64<<20, 23)
	m := mirrortest.New(t, data, mirrortest.Rate(192<<10)) // runs while the test does
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), "keys.bin", 1<<20, 2)
	if err != nil {
		t.Fatal(err)
	}
	f.URLs = []metalink.URL{{URL: m.URL(), Priority: 1}}
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Source: m.URL(), Dest: r.dest, Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}})
	q.Close()
	if err != nil {
		t.Fatal(err)
	}
	limit := func() int64 {
		q, err := queue.Open(r.state)
		if err != nil {
			return -1
		}
		defer q.Close()
		j, _ := q.Get(id)
		return j.Limit
	}

	broken := filepath.Join(r.tmp, "broken.meta4")
	if err := os.WriteFile(broken, []byte(`<?xml version="1.0"?><metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="a`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := r.env()
	ctx, cancel := context.WithTimeout(context.Background(), 7*time.Minute)
	defer cancel()
	var out syncBuffer
	startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	keep := func(name string) { windowShot(ctx, t, env, name) }
	shows := func(what string, want bool, s string) {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
			b, _ := os.ReadFile(r.dump)
			if strings.Contains(string(b), s) == want {
				return
			}
		}
		keep("dialogkeys-" + strings.ReplaceAll(what, " ", "-"))
		t.Fatalf("%s: the window's texts hold %q: %v, want %v\n%s", what, s, !want, want, out.String())
	}
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	shows("the download", true, "keys.bin")
	track := ui.NewTheme().Color(theme.ColorNameInputBorder, theme.VariantLight)
	var bars []bar
	for end := time.Now().Add(30 * time.Second); len(bars) == 0 && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		bars = findBars(screen(ctx, t, env), track)
	}
	if len(bars) == 0 {
		t.Fatal("no row with a progress bar on the screen")
	}
	// count is how many lines of the window's texts are line: a dialog's
	// title adds one while it is open.
	count := func(line string) int {
		b, _ := os.ReadFile(r.dump)
		n := 0
		for _, l := range strings.Split(string(b), "\n") {
			if l == line {
				n++
			}
		}
		return n
	}
	// waitCount waits until count(line) is want; a negative want -n: at
	// least n (a dialog's title may be on its button too).
	waitCount := func(what, line string, want int) {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
			if n := count(line); n == want || want < 0 && n >= -want {
				return
			}
		}
		keep("dialogkeys-" + strings.ReplaceAll(what, " ", "-"))
		b, _ := os.ReadFile(r.dump)
		t.Fatalf("%s: %d lines %q in the window's texts, want %d\n%s\n%s", what, count(line), line, want, b, out.String())
	}
	// rowMenu opens the running download's menu with a right click on its
	// row and takes its nth item with the keyboard.
	rowMenu := func(n int) {
		t.Helper()
		xdo("windowfocus", "--sync", wid)
		xdo("mousemove", "--sync", strconv.Itoa(max(bars[0].x0-200, 40)), strconv.Itoa(bars[0].y))
		xdo("click", "3")
		time.Sleep(400 * time.Millisecond)
		for range n {
			xdo("key", "Down")
		}
		xdo("key", "Return")
	}
	// barMenu opens the menu bar's menu right of File by right (Fyne
	// draws the bar in the window; the keys move along it) and takes its
	// nth item.
	barMenu := func(right, n int) {
		t.Helper()
		xdo("windowfocus", "--sync", wid)
		xdo("mousemove", "--window", wid, "--sync", "20", "12")
		xdo("click", "1")
		time.Sleep(400 * time.Millisecond)
		for range right {
			xdo("key", "Right")
		}
		for range n {
			xdo("key", "Down")
		}
		xdo("key", "Return")
	}
	// clickInside clicks the dialog's first entry (the one band of the
	// entries' own colour: the search box behind the dialog is shaded),
	// else its middle, below the title.
	clickInside := func(name string) {
		t.Helper()
		time.Sleep(300 * time.Millisecond)
		input := ui.NewTheme().Color(theme.ColorNameInputBackground, theme.VariantLight)
		img := screen(ctx, t, env)
		var entry image.Rectangle
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			if x0, x1 := longestRun(img, y, input); x1-x0 >= 200 {
				if entry.Empty() {
					entry = image.Rect(x0, y, x1, y+1)
				}
				if y == entry.Max.Y {
					entry.Max.Y = y + 1
				}
			}
		}
		x, y := img.Bounds().Dx()/2, img.Bounds().Dy()/2
		if !entry.Empty() {
			x, y = entry.Min.X+40, entry.Min.Y+entry.Dy()/2
		}
		xdo("mousemove", "--sync", strconv.Itoa(x), strconv.Itoa(y))
		xdo("click", "1")
		time.Sleep(300 * time.Millisecond)
		keep("dialogkeys-" + strings.ReplaceAll(name, " ", "-") + "-clicked")
	}
	// state is what a dialog may change: the jobs, their limits, the
	// settings.
	state := func() string {
		q, err := queue.Open(r.state)
		if err != nil {
			return err.Error()
		}
		defer q.Close()
		js, err := q.List()
		if err != nil {
			return err.Error()
		}
		s, err := q.Settings()
		js2, _ := json.Marshal(s)
		var b strings.Builder
		fmt.Fprintf(&b, "settings %s %v\n", js2, err)
		for _, j := range js {
			fmt.Fprintf(&b, "job %d limit %d\n", j.ID, j.Limit)
		}
		return b.String()
	}
	jobs := func() int {
		q, err := queue.Open(r.state)
		if err != nil {
			return -1
		}
		defer q.Close()
		js, _ := q.List()
		return len(js)
	}
	downloadDir := func() string {
		q, err := queue.Open(r.state)
		if err != nil {
			return err.Error()
		}
		defer q.Close()
		s, err := q.Settings()
		if err != nil {
			return err.Error()
		}
		return s.DownloadDir
	}
	type dialogWalk struct {
		name, title string // title: the dialog's title, a line of its own
		open        func()
		applied     func() // after Enter; nil: Enter closes and changes nothing
		// Where to click before Escape and before Enter, x, y pairs in
		// the screen's pixels (FYNE_SCALE=1, the dialog centred in the
		// window); none: clickInside.
		escAt, enterAt []int
	}
	walks := []dialogWalk{
		{"Add URL", "Add URL", func() { xdo("key", "ctrl+n") }, func() {
			// The link is the download's own: Enter added it, and the
			// window says it is in the queue already.
			waitCount("Enter added the link", "Already in the queue", 1)
			xdo("key", "Escape")
			waitCount("Escape closed the note", "Already in the queue", 0)
		}, nil, nil},
		{"Settings", "Settings", func() { xdo("key", "ctrl+comma") }, func() {
			// "_keys" typed at the end of the download folder.
			for end := time.Now().Add(20 * time.Second); !strings.HasSuffix(downloadDir(), "Downloads_keys"); time.Sleep(200 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatalf("the download folder is %q after Enter in Settings, want it to end in Downloads_keys", downloadDir())
				}
			}
		}, nil, nil},
		{"Shortcuts", "Keyboard shortcuts", func() { xdo("key", "F1") }, nil, nil, nil},
		{"About", "About Braid", func() { barMenu(3, 2) }, nil, nil, nil},
		{"Schedule", "Schedule", func() { barMenu(2, 4) }, nil, nil, nil},
		// Escape after a click on "Show it in its folder", Enter after one
		// on "Open the file" and one on the greyed out command field
		// (which took the focus and ignored Enter).
		{"When done", "When keys.bin is done", func() { rowMenu(10) }, func() {
			shows("Enter set what is done", true, "When done: open the file")
		}, []int{300, 328}, []int{300, 289, 550, 406}},
		{"Change link", "Change link", func() { rowMenu(9) }, nil, nil, nil},
		// An information: the download's own link added once more.
		{"Already in the queue", "Already in the queue", func() {
			base := count("Add URL")
			xdo("windowfocus", "--sync", wid)
			xdo("key", "ctrl+n")
			waitCount("Add URL open for a link in the queue", "Add URL", -(base + 1))
			time.Sleep(300 * time.Millisecond)
			xdo("type", "--delay", "20", m.URL())
			xdo("key", "Return")
		}, nil, nil, nil},
		// An error with its Details: a broken metalink handed to the
		// running window by a second start, as a double-click does. The
		// click opens the Details.
		{"Error", "Error", func() {
			cmd := exec.CommandContext(ctx, r.bin, broken)
			cmd.Env = env
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("handing %s to the window: %v\n%s", broken, err, b)
			}
		}, nil, []int{356, 386}, []int{356, 386}},
	}
	typed := map[string]string{"Add URL": m.URL(), "Settings": "_keys", "Change link": m.URL()}
	// What the click before Escape shows: the error's Details open.
	clicked := map[string]string{"Error": "metalink: line 1: the document ends inside"}
	click := func(name string, at []int) {
		t.Helper()
		if at == nil {
			clickInside(name)
			return
		}
		time.Sleep(300 * time.Millisecond)
		for i := 0; i+1 < len(at); i += 2 {
			xdo("mousemove", "--sync", strconv.Itoa(at[i]), strconv.Itoa(at[i+1]))
			xdo("click", "1")
			time.Sleep(300 * time.Millisecond)
		}
		keep("dialogkeys-" + strings.ReplaceAll(name, " ", "-") + "-clicked")
	}
	for _, d := range walks {
		base := count(d.title)
		before := state()
		d.open()
		waitCount(d.name+" open", d.title, -(base + 1))
		click(d.name, d.escAt)
		if s := clicked[d.name]; s != "" {
			shows("the click in "+d.name, true, s)
		}
		xdo("key", "Escape")
		waitCount("Escape in "+d.name+" after a click", d.title, base)
		if now := state(); now != before {
			t.Errorf("Escape in %s changed the queue:\n%s\nwas\n%s", d.name, now, before)
		}
		d.open()
		waitCount(d.name+" open again", d.title, -(base + 1))
		click(d.name+" again", d.enterAt)
		if s := typed[d.name]; s != "" {
			xdo("key", "End")
			xdo("type", "--delay", "20", s)
		}
		xdo("key", "Return")
		waitCount("Enter in "+d.name+" after a click", d.title, base)
		if d.applied != nil {
			d.applied()
		} else if now := state(); now != before {
			t.Errorf("Enter in %s changed the queue:\n%s\nwas\n%s", d.name, now, before)
		}
	}

	const about = "may download:"
	openDialog := func() (entry image.Rectangle) {
		t.Helper()
		rowMenu(4) // Pause, Resume, Stop seeding, Speed limit…
		shows("the dialog open", true, about)
		time.Sleep(300 * time.Millisecond)
		// The rate field: the one band of the entries' own colour (the
		// search box behind the dialog is shaded).
		input := ui.NewTheme().Color(theme.ColorNameInputBackground, theme.VariantLight)
		img := screen(ctx, t, env)
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			if x0, x1 := longestRun(img, y, input); x1-x0 >= 250 {
				if entry.Empty() {
					entry = image.Rect(x0, y, x1, y+1)
				}
				entry.Max.Y = y + 1
			}
		}
		if entry.Empty() {
			keep("dialogkeys-no-entry")
			t.Fatal("no rate field in the dialog on the screen")
		}
		return entry
	}

	// A click on the first radio button ("No limit of its own", two
	// lines above the field), then Escape.
	entry := openDialog()
	rowH := entry.Dy() + 4
	xdo("mousemove", "--sync", strconv.Itoa(entry.Min.X+14), strconv.Itoa(entry.Min.Y-rowH-rowH/2))
	xdo("click", "1")
	time.Sleep(300 * time.Millisecond)
	keep("dialogkeys-radio-clicked")
	xdo("key", "Escape")
	shows("Escape after a click on a radio button", false, about)
	if n := limit(); n != 0 {
		t.Errorf("Escape left the job a limit of %d", n)
	}

	// Again: a rate typed, "At most" (just above the field) clicked,
	// Enter.
	entry = openDialog()
	xdo("mousemove", "--sync", strconv.Itoa(entry.Min.X+40), strconv.Itoa(entry.Min.Y+entry.Dy()/2))
	xdo("click", "1")
	xdo("type", "--delay", "40", "200K")
	xdo("mousemove", "--sync", strconv.Itoa(entry.Min.X+14), strconv.Itoa(entry.Min.Y-rowH/2-2))
	xdo("click", "1")
	time.Sleep(300 * time.Millisecond)
	keep("dialogkeys-at-most-clicked")
	xdo("key", "Return")
	shows("Enter after a click on a radio button", false, about)
	for end := time.Now().Add(20 * time.Second); limit() != 200<<10; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(end) {
			keep("dialogkeys-limit-not-set")
			t.Fatalf("the job's limit is %d after Enter, want %d\n%s", limit(), 200<<10, out.String())
		}
	}

	// Remove last: Escape keeps the download, Enter removes it.
	removeOpen := func() {
		xdo("windowfocus", "--sync", wid)
		xdo("mousemove", "--sync", strconv.Itoa(max(bars[0].x0-200, 40)), strconv.Itoa(bars[0].y))
		xdo("click", "1")
		time.Sleep(300 * time.Millisecond)
		xdo("key", "ctrl+Delete")
	}
	base := count("Remove download")
	removeOpen()
	waitCount("Remove open", "Remove download", base+1)
	clickInside("Remove")
	xdo("key", "Escape")
	waitCount("Escape in Remove after a click", "Remove download", base)
	if n := jobs(); n != 1 {
		t.Errorf("Escape in Remove left %d jobs, want 1", n)
	}
	removeOpen()
	waitCount("Remove open again", "Remove download", base+1)
	clickInside("Remove")
	xdo("key", "Return")
	waitCount("Enter in Remove after a click", "Remove download", base)
	for end := time.Now().Add(20 * time.Second); jobs() != 0; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(end) {
			keep("dialogkeys-not-removed")
			t.Fatalf("%d jobs after Enter in Remove, want 0\n%s", jobs(), out.String())
		}
	}
}
