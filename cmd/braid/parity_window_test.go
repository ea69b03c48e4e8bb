//go:build !headless

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"braid/engine/par2"
	"braid/queue"
)

// TestWindowPickerShowsParity starts the real binary on its own Xvfb
// display with a .meta4 that lists big.iso with its PAR2 parity set (an
// index and volumes of 40 and 80 recovery blocks), and manuals for German
// and English readers. The picker lists big.iso with the line "parity for
// big.iso (120 recovery blocks, 36.0 MiB)" and no parity file as a file to
// choose; a language typed into its filter (xdotool, as a keyboard types)
// changes the manuals' ticks and leaves the parity line; Enter queues
// big.iso and the German manual, no parity file; the job's details say
// "Parity: 120 recovery blocks available".
func TestWindowPickerShowsParity(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	r := newWindowRig(t, "downloads")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	r.fillQueue(t, func(q *queue.Queue) {
		if err := q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = r.dest }); err != nil {
			t.Fatal(err)
		}
	})
	file := func(name string, size int64, extra string) string {
		return fmt.Sprintf(`  <file name=%q><size>%d</size>%s<url priority="1">%s/%s</url></file>
`, name, size, extra, closed, name)
	}
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<metalink xmlns="urn:ietf:params:xml:ns:metalink">
` + file("big.iso", 700<<20, `<identity>Parity Demo</identity><version>2.0</version><hash type="sha-256">`+strings.Repeat("ab", 32)+`</hash>`) +
		file("big.iso.par2", 40<<10, "") +
		file("big.iso.vol000+40.par2", 12<<20, "") +
		file("big.iso.vol040+80.par2", 24<<20, "") +
		file("manual-de.pdf", 1<<20, "<language>de</language>") +
		file("manual-en.pdf", 1<<20, "<language>en</language>") + `</metalink>`
	meta := filepath.Join(r.tmp, "parity.meta4")
	if err := os.WriteFile(meta, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}

	env := r.env("LANG=en_US.UTF-8", "LANGUAGE=", "LC_ALL=", "LC_MESSAGES=")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	win := exec.CommandContext(ctx, r.bin, meta)
	win.Env = env
	win.Stdout, win.Stderr = &out, &out
	if err := win.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = win.Process.Kill()
		_ = win.Wait()
	})
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	ids := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))
	if len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", out.String())
	}
	wid := ids[0]
	waitText := func(what string, want ...string) string {
		t.Helper()
		return waitWindowText(ctx, t, env, r.dump, &out, 60*time.Second, "parity-", what, want...)
	}
	const line = "parity for big.iso (120 recovery blocks, 36.0 MiB)"
	texts := waitText("the picker", "Add downloads", "big.iso", line, "manual-en.pdf", "manual-de.pdf", "2 of 3 files")
	for _, name := range []string{"big.iso.par2", "big.iso.vol000+40.par2", "big.iso.vol040+80.par2"} {
		if slices.Contains(strings.Split(texts, "\n"), name) {
			t.Errorf("the picker lists %s as a file to choose:\n%s", name, texts)
		}
	}
	windowShot(ctx, t, env, "parity-picker")

	// The language filter, typed: the German manual instead of the
	// English one; the parity line stays.
	xdo("windowfocus", "--sync", wid)
	xdo("mousemove", "--window", wid, "--sync", pickerLangX, pickerLangY)
	xdo("click", "1")
	xdo("key", "ctrl+a")
	xdo("type", "--delay", "30", "de")
	waitText("the filter typed", "Left out: language en does not match de", line, "2 of 3 files")
	windowShot(ctx, t, env, "parity-picker-de")

	// Enter: big.iso and the German manual, no parity file.
	var js []queueJob
	for end := time.Now().Add(60 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		cmd := exec.CommandContext(ctx, r.bin, "queue", "--state", r.state, "list", "--json")
		cmd.Env = env
		b, err := cmd.Output()
		if err == nil && json.Unmarshal(b, &js) == nil && len(js) > 0 {
			break
		}
		if time.Now().After(end) {
			windowShot(ctx, t, env, "parity-not-queued")
			t.Fatalf("Enter queued nothing: %s %v\n%s", b, err, out.String())
		}
		xdo("windowfocus", "--sync", wid)
		xdo("key", "Return")
	}
	if len(js) != 1 || !slices.Equal(js[0].Files, []string{"big.iso", "manual-de.pdf"}) {
		t.Fatalf("queued %+v, want one job of big.iso and manual-de.pdf", js)
	}

	// The job's details: Info says the parity big.iso has (its mirror
	// refuses, so the job waits and keeps its row).
	waitText("the queue", "big.iso (+1 more)")
	xdo("windowfocus", "--sync", wid)
	xdo("mousemove", "--window", wid, "--sync", "200", "172") // the first row
	xdo("click", "1")
	time.Sleep(500 * time.Millisecond)
	xdo("mousemove", "--window", wid, "--sync", "540", "452") // the Info tab
	xdo("click", "1")
	// The dump reads every tab (ui.Window.Texts): the words are the
	// pane's whatever tab shows; the screenshot waits for the tab drawn.
	waitText("the details", "Parity", "120 recovery blocks available")
	time.Sleep(time.Second)
	windowShot(ctx, t, env, "parity-details-info")
}

// Where the picker's Languages entry is in the 1100×720 window (the
// dialog over it, as the screenshot parity-picker shows it).
const pickerLangX, pickerLangY = "300", "212"

// TestWindowRebuildsFromParity starts the real binary on its own Xvfb
// display with a .meta4 (opened as a user opens one: given to the
// window, which shows the picker) that lists rebuilt.bin, its sha-256
// and piece hashes, and its PAR2 parity set made with engine/par2. Two
// mirrors with real Range semantics serve the file with the same 3
// pieces damaged; a third server holds the parity set's answers until
// the window says "rebuilding 3 pieces from parity" and the Segments tab
// (row and tab clicked with xdotool) counts the 3 pieces in hand. Enter
// (xdotool) queues the file; the download ends verified, the row says
// "3 pieces rebuilt from parity", and the segment map draws three cells
// in the rebuilt colour (read from the screen's pixels).
// BRAID_UPDATE_SCREENSHOT=1 keeps the segment map's picture as
// docs/parity_rebuilt.png, the one the README shows.
func TestWindowRebuildsFromParity(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	needXwd(t)
	r := newWindowRig(t, "downloads")
	r.fillQueue(t, func(q *queue.Queue) {
		if err := q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = r.dest }); err != nil {
			t.Fatal(err)
		}
	})
	const pl = 16 << 10
	fx := newParityFixture(t, "rebuilt.bin", 96*pl, pl, []int{20, 57, 58}, 0, par2.CreateOptions{Percent: 5, SliceSize: 4096})
	a, b := fx.serve(t), fx.serve(t)
	meta := fx.meta4(t, r.tmp, true, a, b)
	// The parity set comes from a third server that holds its answers
	// until the test has seen the rebuild under way: the window says so
	// while it fetches the set.
	release := make(chan struct{})
	var releaseOnce sync.Once
	letGo := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(letGo)
	var setReqs atomic.Int64
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		name := strings.TrimPrefix(req.URL.Path, "/")
		data, ok := fx.set[name]
		if !ok {
			http.NotFound(w, req)
			return
		}
		setReqs.Add(1)
		select {
		case <-release:
		case <-req.Context().Done():
			return
		}
		http.ServeContent(w, req, name, time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(gate.Close)
	doc, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	setURL := regexp.MustCompile(`http://[0-9.:]+/(rebuilt\.bin\.(vol[0-9]+\+[0-9]+\.)?par2)<`)
	if doc = setURL.ReplaceAll(doc, []byte(gate.URL+"/$1<")); !bytes.Contains(doc, []byte(gate.URL+"/rebuilt.bin.par2<")) {
		t.Fatalf("the .meta4 lists no parity index:\n%s", doc)
	}
	if err := os.WriteFile(meta, doc, 0o644); err != nil {
		t.Fatal(err)
	}

	env := r.env("LANG=en_US.UTF-8", "LANGUAGE=", "LC_ALL=", "LC_MESSAGES=")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	win := exec.CommandContext(ctx, r.bin, meta)
	win.Env = env
	win.Stdout, win.Stderr = &out, &out
	if err := win.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = win.Process.Kill()
		_ = win.Wait()
	})
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	ids := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))
	if len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", out.String())
	}
	wid := ids[0]
	waitText := func(what string, want ...string) string {
		t.Helper()
		return waitWindowText(ctx, t, env, r.dump, &out, 90*time.Second, "parity-rebuild-", what, want...)
	}
	texts := waitText("the picker", "Add downloads", "rebuilt.bin", "parity for rebuilt.bin (")
	if slices.Contains(strings.Split(texts, "\n"), "rebuilt.bin.par2") {
		t.Errorf("the picker lists the parity index as a file to choose:\n%s", texts)
	}
	windowShot(ctx, t, env, "parity-rebuild-picker")

	// Enter: the file, no parity file, queued.
	var js []queueJob
	for end := time.Now().Add(60 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		cmd := exec.CommandContext(ctx, r.bin, "queue", "--state", r.state, "list", "--json")
		cmd.Env = env
		b, err := cmd.Output()
		if err == nil && json.Unmarshal(b, &js) == nil && len(js) > 0 {
			break
		}
		if time.Now().After(end) {
			windowShot(ctx, t, env, "parity-rebuild-not-queued")
			t.Fatalf("Enter queued nothing: %s %v\n%s", b, err, out.String())
		}
		xdo("windowfocus", "--sync", wid)
		xdo("key", "Return")
	}
	if len(js) != 1 || !slices.Equal(js[0].Files, []string{"rebuilt.bin"}) {
		t.Fatalf("queued %+v, want one job of rebuilt.bin", js)
	}

	// The row, then the Segments tab, clicked, while it runs.
	xdo("windowfocus", "--sync", wid)
	xdo("mousemove", "--window", wid, "--sync", "200", "172") // the first row
	xdo("click", "1")
	time.Sleep(500 * time.Millisecond)
	xdo("mousemove", "--window", wid, "--sync", segmentsTabX, segmentsTabY)
	xdo("click", "1")

	// No mirror sends the 3 pieces good: the window says they are being
	// rebuilt while the parity set is fetched.
	// The map has them in hand (in parity's colour, a tint of it), not
	// failed as pieces that wait for a mirror.
	texts = waitText("the rebuild under way", "rebuilding 3 pieces from parity", "93 of 96 pieces done · 3 being rebuilt from parity")
	if strings.Contains(texts, "failed the hash") {
		t.Errorf("while the pieces are rebuilt, the map counts them failed:\n%s", texts)
	}
	time.Sleep(time.Second)
	windowShot(ctx, t, env, "parity-rebuild-rebuilding")
	letGo()

	// The download ends verified, the 3 pieces rebuilt, and the file is
	// the original.
	const done = "verified (sha-256), 3 pieces rebuilt from parity"
	texts = waitText("the download done", done)
	// The row's State column says it (the details' line adds the size;
	// the row's cell is cut short at this width, "Done · verified
	// (sha-256), 3 piec…", by design without a tooltip).
	if !slices.Contains(strings.Split(texts, "\n"), "Done · "+done) {
		t.Errorf("no row says %q:\n%s", "Done · "+done, texts)
	}
	if got, err := os.ReadFile(filepath.Join(r.dest, "rebuilt.bin")); err != nil || !bytes.Equal(got, fx.data) {
		t.Fatalf("the file is not the original: %v", err)
	}
	if setReqs.Load() == 0 {
		t.Errorf("the parity set was never fetched, yet the window says %q", done)
	}
	waitText("the details", "Done · "+done+" · 1.5 MiB")
	windowShot(ctx, t, env, "parity-rebuild-row")

	// The Segments tab's caption counts the pieces the map colours as
	// rebuilt (PieceMap.Summary); the picture waits for the tab drawn.
	waitText("the segment map", "96 of 96 pieces done · 3 rebuilt from parity")
	// The map draws the 3 pieces in parity's colour: three cells of it
	// (the pieces 57 and 58 side by side, a seam between them), above
	// the legend's swatch.
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		cmd := exec.CommandContext(ctx, "xwd", "-root", "-silent")
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("xwd: %v", err)
		}
		img, err := decodeXWD(b)
		if err != nil {
			t.Fatal(err)
		}
		win := windowRect(xdo("getwindowgeometry", "--shell", wid))
		cells := colourCells(img, image.Rect(197, 500, 1095, 652).Add(win.Min), rebuiltLight)
		if len(cells) == 3 {
			t.Logf("the rebuilt pieces' cells: %v", cells)
			keepWindowShot(t, img, win, "parity_rebuilt.png")
			break
		}
		if time.Now().After(end) {
			windowShot(ctx, t, env, "parity-rebuild-no-cells")
			t.Fatalf("the segment map shows %d cells in the rebuilt colour %v, want 3: %v", len(cells), rebuiltLight, cells)
		}
	}
	windowShot(ctx, t, env, "parity-rebuild-segments")

	// The Mirrors tab: what each mirror sent (both the damaged pieces; the tab where TestWindowCutTextTooltip
	// finds it).
	xdo("mousemove", "--window", wid, "--sync", mirrorsTabX, segmentsTabY)
	xdo("click", "1")
	// Both sent the 3 pieces bad: a mirror still used says why, not
	// just "Idle" beside its strikes.
	const why = "every mirror sent them so (the damage is in the published copies)"
	waitText("the mirrors tab", why)
	time.Sleep(time.Second)
	windowShot(ctx, t, env, "parity-rebuild-mirrors")
	// (Its tooltip, which says the cut words whole, is
	// TestWindowCutTextTooltip's: resting on this cell under load missed
	// it in CI.)
}

