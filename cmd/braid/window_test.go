//go:build !headless

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
)

// TestWindowScreenshot starts the real binary in a real window on its own
// Xvfb display, on a metalink served by three rate-limited loopback
// mirrors, and checks the screenshot it takes of itself once the download
// is visibly under way. With BRAID_UPDATE_SCREENSHOT=1 the picture becomes
// docs/screenshot.png, the one the README shows.
func TestWindowScreenshot(t *testing.T) {
	t.Parallel()
	tmp, bin, display := realWindow(t)

	const size = 24 << 20
	const pieceLength = 128 << 10
	data := mirrortest.Bytes(size, 34)
	mirrors := []*mirrortest.Mirror{
		mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(900<<10), mirrortest.Path("/debian/braid-demo.iso")),
		mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"), mirrortest.Rate(600<<10), mirrortest.Path("/pub/braid-demo.iso")),
		mirrortest.New(t, data, mirrortest.Addr("127.0.0.4"), mirrortest.Rate(350<<10), mirrortest.Path("/mirror/braid-demo.iso")),
	}
	// Three sources: the image being braided, a second build that waits
	// its turn on the same mirrors, and small release notes from one fast
	// mirror, so the queue shows more than one state.
	var urls []metalink.URL
	for i, m := range mirrors {
		urls = append(urls, metalink.URL{URL: m.URL(), Priority: 1 + i, Location: []string{"DE", "NL", "US"}[i]})
	}
	notes := data[:512<<10]
	notesMirror := mirrortest.New(t, notes, mirrortest.Addr("127.0.0.5"), mirrortest.Path("/notes.pdf"))
	sources := []string{
		writeMetalink(t, tmp, "amd64.meta4", data, "braid-demo-1.0-amd64.iso", pieceLength, urls),
		writeMetalink(t, tmp, "notes.meta4", notes, "braid-demo-1.0-release-notes.pdf", 64<<10,
			[]metalink.URL{{URL: notesMirror.URL(), Priority: 1, Location: "DE"}}),
		writeMetalink(t, tmp, "arm64.meta4", data, "braid-demo-1.0-arm64.iso", pieceLength, urls),
	}

	img := windowScreenshot(t, tmp, bin, display, "3s", filepath.Join(tmp, "state"), sources...)
	if b := img.Bounds(); b.Dx() != 1100 || b.Dy() != 720 {
		t.Errorf("screenshot is %v, want the window's 1100×720", b)
	}
	var served int64
	for _, m := range mirrors {
		if m.BytesServed() == 0 {
			t.Errorf("mirror %s sent nothing: the download did not braid all three", m.Host())
		}
		served += m.BytesServed()
	}
	if served < size/5 {
		t.Errorf("mirrors sent %d bytes: the screenshot came before the download was under way", served)
	}
	keepScreenshot(t, tmp, "screenshot.png")
}

