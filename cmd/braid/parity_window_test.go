//go:build !headless

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
