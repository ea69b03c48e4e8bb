//go:build !headless

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
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
	"braid/engine/resourcesync/rstest"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

// TestWindowVerifyRepairTable tries every cell of the table of job kind
// × action in ui/bridge/check.go through the real window, on its own
// Xvfb display, as a hand would: the search box (Ctrl+F) narrows the
// list to one job, a click selects its row, a right click opens its menu,
// whose first items are Verify and Repair for a finished download, and
// the keyboard picks one. What the window then shows (its texts, as
// BRAID_DUMP_TEXTS writes them: the row, the details' buttons and Info)
// and what `braid queue list --json` records are checked per cell.
//
// The jobs: plain URLs without a hash and with their server's Digest,
// metalinks with a whole-file hash only and with piece hashes, each once
// with its file as downloaded and once with a byte changed since, all on
// real loopback mirrors; a torrent the window seeds, with a web seed to
// fetch a bad piece from again, then stopped seeding and verified once
// more; a ResourceSync folder.
//
// It takes about a minute: some twenty cells, each a search, a click, a
// menu and a wait for the window's words, and a torrent that must seed,
// fail and be repaired from its web seed in between.
func TestWindowVerifyRepairTable(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	needXwd(t)
	r := newWindowRig(t, "downloads")
	const size = 8 * 64 << 10
	ctx0 := context.Background()
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 100, Discovery: false} }); err != nil {
		t.Fatal(err)
	}
	if err := q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = r.dest }); err != nil {
		t.Fatal(err)
	}
	// done adds a job for the document of one file that ended done
	// (verified by, "" when nothing was published), its file in dest:
	// the one downloaded, or with a byte changed since (corrupt).
	originals := map[string][]byte{}
	done := func(source string, doc *metalink.Document, origin queue.Origin, data []byte, by string, corrupt bool) {
		t.Helper()
		name := doc.Files[0].Name
		on := bytes.Clone(data)
		if corrupt {
			on[3*64<<10+77] ^= 0x5a
		}
		originals[name] = data
		if err := os.WriteFile(filepath.Join(r.dest, name), on, 0o644); err != nil {
			t.Fatal(err)
		}
		id, err := q.Add(queue.NewJob{Source: source, Dest: r.dest, Doc: doc, Origin: origin})
		if err == nil {
			err = q.SetFile(id, name, queue.VerifiedBy(by))
		}
		if err == nil {
			_, err = q.Finish(id)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	seed := uint64(70)
	for _, bad := range []bool{false, true} {
		suffix := map[bool]string{false: "good", true: "bad"}[bad]
		// A plain URL whose server publishes no hash, and one whose
		// server sends a Digest, as the window's Add URL resolves them.
		for _, digest := range []bool{false, true} {
			seed++
			data := mirrortest.Bytes(size, seed)
			name := map[bool]string{false: "plain-", true: "digest-"}[digest] + suffix + ".bin"
			opts := []mirrortest.Option{mirrortest.Path("/" + name)}
			by := ""
			if digest {
				sum := sha256.Sum256(data)
				opts = append(opts, mirrortest.Header("Digest", "sha-256="+base64.StdEncoding.EncodeToString(sum[:])))
				by = "sha-256"
			}
			m := mirrortest.New(t, data, opts...)
			doc, origin, err := runner.ResolveSource(ctx0, m.URL(), runner.ResolveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := piece.Strongest(doc.Files[0].Hashes); ok != digest {
				t.Fatalf("%s: the resolved document has hashes %v", name, doc.Files[0].Hashes)
			}
			done(m.URL(), doc, origin, data, by, bad)
		}
		// Metalinks: a whole-file hash only, and piece hashes.
		for _, pieces := range []bool{false, true} {
			seed++
			data := mirrortest.Bytes(size, seed)
			name := map[bool]string{false: "whole-", true: "pieces-"}[pieces] + suffix + ".bin"
			m := mirrortest.New(t, data, mirrortest.Path("/"+name))
			f, err := piece.Describe(ctx0, bytes.NewReader(data), size, name, 64<<10, 2)
			if err != nil {
				t.Fatal(err)
			}
			if !pieces {
				f.Pieces = nil
			}
			f.URLs = []metalink.URL{{URL: m.URL(), Priority: 1}}
			doc := &metalink.Document{Version: 4, Files: []metalink.File{f}}
			meta := filepath.Join(r.tmp, name+".meta4")
			var b bytes.Buffer
			if err := metalink.Write(&b, doc); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(meta, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			done(meta, doc, queue.Origin{}, data, "sha-256", bad)
		}
	}
	q.Close()

	// A torrent whose data is in the download folder already: the window
	// checks it and seeds it. Its web seed serves the same bytes, for a
	// repair to fetch a bad piece from.
	seedData := mirrortest.Bytes(size, 90)
	webseed := filepath.Join(r.tmp, "webseed")
	ws := torrenttest.ServeDir(t, webseed)
	mi := torrenttest.Make(t, webseed, "seed.bin", 64<<10, []torrenttest.File{{Data: seedData}}, ws+"/")
	if err := os.WriteFile(filepath.Join(r.dest, "seed.bin"), seedData, 0o644); err != nil {
		t.Fatal(err)
	}
	torrentFile := torrenttest.WriteFile(t, mi, "seed.torrent")

	// A ResourceSync folder, synced once.
	src := rstest.New(t)
	src.Put("/synced.txt", mirrortest.Bytes(10<<10, 91))
	syncDir := filepath.Join(r.tmp, "synced")
	if out, err := exec.Command(r.bin, "sync", "--state", r.state, src.URL(), "-d", syncDir).CombinedOutput(); err != nil {
		t.Fatalf("braid sync: %v\n%s", err, out)
	}

	// The opener the window calls for a file (Fyne runs xdg-open): a
	// script that writes down what it was asked to open.
	fake := filepath.Join(r.tmp, "bin")
	opened := filepath.Join(r.tmp, "opened.txt")
	if err := os.MkdirAll(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >> " + opened + "\n"
	if err := os.WriteFile(filepath.Join(fake, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := r.env("BRAID_AUTOADD=1",
		"PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx, cancel := context.WithTimeout(ctx0, 8*time.Minute)
	defer cancel()
	var out syncBuffer
	win := exec.CommandContext(ctx, r.bin, torrentFile)
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
	read := func() string { b, _ := os.ReadFile(r.dump); return string(b) }
	waitText := func(what string, want ...string) string {
		t.Helper()
		return waitWindowText(ctx, t, env, r.dump, &out, 90*time.Second, "verify-", what, want...)
	}
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	waitText("the queue", "plain-good.bin", "pieces-bad.bin")
	// The first row, plain-good.bin, found by its progress bar, full in
	// the amber of a file no hash checked: where the one row the search
	// leaves shows. It is searched for first, as the list may be
	// scrolled to the torrent the window just added.
	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+f")
	xdo("type", "--delay", "5", "plain-good")
	amber := ui.NewTheme().Color(theme.ColorNameWarning, theme.VariantLight)
	var row bar
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
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
		if bars := findBars(img, amber); len(bars) > 0 {
			row = bars[0]
			break
		}
		if time.Now().After(end) {
			windowShot(ctx, t, env, "verify-no-row")
			t.Fatal("no row of the queue on the screen")
		}
	}
	x, y := strconv.Itoa(row.x0-60), strconv.Itoa(row.y)

	// show narrows the list to the row text finds and selects it.
	show := func(text string) {
		t.Helper()
		xdo("windowfocus", "--sync", wid)
		xdo("key", "ctrl+f")
		xdo("key", "ctrl+a")
		xdo("type", "--delay", "5", text)
		time.Sleep(500 * time.Millisecond)
		xdo("mousemove", "--sync", x, y)
		xdo("click", "1")
		time.Sleep(1500 * time.Millisecond) // the details fill in on the next reading
	}
	// pick chooses the n-th item (1: Verify, 2: Repair) of the row's menu.
	pick := func(n int) {
		t.Helper()
		xdo("mousemove", "--sync", x, y)
		xdo("click", "3")
		time.Sleep(400 * time.Millisecond)
		for range n {
			xdo("key", "Down")
		}
		xdo("key", "Return")
	}
	lines := func(texts string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(texts, "\n") {
			m[strings.TrimSpace(l)] = true
		}
		return m
	}
	listed := func(name string) queueJob {
		t.Helper()
		cmd := exec.CommandContext(ctx, r.bin, "queue", "--state", r.state, "list", "--json")
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("queue list: %v", err)
		}
		var js []queueJob
		if err := json.Unmarshal(b, &js); err != nil {
			t.Fatalf("queue list: %v\n%s", err, b)
		}
		for _, j := range js {
			if j.Name == name {
				return j
			}
		}
		t.Fatalf("queue list has no %s: %s", name, b)
		return queueJob{}
	}
	never := func(cell, texts string, words ...string) {
		t.Helper()
		for _, w := range words {
			if strings.Contains(texts, w) {
				t.Errorf("%s: the window says %q:\n%s", cell, w, texts)
			}
		}
	}
	// repairOffered reports whether the details show a Repair button:
	// the texts name the buttons in their order, Repair right after
	// Verify (Info's row about Repair is the word and its reason).
	repairOffered := func(texts string) bool { return strings.Contains(texts, "\nVerify\nRepair\n") }

	var name, texts string
	// Nothing published: Verify says so, the job stays done; Repair is
	// not offered, and Info says why.
	for _, name := range []string{"plain-good.bin", "plain-bad.bin"} {
		cell := name + " Verify"
		show(name)
		pick(1)
		texts := waitText(cell, "not verified: nothing was published to check it against. Verify found it in its folder with its 524,288 bytes, as its download left it.")
		never(cell, texts, "Checksum mismatch", "does not match", "( mismatch)")
		if j := listed(name); j.State != "done" || j.Error != "" || j.Checked != "not verified (no hash published)" {
			t.Errorf("%s: the queue says %+v", cell, j)
		}
		if name == "plain-good.bin" {
			windowShot(ctx, t, env, "verify-nohash")
		}
		cell = name + " Repair"
		if repairOffered(texts) || !strings.Contains(texts, "not possible: nothing was published to check the file against") {
			t.Errorf("%s: Repair is offered, or Info does not say why not:\n%s", cell, texts)
		}
	}

	// A whole-file hash (the server's Digest, or a metalink's): Verify
	// tells a good file from a bad one; Repair cannot find the bad bytes
	// and is not offered.
	for _, kind := range []string{"digest", "whole"} {
		name := kind + "-good.bin"
		show(name)
		pick(1)
		texts := waitText(name+" Verify", "verified (sha-256); Verify checked it again at")
		never(name+" Verify", texts, "Checksum mismatch")
		if j := listed(name); j.State != "done" || j.Checked != "verified (sha-256)" {
			t.Errorf("%s Verify: the queue says %+v", name, j)
		}
		if repairOffered(texts) || !strings.Contains(texts, "not possible: only a whole-file hash was published") {
			t.Errorf("%s Repair: offered, or Info does not say why not:\n%s", name, texts)
		}
		name = kind + "-bad.bin"
		show(name)
		pick(1)
		texts = waitText(name+" Verify", "Checksum mismatch", "did not match its hash")
		if j := listed(name); j.State != "failed" || !strings.Contains(j.Error, "sha-256 mismatch") {
			t.Errorf("%s Verify: the queue says %+v", name, j)
		}
		if repairOffered(texts) || !strings.Contains(texts, "not possible: only a whole-file hash was published") {
			t.Errorf("%s Repair: offered, or Info does not say why not:\n%s", name, texts)
		}
	}

	// Piece hashes: Verify finds the bad piece, Repair fetches only it.
	name = "pieces-good.bin"
	show(name)
	pick(1)
	waitText(name+" Verify", "verified (sha-256); Verify checked it again at")
	pick(2)
	texts = waitText(name+" Repair", "verified (sha-256); Repair checked it again at")
	never(name+" Repair", texts, "Checksum mismatch")
	if j := listed(name); j.State != "done" {
		t.Errorf("%s Repair: the queue says %+v", name, j)
	}
	name = "pieces-bad.bin"
	show(name)
	pick(1)
	waitText(name+" Verify", "Checksum mismatch", "did not match its hash")
	if j := listed(name); j.State != "failed" || !strings.Contains(j.Error, "bad piece") {
		t.Errorf("%s Verify: the queue says %+v", name, j)
	}
	pick(2)
	texts = waitText(name+" Repair", "Repair checked it again at")
	never(name+" Repair", texts, "Checksum mismatch")
	if got, _ := os.ReadFile(filepath.Join(r.dest, name)); !bytes.Equal(got, originals[name]) {
		t.Errorf("%s Repair: the file is not the mirror's", name)
	}

	// A seeding torrent: Verify checks it beside its seeding; a changed
	// byte fails its piece and ends the seeding; Repair fetches the
	// piece again.
	name = "seed.bin"
	show(name)
	waitText(name+" seeding", "Seeding")
	pick(1)
	texts = waitText(name+" Verify", "verified (BitTorrent piece hashes); Verify checked it again at")
	windowShot(ctx, t, env, "verify-torrent")
	if !lines(texts)["Seeding"] && !strings.Contains(texts, "Seeding ·") {
		t.Errorf("%s Verify: the torrent no longer seeds:\n%s", name, texts)
	}
	// Open file works for a seeding torrent, as for any finished job: a
	// double click on its row opens it.
	xdo("mousemove", "--sync", x, y)
	xdo("click", "--repeat", "2", "--delay", "80", "1")
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if b, _ := os.ReadFile(opened); strings.Contains(string(b), filepath.Join(r.dest, name)) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("%s: a double click on the seeding torrent's row opened nothing\n%s", name, out.String())
		}
	}
	pick(2)
	waitText(name+" Repair", "verified (BitTorrent piece hashes); Repair checked it again at")
	file := filepath.Join(r.dest, name)
	fh, err := os.OpenFile(file, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteAt([]byte{0xee}, 5*64<<10+3); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	pick(1)
	waitText(name+" Verify", "Checksum mismatch")
	if j := listed(name); j.State != "failed" || !strings.Contains(j.Error, "1 of 8 pieces do not match the torrent's hashes") {
		t.Errorf("%s Verify: the queue says %+v", name, j)
	}
	windowShot(ctx, t, env, "verify-torrent-bad")
	pick(2)
	for end := time.Now().Add(90 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		if got, _ := os.ReadFile(file); bytes.Equal(got, seedData) && listed(name).State == "done" {
			break
		}
		if time.Now().After(end) {
			windowShot(ctx, t, env, "verify-torrent-repair")
			t.Fatalf("%s Repair: the file never became the torrent's again; the queue says %+v\n%s", name, listed(name), read())
		}
	}
	// The torrent done and not seeding: Stop seeding (the menu's fifth
	// item, after Verify, Repair, Pause and Resume), then Verify checks
	// it and leaves it done, not seeding.
	waitText(name+" seeding after Repair", "Seeding")
	pick(5)
	for end := time.Now().Add(30 * time.Second); listed(name).State != "done" || lines(read())["Seeding"]; time.Sleep(300 * time.Millisecond) {
		if time.Now().After(end) {
			windowShot(ctx, t, env, "verify-torrent-stop-seeding")
			t.Fatalf("%s: Stop seeding left it %+v\n%s", name, listed(name), read())
		}
	}
	if strings.Contains(read(), "Verify checked it again at") {
		t.Fatalf("%s: before Verify the window says Verify checked it again:\n%s", name, read())
	}
	pick(1)
	waitText(name+" Verify, not seeding", "verified (BitTorrent piece hashes); Verify checked it again at")
	windowShot(ctx, t, env, "verify-torrent-done")
	time.Sleep(time.Second) // a Verify that started seeding would show it by now
	if j := listed(name); j.State != "done" || lines(read())["Seeding"] {
		t.Errorf("%s Verify, not seeding: the queue says %+v; the window:\n%s", name, j, read())
	}

	// A sync: Sync again checks it; Verify and Repair are not offered.
	show(src.Host())
	texts = waitText("the sync", "Sync again")
	if l := lines(texts); l["Verify"] || l["Repair"] {
		t.Errorf("a sync offers Verify or Repair:\n%s", texts)
	}

	// Quit: Ctrl+Q, and Enter if the window asks first.
	quitWindow(ctx, t, xdo, env, wid, win, &out)
}