// windowScreenshot runs the braid binary bin with args in a real window on
// display, with its own home, runtime folder and state folder, and has it
// take a screenshot of itself after "after" (a Go duration) once something
// is under way (BRAID_SCREENSHOT, see window.go). It checks that the
// picture decodes and is not blank, and returns it; the PNG stays in tmp
// for keepScreenshot.
func windowScreenshot(t *testing.T, tmp, bin, display, after, state string, args ...string) image.Image {
	t.Helper()
	home := filepath.Join(tmp, "home")
	runtimeDir := filepath.Join(tmp, "run")
	for _, d := range []string{home, runtimeDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	shot := filepath.Join(tmp, "screenshot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	// One that hangs is asked for its goroutines (SIGQUIT), then killed.
	cmd.Cancel = func() error { return quitForStacks(cmd.Process) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(os.Environ(),
		"DISPLAY="+display,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_RUNTIME_DIR="+runtimeDir,
		"DBUS_SESSION_BUS_ADDRESS=",
		"BRAID_STATE="+state,
		"FYNE_THEME=light",
		"FYNE_SCALE=1",
		"BRAID_SCREENSHOT="+shot,
		"BRAID_SCREENSHOT_AFTER="+after,
		"BRAID_SCREENSHOT_TIMEOUT=2m",
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("braid: %v\n%s", err, out.String())
	}
	file, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out.String())
	}
	img, err := png.Decode(file)
	file.Close()
	if err != nil {
		t.Fatalf("screenshot does not decode: %v", err)
	}
	if n := colours(img); n < 64 {
		t.Errorf("screenshot has %d colours: blank or nearly", n)
	}
	return img
}

// keepScreenshot copies the screenshot windowScreenshot took in tmp to
// docs/name, the picture the README shows, when BRAID_UPDATE_SCREENSHOT=1.
func keepScreenshot(t *testing.T, tmp, name string) {
	t.Helper()
	if os.Getenv("BRAID_UPDATE_SCREENSHOT") != "1" {
		return
	}
	b, err := os.ReadFile(filepath.Join(tmp, "screenshot.png"))
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join("..", "..", "docs", name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", dst)
}

// writeMetalink describes data as the file name, with the mirrors urls,
// and writes the .meta4 into dir.
func writeMetalink(t *testing.T, dir, meta string, data []byte, name string, pieceLength int64, urls []metalink.URL) string {
	t.Helper()
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), name, pieceLength, 2)
	if err != nil {
		t.Fatal(err)
	}
	f.Identity, f.Version = "Braid Demo", "1.0"
	f.Description = "A demo image braided together from three mirrors."
	f.Publisher = metalink.Party{Name: "The Braid Project", URL: "https://example.org/"}
	f.URLs = urls
	var doc bytes.Buffer
	if err := metalink.Write(&doc, &metalink.Document{Version: 4, Files: []metalink.File{f}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, meta)
	if err := os.WriteFile(path, doc.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// startXvfb starts Xvfb on a display it finds free and returns the display
// name; the server is stopped when the test ends. Xvfb picks the number
// itself (-displayfd) and writes it once it accepts connections: the lock
// files make the pick atomic, so tests and packages that start displays at
// the same time never share one (a test that looked for a free display's
// socket could take another server's for its own).
func startXvfb(t testing.TB, xvfb string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(xvfb, "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w} // fd 3
	var log syncBuffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		w.Close()
		t.Fatalf("start Xvfb: %v", err)
	}
	w.Close()
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		// SIGTERM lets Xvfb remove its lock file and socket; a killed
		// server leaves them behind.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	said := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n') // or "" when Xvfb exits first
		said <- strings.TrimSpace(line)
	}()
	select {
	case n := <-said:
		if n == "" {
			t.Fatalf("Xvfb did not say which display it took\n%s", log.String())
		}
		return ":" + n
	case <-time.After(20 * time.Second):
		t.Fatalf("Xvfb did not start in 20 s\n%s", log.String())
	}
	return ""
}

// colours counts the distinct colours of img, up to 10,000.
func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= 10000 {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// realWindow prepares a test that runs the real braid binary in real
// windows: it skips without Xvfb (or with -short), builds the binary into a
// temporary folder and starts a private Xvfb display for it.
// windowEnv is the environment of a real window in a test: the test's own
// display, a home and runtime folder under tmp, the state folder, no
// session bus, the light theme at scale 1; extra ("NAME=value") is added
// last, so it may override.
func windowEnv(display, tmp, state string, extra ...string) []string {
	home := filepath.Join(tmp, "home")
	env := append(os.Environ(),
		"DISPLAY="+display,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_RUNTIME_DIR="+filepath.Join(tmp, "run"),
		"DBUS_SESSION_BUS_ADDRESS=",
		"BRAID_STATE="+state,
		"FYNE_THEME=light",
		"FYNE_SCALE=1",
	)
	return append(env, extra...)
}

// startWindow starts the program at path (Braid's window, or a bare Fyne
// one) in env with its output to out, and kills it when the test ends.
func startWindow(ctx context.Context, t testing.TB, path string, env []string, out io.Writer) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, path)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// xdoRunner runs xdotool in env and returns what it printed; a failure
// fails the test with what the window said (out).
//
// `mousemove --sync` waits until the pointer has moved; when it is at the
// place asked already it never moves, and xdotool waits out its own
// timeout (about 15 s) before it goes on. Such a move is made without
// --sync: there is nothing to wait for.
func xdoRunner(ctx context.Context, t testing.TB, xdotool string, env []string, out fmt.Stringer) func(args ...string) string {
	var run func(args ...string) string
	run = func(args ...string) string {
		t.Helper()
		if sync := slices.Index(args, "--sync"); sync > 0 && args[0] == "mousemove" && len(args) >= 4 {
			x, y := args[len(args)-2], args[len(args)-1]
			if w := slices.Index(args, "--window"); w > 0 && w+1 < len(args) {
				// The place is relative to the window.
				x, y = offset(run("getwindowgeometry", "--shell", args[w+1]), x, y)
			}
			if at := run("getmouselocation", "--shell"); shellVar(at, "X") == x && shellVar(at, "Y") == y {
				args = slices.Delete(slices.Clone(args), sync, sync+1)
			}
		}
		cmd := exec.CommandContext(ctx, xdotool, args...)
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("xdotool %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return string(b)
	}
	return run
}

// shellVar is NAME's value in xdotool's --shell output ("" when absent).
func shellVar(shell, name string) string {
	for _, l := range strings.Split(shell, "\n") {
		if v, ok := strings.CutPrefix(l, name+"="); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// offset is x, y moved by the X and Y of xdotool's --shell geometry.
func offset(geometry, x, y string) (string, string) {
	gx, _ := strconv.Atoi(shellVar(geometry, "X"))
	gy, _ := strconv.Atoi(shellVar(geometry, "Y"))
	px, _ := strconv.Atoi(x)
	py, _ := strconv.Atoi(y)
	return strconv.Itoa(gx + px), strconv.Itoa(gy + py)
}

func realWindow(t *testing.T) (tmp, bin, display string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("drives a real window on Xvfb with xdotool, which are Linux's; on Windows the window is tried by hand under Wine")
	}
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Skip("Xvfb is not installed (Debian: apt-get install xvfb, or make setup); this test runs real windows on it")
	}
	if testing.Short() {
		t.Skip("starts real windows; skipped with -short")
	}
	return t.TempDir(), buildBraid(t), startXvfb(t, xvfb)
}
