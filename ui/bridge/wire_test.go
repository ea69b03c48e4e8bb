package bridge

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/resourcesync/rstest"
	"braid/engine/signature"
	"braid/engine/signature/signaturetest"
	"braid/internal/testkit"
	"braid/runner"
	"braid/ui"
)

// newWindow is the real window over b on Fyne's test driver. A test that
// calls it does not call t.Parallel: test.NewTempApp makes its app the
// process's one current app, and gives it back to a new one at the end.
func newWindow(t *testing.T, b *Backend) *ui.Window {
	t.Helper()
	a := test.NewTempApp(t)
	w := ui.New(a, b, ui.Options{})
	if s, err := b.Settings(); err == nil {
		w.Settings = s
	}
	w.Win.Resize(fyne.NewSize(1100, 720))
	t.Cleanup(func() {
		w.Stop()
		w.Win.Close()
	})
	w.Tick()
	return w
}

// infoText is every label of the details' Info tab, joined.
func infoText(w *ui.Window) string {
	w.Details.Tabs.Select(w.Details.InfoTab)
	var parts []string
	for _, o := range w.Details.Info.Objects {
		if l, ok := o.(*widget.Label); ok {
			parts = append(parts, l.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestKeysSection imports keys made in the test through the settings'
// Keys section, from a file and from a link, lists them, and removes one:
// the queue's keyring changes with each step.
func TestKeysSection(t *testing.T) {
	q := openQueue(t)
	b := newBackend(t, q)
	w := newWindow(t, b)
	alice := signaturetest.New(t, "Alice Publisher", "alice@example.org")
	bob := signaturetest.New(t, "Bob Mirror", "bob@example.org")
	file := alice.KeyFile(t)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_, _ = rw.Write(bob.PublicBinary(t))
	}))
	t.Cleanup(srv.Close)

	w.Locked(w.ShowSettings)
	w.Settle()
	k := w.SettingsForm.Keys
	if k == nil {
		t.Fatal("the settings have no Keys section")
	}
	if len(k.Keys) != 0 {
		t.Fatalf("a fresh keyring lists %+v", k.Keys)
	}

	w.Locked(func() {
		k.Source.SetText(file)
		test.Tap(k.Import)
	})
	w.Settle()
	w.Locked(func() {
		k.Source.SetText(srv.URL + "/bob.gpg")
		k.ImportSource()
	})
	w.Settle()
	if len(k.Keys) != 2 || k.List.Length() != 2 {
		t.Fatalf("after two imports the section lists %+v (%s)", k.Keys, k.Message.Text)
	}
	if got := k.Keys[0]; got.Fingerprint != alice.Fingerprint() || got.Name != "Alice Publisher" || got.Email != "alice@example.org" {
		t.Errorf("first key %+v, want Alice's %s", got, alice.Fingerprint())
	}
	if k.Keys[1].Fingerprint != bob.Fingerprint() {
		t.Errorf("second key %+v, want Bob's", k.Keys[1])
	}
	if !strings.Contains(k.Message.Text, "Bob Mirror") {
		t.Errorf("import message %q", k.Message.Text)
	}

	missing := filepath.Join(t.TempDir(), "missing.asc")
	w.Locked(func() {
		k.Source.SetText(missing)
		k.ImportSource()
	})
	w.Settle()
	if !strings.Contains(k.Message.Text, "missing.asc") || len(k.Keys) != 2 {
		t.Errorf("a missing file: message %q, keys %d", k.Message.Text, len(k.Keys))
	}

	if !k.Remove.Disabled() {
		t.Error("Remove is enabled with no key chosen")
	}
	w.Locked(func() {
		k.List.Select(0)
		test.Tap(k.Remove)
	})
	w.Settle()
	keys, err := runner.Keyring(q).Keys()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0].Fingerprint != bob.Fingerprint() {
		t.Fatalf("the keyring holds %+v after removing Alice", keys)
	}
	if len(k.Keys) != 1 || k.Keys[0].Fingerprint != bob.Fingerprint() {
		t.Errorf("the section lists %+v", k.Keys)
	}
}

// TestRequireSignatureSetting stores the setting through the form and the
// backend.
func TestRequireSignatureSetting(t *testing.T) {
	q := openQueue(t)
	b := newBackend(t, q)
	w := newWindow(t, b)
	w.Locked(w.ShowSettings)
	w.Settle()
	w.SettingsForm.RequireSignature.SetChecked(true)
	s, err := w.SettingsForm.Value()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	if st, err := q.Settings(); err != nil || !st.RequireSignature {
		t.Errorf("stored %v, %v", st.RequireSignature, err)
	}
	got, err := b.Settings()
	if err != nil || !got.RequireSignature {
		t.Errorf("read back %+v, %v", got, err)
	}
}

