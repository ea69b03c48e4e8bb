package bridge

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/signature"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

// TestOneTruthPerOutcome: for each way a job can end, the queue row, the
// Files tab, the details' Info and `braid queue list` (queue.Job.Checked)
// say the same thing, read from the window's visible texts.
func TestOneTruthPerOutcome(t *testing.T) {
	q := openQueue(t)
	hashed := metalink.File{Name: "hashed.iso", Size: 1 << 20,
		Hashes: []metalink.Hash{{Type: "sha-256", Value: strings.Repeat("ab", 32)}}}
	plain := metalink.File{Name: "plain.bin", Size: 1 << 20}
	torrented := metalink.File{Name: "swarm.bin", Size: 1 << 20,
		MetaURLs: []metalink.MetaURL{{URL: "http://tracker.example/swarm.torrent", MediaType: "torrent"}}}
	signed := hashed
	signed.Name = "signed.iso"
	failed := plain
	failed.Name = "failed.bin"

	// Each job's file is in its folder, as a finished download leaves
	// it (a done file that is gone reads "Not in its folder").
	add := func(f metalink.File) int64 {
		t.Helper()
		dest := t.TempDir()
		if err := os.WriteFile(filepath.Join(dest, f.Name), make([]byte, f.Size), 0o644); err != nil {
			t.Fatal(err)
		}
		id, err := q.Add(queue.NewJob{Source: "http://example.org/" + f.Name, Dest: dest, Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	finish := func(id int64, name, by string) {
		t.Helper()
		if err := q.SetFile(id, name, queue.VerifiedBy(by)); err != nil {
			t.Fatal(err)
		}
		if _, err := q.Finish(id); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, file string
		id         int64
		row        string // the outcome the row, Files tab and Info say
		fileState  string // the Files tab's state column
	}{
		{name: "verified by hash", file: hashed.Name, row: "verified (sha-256)", fileState: "Verified"},
		{name: "verified by torrent pieces", file: torrented.Name, row: "verified (BitTorrent piece hashes)", fileState: "Verified"},
		{name: "not verified", file: plain.Name, row: "not verified (no hash published)", fileState: "Not verified"},
		{name: "signed", file: signed.Name, row: "signed by Alice Publisher", fileState: "Verified"},
		{name: "failed", file: failed.Name, row: "Failed", fileState: "Failed"},
	}
	cases[0].id = add(hashed)
	finish(cases[0].id, hashed.Name, "sha-256")
	cases[1].id = add(torrented)
	finish(cases[1].id, torrented.Name, queue.ByTorrent)
	cases[2].id = add(plain)
	finish(cases[2].id, plain.Name, "")
	cases[3].id = add(signed)
	finish(cases[3].id, signed.Name, "sha-256")
	if err := q.SetFile(cases[3].id, signed.Name, queue.Signed(runner.SignatureRecord(signature.Outcome{Status: signature.Good, Fingerprint: "ABCD", Signer: "Alice Publisher"}))); err != nil {
		t.Fatal(err)
	}
	cases[4].id = add(failed)
	if err := q.Fail(cases[4].id, errors.New("no usable mirror left")); err != nil {
		t.Fatal(err)
	}

	b := newBackend(t, q)
	w := newWindow(t, b)
	for _, c := range cases {
		j, err := q.Get(c.id)
		if err != nil {
			t.Fatal(err)
		}
		listed := j.Checked() // what `braid queue list` prints in CHECKED
		w.SelectJobs(ui.JobID(c.id))
		w.Tick()
		rows := strings.Join(ui.VisibleTexts(w.Win.Canvas()), "\n")
		w.Details.Tabs.Select(w.Details.FilesTab)
		w.Tick()
		files := ui.VisibleTexts(w.Win.Canvas())
		info := infoText(w)

		rowLine := lineWith(rows, c.file)
		switch c.name {
		case "failed":
			if listed != "" || !strings.HasPrefix(stateOf(rowLine), "Failed") || strings.Contains(info, "verified (") {
				t.Errorf("%s: list %q, row %q, info %q", c.name, listed, rowLine, info)
			}
		case "signed":
			if !strings.Contains(rowLine, "Done · "+c.row) || listed != "verified (sha-256)" ||
				!strings.Contains(info, "Alice Publisher") || !strings.Contains(info, listed) {
				t.Errorf("%s: list %q, row %q, info %q", c.name, listed, rowLine, info)
			}
		default:
			if listed != c.row {
				t.Errorf("%s: queue list says %q, want %q", c.name, listed, c.row)
			}
			if !strings.Contains(rowLine, "Done · "+listed) {
				t.Errorf("%s: the row says %q, the queue list %q", c.name, rowLine, listed)
			}
			// Info says it twice: the job's outcome and the file's
			// verification, in the same words.
			if strings.Count(info, listed) < 2 {
				t.Errorf("%s: Info does not say %q for the job and the file:\n%s", c.name, listed, info)
			}
		}
		if !slices.Contains(files, c.fileState) {
			t.Errorf("%s: the Files tab does not say %q: %q", c.name, c.fileState, files)
		}
		if c.fileState != "Verified" && slices.Contains(files, "Verified") {
			t.Errorf("%s: the Files tab says Verified: %q", c.name, files)
		}
		if c.name == "verified by torrent pieces" && strings.Contains(info, "cannot be verified") {
			t.Errorf("%s: Info says the file cannot be verified:\n%s", c.name, info)
		}
	}
}

// lineWith is the first line of texts that names name, and the lines
// after it up to the next row's name (a row's cells are read in order).
func lineWith(texts, name string) string {
	lines := strings.Split(texts, "\n")
	for i, l := range lines {
		if l == name {
			return strings.Join(lines[i:min(len(lines), i+8)], " | ")
		}
	}
	return ""
}

// stateOf is the state cell of a row read by lineWith.
func stateOf(row string) string {
	for _, cell := range strings.Split(row, " | ") {
		if strings.HasPrefix(cell, "Failed") || strings.HasPrefix(cell, "Done") {
			return cell
		}
	}
	return ""
}