// Where the details' Segments tab is in the 1100×720 window, a job
// selected (as the screenshot parity-rebuild-segments shows it).
const segmentsTabX, segmentsTabY = "425", "452"

// windowRect is the window's place and size on the screen, from
// xdotool's getwindowgeometry --shell.
func windowRect(geometry string) image.Rectangle {
	n := func(k string) int {
		v, _ := strconv.Atoi(shellVar(geometry, k))
		return v
	}
	return image.Rect(0, 0, n("WIDTH"), n("HEIGHT")).Add(image.Pt(n("X"), n("Y")))
}

// keepWindowShot writes the window's part (win) of a picture of the
// screen to docs/name, the picture the README shows, when
// BRAID_UPDATE_SCREENSHOT=1.
func keepWindowShot(t *testing.T, screen image.Image, win image.Rectangle, name string) {
	t.Helper()
	if os.Getenv("BRAID_UPDATE_SCREENSHOT") != "1" {
		return
	}
	crop := image.NewRGBA(image.Rect(0, 0, win.Dx(), win.Dy()))
	draw.Draw(crop, crop.Bounds(), screen, win.Min, draw.Src)
	var buf bytes.Buffer
	if err := png.Encode(&buf, crop); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join("..", "..", "docs", name)
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%v)", dst, crop.Bounds().Size())
}