// signedFile describes data served by a mirror, signed by signer.
func signedFile(t *testing.T, name string, data []byte, signer *signaturetest.Signer) metalink.File {
	t.Helper()
	m := mirrortest.New(t, data)
	f := describeData(t, name, data, m.URL())
	f.Signature = &metalink.Signature{MediaType: signature.MediaType, Value: signer.SignArmored(t, data)}
	return f
}

// TestSignaturesInTheWindow downloads three signed files through the
// bridge: by a key of the keyring, by an unknown key, and with a
// signature over other bytes. The list, the details and the
// notifications say which is which; the unknown key is offered for
// import, and once imported the window's Verify finds the signature good.
func TestSignaturesInTheWindow(t *testing.T) {
	q := openQueue(t)
	alice := signaturetest.New(t, "Alice Publisher", "alice@example.org")
	mallory := signaturetest.New(t, "Mallory", "mallory@example.org")
	if _, err := runner.Keyring(q).Import(strings.NewReader(string(alice.PublicBinary(t)))); err != nil {
		t.Fatal(err)
	}
	good := payload(4 * pieceLen)
	unknown := payload(3 * pieceLen)
	bad := payload(2 * pieceLen)
	badFile := signedFile(t, "bad.bin", bad, alice)
	badFile.Signature.Value = alice.SignArmored(t, good) // over other bytes

	b := newBackend(t, q)
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	add := func(f metalink.File) ui.JobID {
		t.Helper()
		id, err := b.Add(context.Background(), ui.AddRequest{Source: f.Name + ".meta4", Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	goodID := add(signedFile(t, "good.bin", good, alice))
	unknownID := add(signedFile(t, "unknown.bin", unknown, mallory))
	badID := add(badFile)
	testkit.WaitFor(t, "the downloads to end", func() bool {
		for _, id := range []ui.JobID{goodID, unknownID, badID} {
			if jobByID(t, b, id).State.Live() {
				return false
			}
		}
		return true
	})

	g := jobByID(t, b, goodID)
	if g.State != ui.Done || g.SignerUnknown || !strings.Contains(g.Signer, "Alice Publisher") || g.Outcome != "verified (sha-256)" {
		t.Errorf("good: %+v", g)
	}
	u := jobByID(t, b, unknownID)
	if u.State != ui.Done || !u.SignerUnknown || u.Signer != mallory.Fingerprint() {
		t.Errorf("unknown key: %+v", u)
	}
	x := jobByID(t, b, badID)
	if x.State != ui.Failed || x.Err != "The file's signature does not check out." || !strings.Contains(x.ErrDetail, "bad OpenPGP signature") {
		t.Errorf("bad signature: %+v", x)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.bin.part")); err != nil {
		t.Errorf("the badly signed file is not kept as .part: %v", err)
	}

	// A window opened now reads the finished queue.
	w := newWindow(t, b)
	w.Select(goodID)
	w.Tick()
	if !w.Details.ImportKey.Hidden {
		t.Error("Import key is offered for a known signer")
	}
	if s := infoText(w); !strings.Contains(s, "signed by Alice Publisher <alice@example.org> ("+alice.Fingerprint()+")") {
		t.Errorf("good: info says\n%s", s)
	}
	w.Select(unknownID)
	w.Tick()
	if w.Details.ImportKey.Hidden {
		t.Error("no Import key for an unknown signer")
	}
	if s := infoText(w); !strings.Contains(s, "signed by an unknown key "+mallory.Fingerprint()) || !strings.Contains(s, "if you trust key") {
		t.Errorf("unknown key: info says\n%s", s)
	}
	w.Select(badID)
	w.Tick()
	if !strings.Contains(w.Details.State.String(), "signature does not check out") {
		t.Errorf("bad signature: the details say %q", w.Details.State.String())
	}

	// Import the unknown key with "Import key…", then Verify.
	w.Select(unknownID)
	w.Tick()
	w.Locked(func() { test.Tap(w.Details.ImportKey) })
	top := w.Win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Import key… opened no dialog")
	}
	var entry *ui.Entry
	var importBtn *widget.Button
	for _, o := range test.LaidOutObjects(top) {
		switch x := o.(type) {
		case *ui.Entry:
			entry = x
		case *widget.Button:
			if x.Text == "Import" {
				importBtn = x
			}
		}
	}
	if entry == nil || importBtn == nil {
		t.Fatal("the Import key dialog has no entry or no Import button")
	}
	keyFile := mallory.KeyFile(t)
	w.Locked(func() {
		entry.SetText(keyFile)
		test.Tap(importBtn)
	})
	w.Settle()
	if keys, err := runner.Keyring(q).Keys(); err != nil || len(keys) != 2 {
		t.Fatalf("after Import key the keyring holds %+v, %v", keys, err)
	}
	if err := b.Verify(unknownID); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the check", func() bool { return !jobByID(t, b, unknownID).State.Live() })
	if u := jobByID(t, b, unknownID); u.State != ui.Done || u.SignerUnknown || !strings.Contains(u.Signer, "Mallory") {
		t.Errorf("after importing the key, Verify says %+v", u)
	}
}

// TestResourceSyncInTheWindow opens a ResourceSync source served on
// loopback: the picker lists its resources with a path filter, Sync makes
// a sync job that ends Synced with the files on disk (one there already
// kept) and per-file outcomes and sizes in its details; Sync again fetches what changed; and the job
// is listed still, with its folder's size, by a backend opened afresh
// over the same queue.
func TestResourceSyncInTheWindow(t *testing.T) {
	src := rstest.New(t)
	src.Put("/data/a.txt", payload(3000))
	src.Put("/data/b.txt", payload(5000))
	src.Put("/docs/readme.md", []byte("read me\n"))
	q := openQueue(t)
	b := newBackend(t, q)
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	w := newWindow(t, b)
	dir := filepath.Join(t.TempDir(), "mirror")
	w.Settings.Dir = dir

	w.OpenSource(src.URL())
	w.Settle()
	if len(w.Pickers) != 1 {
		t.Fatalf("%d pickers open for a ResourceSync source", len(w.Pickers))
	}
	p := w.Pickers[0]
	if !p.Sync || p.Start.Text != "Sync" || len(p.Doc.Files) != 3 {
		t.Fatalf("picker: sync %v, start %q, %d files", p.Sync, p.Start.Text, len(p.Doc.Files))
	}
	p.Path.SetText("data/")
	if len(p.Shown) != 2 || p.Files.Length() != 2 {
		t.Errorf("the path filter data/ shows %d rows", p.Files.Length())
	}
	p.Path.SetText("*.md")
	if len(p.Shown) != 1 || p.Doc.Files[p.Shown[0]].Name != "docs/readme.md" {
		t.Errorf("the path filter *.md shows %v", p.Shown)
	}
	if !strings.Contains(p.Summary.Text, "3 files kept in sync") {
		t.Errorf("summary %q", p.Summary.Text)
	}
	// A file already right in the folder is kept, not fetched.
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "readme.md"), []byte("read me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.Locked(p.Accept)
	w.Settle()
	var id ui.JobID
	testkit.WaitFor(t, "the sync", func() bool {
		for _, j := range jobsOf(t, b) {
			if j.Sync {
				id = j.ID
				if j.State == ui.Failed {
					t.Fatalf("the sync failed: %s", j.Err)
				}
				return j.State == ui.Synced
			}
		}
		return false
	})
	for name, size := range map[string]int{"data/a.txt": 3000, "data/b.txt": 5000, "docs/readme.md": 8} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || len(got) != size {
			t.Errorf("%s: %d bytes, %v", name, len(got), err)
		}
	}
	j := jobByID(t, b, id)
	if !strings.Contains(j.Outcome, "2 fetched") || !strings.Contains(j.Outcome, "1 kept") {
		t.Errorf("synced job says %q", j.Outcome)
	}
	w.Settle()
	w.Select(id)
	w.Tick()
	if w.Details.SyncAgain.Hidden || w.Details.SyncAgain.Disabled() {
		t.Error("no Sync again on a synced job")
	}
	d, err := b.Detail(id, false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	sizes := map[string]int64{}
	for _, f := range d.Files {
		names = append(names, f.Name)
		sizes[f.Name] = f.Size
		if f.State != ui.FileVerified {
			t.Errorf("file %s: %v", f.Name, f.State)
		}
	}
	// Each file's size, the one kept as well as those fetched.
	if want := map[string]int64{"data/a.txt": 3000, "data/b.txt": 5000, "docs/readme.md": 8}; !maps.Equal(sizes, want) {
		t.Errorf("the details say the sizes %v, want %v", sizes, want)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"data/a.txt", "data/b.txt", "docs/readme.md"}) {
		t.Errorf("details list %v", names)
	}

	served := src.BytesServed()
	src.Put("/data/c.txt", payload(700))
	w.Locked(func() { test.Tap(w.Details.SyncAgain) })
	w.Settle()
	testkit.WaitFor(t, "the second sync", func() bool {
		j := jobByID(t, b, id)
		return j.State == ui.Synced && strings.Contains(j.Outcome, "1 fetched")
	})
	if _, err := os.Stat(filepath.Join(dir, "data/c.txt")); err != nil {
		t.Errorf("the new file: %v", err)
	}
	if got := src.BytesServed() - served; got != 700 {
		t.Errorf("Sync again fetched %d bytes, want the new file's 700", got)
	}
	// A list saved to disk is refused with the way out: its URL.
	resp, err := http.Get(src.URL() + "resourcelist.xml")
	if err != nil {
		t.Fatal(err)
	}
	list, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(t.TempDir(), "resourcelist.xml")
	if err := os.WriteFile(saved, list, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Open(context.Background(), saved); err == nil || !strings.Contains(err.Error(), "add its URL") {
		t.Errorf("opening a saved ResourceSync list: %v", err)
	}

	// A backend opened afresh lists the sync job from the queue.
	b2 := newBackend(t, q)
	found := false
	for _, j := range jobsOf(t, b2) {
		if j.ID == id {
			found = true
			// Its size is its folder's at the last sync: 3000 + 5000 + 8 + 700.
			if !j.Sync || j.State != ui.Synced || j.Dir == "" || j.Size != 8708 || j.Done != 8708 {
				t.Errorf("after a restart: %+v", j)
			}
		}
	}
	if !found {
		t.Error("the sync job is gone after a restart")
	}
	d, err = b2.Detail(id, false)
	if err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	for _, f := range d.Files {
		names = append(names, f.Name)
		if f.State != ui.FileVerified || f.Verification != "sha-256 matched" {
			t.Errorf("after a restart, file %s: %v, %q", f.Name, f.State, f.Verification)
		}
	}
	if !slices.Equal(names, []string{"data/a.txt", "data/b.txt", "data/c.txt", "docs/readme.md"}) {
		t.Errorf("after a restart the details list %v", names)
	}
	// A sync job waits its turn in the queue's order as any job.
	if err := b2.Move(id, 0); err != nil {
		t.Errorf("moving the sync job: %v", err)
	}
	if err := b2.Remove(id); err != nil {
		t.Fatal(err)
	}
	if sets, err := q.SyncSets(int64(id)); err != nil || len(sets) != 0 {
		t.Errorf("after Remove the queue keeps %v, %v", sets, err)
	}
}

func jobsOf(t *testing.T, b *Backend) []ui.Job {
	t.Helper()
	jobs, err := b.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// addSyncSource opens the ResourceSync source at u as the window does,
// which must read it as one, and adds its sync into a new folder.
func addSyncSource(t *testing.T, b *Backend, u string) (ui.JobID, string) {
	t.Helper()
	ctx := context.Background()
	doc, err := b.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if !b.SyncDocument(doc) {
		t.Fatalf("the ResourceSync source %s was not read as one", u)
	}
	dir := t.TempDir()
	id, err := b.Add(ctx, ui.AddRequest{Source: u, Doc: doc, Dir: dir, Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	return id, dir
}

// TestSyncJobLive watches a sync under way, slowed by the speed limit:
// the window reads it as a live job that says Syncing, with the file in
// progress in its details; Pause stops it, and Resume (Sync again)
// finishes it.
func TestSyncJobLive(t *testing.T) {
	t.Parallel()
	src := rstest.New(t)
	big := payload(2 << 20)
	src.Put("/big.bin", big)
	q := openQueue(t)
	b := newBackend(t, q)
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	s, err := b.Settings()
	if err != nil {
		t.Fatal(err)
	}
	s.SpeedLimit = 256 << 10
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	id, dir := addSyncSource(t, b, src.URL())
	if j, err := q.Get(int64(id)); err != nil || !j.Sync {
		t.Fatalf("job %d is not a sync job of the queue: %+v, %v", id, j, err)
	}
	jobsOf(t, b) // the window lists the queue when a job is added
	var live ui.Job
	testkit.WaitFor(t, "the sync to move bytes", func() bool {
		for _, j := range b.Active() {
			if j.ID == id {
				live = j
				return j.Done > 0
			}
		}
		return false
	})
	if live.State != ui.Running || !live.Sync || live.Size != int64(len(big)) {
		t.Errorf("live sync job %+v", live)
	}
	d, err := b.Detail(id, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) == 0 || d.Files[0].Name != "big.bin" || d.Files[0].State != ui.FileRunning {
		t.Errorf("the details of a running sync: %+v", d.Files)
	}

	if err := b.Pause(id); err != nil {
		t.Fatal(err)
	}
	if j := jobByID(t, b, id); j.State != ui.Paused || !strings.Contains(j.Err, "Sync again") {
		t.Errorf("paused sync: %+v", j)
	}
	if len(b.Active()) != 0 {
		t.Errorf("a paused sync is live: %+v", b.Active())
	}

	s.SpeedLimit = 0
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	if err := b.Resume(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the sync to finish", func() bool { return jobByID(t, b, id).State == ui.Synced })
	if got, err := os.ReadFile(filepath.Join(dir, "big.bin")); err != nil || len(got) != len(big) {
		t.Errorf("big.bin: %d bytes, %v", len(got), err)
	}
}
