//go:build !headless

package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/queue"
)

// englishWords are words of English that German does not share: one of
// them in the German window is an English fragment the translation
// missed. The test's own names (files, hosts) are German or neutral.
var englishWords = regexp.MustCompile(`(?i)\b(the|and|of|is|are|not|with|does|do|cannot|from|for|to|in|on|by|waiting|refused|failed|done|verified|unknown|language|match|matches|more|next|try|found|left|out|selected|published|name|contains|would|which|only|none|anywhere|any|file|files|mirror|mirrors|server|connection|broke|off|paused|queued|running|seconds|unsafe|refuse|safety|written|outside|folder|path|element|climb|download|downloads|signed|signature|key|bad|good|checked|hashes|pieces|piece|error|details|problem|outcome|size|speed|added)\b`)

// germanAllowed are English-looking words the German translation uses
// itself (loanwords), or that are names: never counted.
var germanAllowed = map[string]bool{
	"download": true, "downloads": true, "server": true, "details": true, "in": true, "problem": true, "name": true, "hashes": true,
}

// TestWindowGermanHasNoEnglish runs the real binary under LANG=de_DE on
// its own Xvfb display over a queue with a job in each state (waiting for
// a refused server, failed on a 404, paused, done with and without a
// hash, several files), with a picker open on a document with files for
// another language and system and a name refused for safety. It clicks
// every row (xdotool) so the details show, and fails on any English word
// among the texts the window shows.
//
// It takes about 40 s: every row is clicked and its details read in
// turn, each after the window has drawn them.
func TestWindowGermanHasNoEnglish(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	r := newWindowRig(t, "ziel")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	add := func(names []string, url string) int64 {
		t.Helper()
		doc := &metalink.Document{Version: 4}
		for _, n := range names {
			doc.Files = append(doc.Files, metalink.File{Name: n, Size: 1 << 20, URLs: []metalink.URL{{URL: url + "/" + n, Priority: 1}}})
		}
		id, err := q.Add(queue.NewJob{Source: url + "/" + names[0], Dest: r.dest, Doc: doc})
		if err != nil {
			q.Close()
			t.Fatal(err)
		}
		return id
	}
	add([]string{"abgelehnt.bin"}, closed)
	add([]string{"fehlt.bin"}, missing.URL)
	if err := q.Pause(add([]string{"angehalten.bin"}, closed), ""); err != nil {
		t.Fatal(err)
	}
	add([]string{"paket-a.bin", "paket-b.bin", "paket-c.bin"}, closed)
	for _, by := range []string{"", "sha-256"} {
		name := "fertig-" + strconv.Itoa(len(by)) + ".iso"
		id := add([]string{name}, closed)
		if err := q.SetFile(id, name, queue.VerifiedBy(by)); err != nil {
			t.Fatal(err)
		}
		if _, err := q.Finish(id); err != nil {
			t.Fatal(err)
		}
	}
	q.Close()

	// A document with a build for French users, one for Windows, and a
	// name refused for safety, opened in the picker.
	meta := filepath.Join(r.tmp, "paket.meta4")
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<metalink xmlns="urn:ietf:params:xml:ns:metalink">
  <file name="handbuch-fr.pdf"><size>1000</size><language>fr</language><url priority="1">` + closed + `/handbuch-fr.pdf</url></file>
  <file name="programm.exe"><size>2000</size><os>windows-x64</os><url priority="1">` + closed + `/programm.exe</url></file>
  <file name="../boese.bin"><size>3000</size><url priority="1">` + closed + `/boese.bin</url></file>
  <file name="liesmich.txt"><size>10</size><url priority="1">` + closed + `/liesmich.txt</url></file>
</metalink>`
	if err := os.WriteFile(meta, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}

	env := r.env("LANG=de_DE.UTF-8", "LANGUAGE=", "LC_ALL=", "LC_MESSAGES=")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	cmd := exec.CommandContext(ctx, r.bin, meta)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	ids := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))
	if len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", out.String())
	}
	wid := ids[0]
	english := map[string]string{} // word → a line it was in
	scan := func(texts string) {
		for _, line := range strings.Split(texts, "\n") {
			if strings.Contains(line, "://") || strings.HasPrefix(line, "/") {
				continue // a link or a path: the user's, not the window's words
			}
			for _, w := range englishWords.FindAllString(line, -1) {
				if !germanAllowed[strings.ToLower(w)] {
					english[w] = line
				}
			}
		}
	}
	waitText := func(what string, want ...string) string {
		t.Helper()
		return waitWindowText(ctx, t, env, r.dump, &out, 60*time.Second, "german-", what, want...)
	}

	// The picker first: its files and why some are left out.
	waitText("picker", "Downloads hinzufügen", "handbuch-fr.pdf", "programm.exe", "liesmich.txt")
	time.Sleep(1500 * time.Millisecond) // one more dump, with every row drawn
	b, _ := os.ReadFile(r.dump)
	windowShot(ctx, t, env, "german-picker")
	scan(string(b))
	xdo("windowfocus", "--sync", wid)
	xdo("key", "Escape")

	// Then each row, with its details.
	texts := waitText("queue", "Wartet", "Fehlgeschlagen", "Fertig")
	scan(texts)
	windowShot(ctx, t, env, "german-queue")
	// Each tab of the details (Files, Mirrors, Info; their places in the
	// 1100×720 window), for each row; the sixth row is below the list's
	// fold.
	const top, pitch, visible = 172, 39, 5 // the first row's middle, the rows' pitch
	look := func(name string) {
		time.Sleep(1500 * time.Millisecond) // a dump of the texts follows within a second
		b, _ := os.ReadFile(r.dump)
		scan(string(b))
		windowShot(ctx, t, env, name)
	}
	// The tabs sit right of the side panel; a tab reached shows a text
	// only it has (the Files tab's headers are the list's), so a click
	// that misses fails here rather than scanning the queue again.
	for _, tab := range []struct {
		name  string
		x     string
		shows string
	}{{"files", "245", ""}, {"mirrors", "335", "Priorität"}, {"info", "540", "Gespeichert in"}} {
		for i := range visible {
			xdo("windowfocus", "--sync", wid)
			xdo("mousemove", "--sync", "200", strconv.Itoa(top+i*pitch))
			xdo("click", "1")
			if i == 0 {
				time.Sleep(500 * time.Millisecond)
				xdo("mousemove", "--sync", tab.x, "452")
				xdo("click", "1")
				if tab.shows != "" {
					waitText("the "+tab.name+" tab", tab.shows)
				}
			}
			look("german-" + tab.name + "-" + strconv.Itoa(i))
		}
		// The list scrolled to its end shows the sixth row last, just
		// above the split.
		xdo("mousemove", "--sync", "200", strconv.Itoa(top+2*pitch))
		xdo("click", "--repeat", "5", "5")
		time.Sleep(300 * time.Millisecond)
		xdo("mousemove", "--sync", "200", "322")
		xdo("click", "1")
		look("german-" + tab.name + "-" + strconv.Itoa(visible))
		xdo("mousemove", "--sync", "200", strconv.Itoa(top+2*pitch))
		xdo("click", "--repeat", "5", "4")
	}
	for w, line := range english {
		t.Errorf("English %q in the German window: %q", w, line)
	}
	if t.Failed() {
		b, _ := os.ReadFile(r.dump)
		t.Logf("the last texts:\n%s", bytes.TrimSpace(b))
	}
}