// rebuiltLight is the colour the segment map draws a piece rebuilt from
// parity in, in the light theme (ui's parityLight).
var rebuiltLight = color.NRGBA{0x2b, 0x23, 0x50, 0xff}

// colourCells finds in img, within area, the connected regions (4-way)
// of pixels of colour c larger than a few pixels, and returns their
// bounds.
func colourCells(img image.Image, area image.Rectangle, c color.NRGBA) []image.Rectangle {
	area = area.Intersect(img.Bounds())
	is := func(p image.Point) bool {
		return color.NRGBAModel.Convert(img.At(p.X, p.Y)).(color.NRGBA) == c
	}
	seen := map[image.Point]bool{}
	var cells []image.Rectangle
	for y := area.Min.Y; y < area.Max.Y; y++ {
		for x := area.Min.X; x < area.Max.X; x++ {
			p := image.Pt(x, y)
			if seen[p] || !is(p) {
				continue
			}
			r, n := image.Rectangle{Min: p, Max: p.Add(image.Pt(1, 1))}, 0
			stack := []image.Point{p}
			seen[p] = true
			for len(stack) > 0 {
				q := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				n++
				r = r.Union(image.Rectangle{Min: q, Max: q.Add(image.Pt(1, 1))})
				for _, d := range []image.Point{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
					o := q.Add(d)
					if o.In(area) && !seen[o] && is(o) {
						seen[o] = true
						stack = append(stack, o)
					}
				}
			}
			if n > 16 {
				cells = append(cells, r)
			}
		}
	}
	return cells
}
