//go:build !headless

package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/ziprange/ziptest"
)

// TestWindowChoosesFilesInside starts the real binary on its own Xvfb
// display with the link of a ZIP archive on a mirror with real Range
// semantics (engine/mirrortest), as a user opens a link. The picker
// offers "Choose files inside"; a click reads the archive's directory by
// range and shows its members (an encrypted one with its reason), a
// click ticks one, the search narrows the list to it, and Enter adds it: the
// queue holds one member job under the member's name, which lands
// verified by its CRC-32 with the bytes the archive holds, and the mirror
// sent far less than the archive. With BRAID_UPDATE_SCREENSHOT=1 the
// picker inside the archive is kept as docs/picker_members.png.
func TestWindowChoosesFilesInside(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	r := newWindowRig(t, "downloads")
	big := ziptest.Text(2<<20, 11)
	archive := ziptest.Make(t,
		ziptest.Entry{Name: "README.txt", Data: []byte("Sample data set, version 3.\n"), Method: zip.Deflate},
		ziptest.Entry{Name: "data/measurements-2025.csv", Data: big, Method: zip.Deflate},
		ziptest.Entry{Name: "private/keys.bin", Data: mirrortest.Bytes(4<<10, 14), Method: zip.Store},
		ziptest.Entry{Name: "LICENSE", Data: bytes.Repeat([]byte("Permission is granted. "), 40), Method: zip.Deflate},
		ziptest.Entry{Name: "data/measurements-2024.csv", Data: ziptest.Text(3<<20, 12), Method: zip.Deflate},
		ziptest.Entry{Name: "images/overview.png", Data: mirrortest.Bytes(900<<10, 13), Method: zip.Store},
	)
	ziptest.SetEncrypted(t, archive, "private/keys.bin")
	mirror := mirrortest.New(t, archive, mirrortest.Path("/sets/dataset-3.zip"))

	env := r.env("LANG=en_US.UTF-8", "LANGUAGE=", "LC_ALL=", "LC_MESSAGES=")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	win := exec.CommandContext(ctx, r.bin, mirror.URL())
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
		return waitWindowText(ctx, t, env, r.dump, &out, 60*time.Second, "members-", what, want...)
	}
	click := func(x, y string) {
		xdo("windowfocus", "--sync", wid)
		xdo("mousemove", "--window", wid, "--sync", x, y)
		xdo("click", "1")
	}

	// The plain picker of the archive, with Choose files inside.
	waitText("the picker", "Add downloads", "dataset-3.zip", "Choose files inside")
	windowShot(ctx, t, env, "members-picker")
	before := mirror.BytesServed()
	click(insideX, insideY)
	texts := waitText("the files inside", "Files inside dataset-3.zip", "data/measurements-2025.csv", "README.txt",
		"images/overview.png", "Cannot be fetched: the member is encrypted", "0 of 6 files")
	if strings.Contains(texts, "The files inside cannot be listed") {
		t.Fatalf("the picker says the archive cannot be read:\n%s", texts)
	}
	if read := mirror.BytesServed() - before; read >= int64(len(archive))/4 {
		t.Errorf("listing the files inside read %d bytes of a %d-byte archive", read, len(archive))
	}
	windowShot(ctx, t, env, "members-inside")

	// A click on a member's box ticks it; the search narrows the list to
	// it, and it stays ticked.
	click(secondBoxX, secondBoxY)
	waitText("the member ticked", "1 of 6 files · 2.0 MiB", "measurements-2025.csv")
	time.Sleep(time.Second) // drawn, for the picture
	shot := windowPNG(ctx, t, env, filepath.Join(r.tmp, "screenshot.png"))
	windowShot(ctx, t, env, "members-ticked")
	if shot {
		keepScreenshot(t, r.tmp, "picker_members.png")
	}
	click(searchX, searchY)
	xdo("type", "--delay", "30", "2025")
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		b, _ := os.ReadFile(r.dump)
		texts := string(b)
		if !strings.Contains(texts, "README.txt") && !strings.Contains(texts, "measurements-2024.csv") && strings.Contains(texts, "data/measurements-2025.csv") && strings.Contains(texts, "1 of 6 files") {
			break
		}
		if time.Now().After(end) {
			windowShot(ctx, t, env, "members-search")
			t.Fatalf("the search for 2025 did not narrow the list to the ticked member:\n%s", b)
		}
	}
	windowShot(ctx, t, env, "members-search")

	// Enter adds it; it runs, and lands.
	xdo("windowfocus", "--sync", wid)
	xdo("key", "Return")
	var js []queueJob
	for end := time.Now().Add(90 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		cmd := exec.CommandContext(ctx, r.bin, "queue", "--state", r.state, "list", "--json")
		cmd.Env = env
		b, err := cmd.Output()
		if err == nil && json.Unmarshal(b, &js) == nil && len(js) == 1 && js[0].State == "done" {
			break
		}
		if time.Now().After(end) {
			windowShot(ctx, t, env, "members-not-done")
			t.Fatalf("the member job is not done: %s %v\n%s", b, err, out.String())
		}
	}
	j := js[0]
	if j.Name != "data/measurements-2025.csv" || j.Checked != "verified (CRC-32)" || j.Bytes != int64(len(big)) {
		t.Errorf("the queue's job: %+v", j)
	}
	got, err := os.ReadFile(filepath.Join(j.Dest, "data", "measurements-2025.csv"))
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("the extracted member: %d bytes, %v", len(got), err)
	}
	if sent := mirror.BytesServed(); sent >= int64(len(archive)) {
		t.Errorf("the mirror sent %d bytes, the whole archive is %d", sent, len(archive))
	}
	waitText("the done row", "data/measurements-2025.csv", "verified (CRC-32)")
	windowShot(ctx, t, env, "members-done")
	quitWindow(ctx, t, xdo, env, wid, win, &out)
}

// Where the pickers' parts are in the 1100×720 window (the dialogs over
// it, as the screenshots members-picker and members-inside show them):
// Choose files inside beside Add paused, the members' search entry, and
// the box of the second member listed (data/measurements-2025.csv).
const (
	insideX, insideY       = "630", "657"
	searchX, searchY       = "500", "212"
	secondBoxX, secondBoxY = "195", "400"
)

// windowPNG writes the real window (the 1100×720 at the top left of its
// X display) to path as a PNG; false when xwd is not there.
func windowPNG(ctx context.Context, t *testing.T, env []string, path string) bool {
	t.Helper()
	xwd, err := exec.LookPath("xwd")
	if err != nil {
		return false
	}
	cmd := exec.CommandContext(ctx, xwd, "-root", "-silent")
	cmd.Env = env
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("xwd: %v", err)
	}
	img, err := decodeXWD(b)
	if err != nil {
		t.Fatal(err)
	}
	// The window, not the screen around it: it sits at the top left.
	if sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok {
		img = sub.SubImage(image.Rect(0, 0, 1100, 720).Intersect(img.Bounds()))
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	return true
}
