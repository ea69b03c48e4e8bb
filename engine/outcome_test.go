package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
)

func TestOutcomeSaysWhichHash(t *testing.T) {
	t.Parallel()
	data := testkit.Data(300 << 10)
	m := mirrortest.New(t, data)
	whole := fileFor("w.bin", data, 0, m.URL())
	pieces := fileFor("p.bin", data, 64<<10, m.URL())
	pieces.Hashes = nil
	none := fileFor("n.bin", data, 0, m.URL())
	none.Hashes = nil
	tests := []struct {
		name string
		req  *Request
		want Outcome
		by   string
		text string
	}{
		{"whole-file hash", &Request{File: whole}, OutcomeVerified, "sha-256", "verified (sha-256)"},
		{"piece hashes only", &Request{File: pieces}, OutcomeVerified, "sha-256 pieces", "verified (sha-256 piece hashes)"},
		{"no hash", &Request{File: none}, OutcomeNotVerified, "", "not verified (no hash published)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Dir = t.TempDir()
			snap, err := get(t, &Client{}, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if snap.Outcome() != tc.want || snap.VerifiedBy != tc.by {
				t.Fatalf("outcome %s by %q, want %s by %q", snap.Outcome(), snap.VerifiedBy, tc.want, tc.by)
			}
			if got := OutcomeText(snap.Outcome(), snap.VerifiedBy); got != tc.text {
				t.Fatalf("text %q, want %q", got, tc.text)
			}
			wantFile(t, tc.req.Dir, tc.req.File.Name, data)
		})
	}
	t.Run("failed", func(t *testing.T) {
		bad := whole
		bad.Hashes = append(bad.Hashes[:0:0], bad.Hashes...)
		bad.Hashes[0].Value = "00" + bad.Hashes[0].Value[2:]
		snap, err := get(t, &Client{}, &Request{Dir: t.TempDir(), File: bad})
		if err == nil || snap.Outcome() != OutcomeFailed || OutcomeText(snap.Outcome(), snap.VerifiedBy) != "failed" {
			t.Fatalf("err %v, outcome %s", err, snap.Outcome())
		}
	})
}

// A file already at the name with the same size, but nothing published to
// prove it is this one, is not passed off as the download.
func TestExistingWithoutHashIsNotTaken(t *testing.T) {
	t.Parallel()
	data := testkit.Data(200 << 10)
	m := mirrortest.New(t, data)
	f := fileFor("f.bin", data, 0, m.URL())
	f.Hashes = nil
	dir := t.TempDir()
	other := testkit.Data(200<<10 + 1)[:200<<10]
	os.WriteFile(filepath.Join(dir, "f.bin"), other, 0o644)
	snap, err := get(t, &Client{}, &Request{Dir: dir, File: f})
	if err != nil {
		t.Fatal(err)
	}
	if snap.SavedAs != "f (1).bin" || snap.Outcome() != OutcomeNotVerified || m.BytesServed() < int64(len(data)) {
		t.Fatalf("saved as %q, outcome %s, served %d", snap.SavedAs, snap.Outcome(), m.BytesServed())
	}
	wantFile(t, dir, "f (1).bin", data)
	if got, _ := os.ReadFile(filepath.Join(dir, "f.bin")); string(got) != string(other) {
		t.Fatal("existing file was changed")
	}
}

// Two downloads that want the same name at once both land.
func TestSameNameAtOnce(t *testing.T) {
	t.Parallel()
	a, b := testkit.Data(500<<10), testkit.Data(500<<10+7)
	ma, mb := mirrortest.New(t, a), mirrortest.New(t, b)
	fa, fb := fileFor("f.bin", a, 0, ma.URL()), fileFor("f.bin", b, 0, mb.URL())
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := &Client{}
	da := c.Do(ctx, &Request{Dir: dir, File: fa})
	db := c.Do(ctx, &Request{Dir: dir, File: fb})
	if err := da.Err(); err != nil {
		t.Fatal(err)
	}
	if err := db.Err(); err != nil {
		t.Fatal(err)
	}
	sa, sb := da.Snapshot(), db.Snapshot()
	if sa.SavedAs == sb.SavedAs {
		t.Fatalf("both saved as %q", sa.SavedAs)
	}
	wantFile(t, dir, sa.SavedAs, a)
	wantFile(t, dir, sb.SavedAs, b)
}

// A file that another program puts at the name during the download is
// left alone: the download lands at a free name and says so.
func TestNameTakenDuringDownload(t *testing.T) {
	t.Parallel()
	data := testkit.Data(256 << 10)
	m := mirrortest.New(t, data, mirrortest.Rate(512<<10)) // about half a second
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dl := (&Client{}).Do(ctx, &Request{Dir: dir, File: fileFor("f.bin", data, 0, m.URL())})
	for m.BytesServed() == 0 {
		select {
		case <-dl.Done():
			t.Fatal("the download ended before the test could take its name")
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "f.bin"), []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	s := dl.Snapshot()
	if s.SavedAs != "f (1).bin" || s.Note == "" || s.Outcome() != OutcomeVerified {
		t.Fatalf("saved as %q, note %q, outcome %s", s.SavedAs, s.Note, s.Outcome())
	}
	wantFile(t, dir, "f (1).bin", data)
	if got, _ := os.ReadFile(filepath.Join(dir, "f.bin")); string(got) != "theirs" {
		t.Error("the other program's file was changed")
	}
}
