package runner

import (
	"os"
	"path/filepath"
	"testing"

	"braid/queue"
	"braid/queue/queuetest"
)

// TestSortDest: a job added to the download folder goes to its
// category's folder, made on the way; one given another folder, or with
// files of no single category, stays where it was sent.
func TestSortDest(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dl := t.TempDir()
	if err := q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = dl }); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	for _, tc := range []struct {
		dest          string
		names         []string
		want, wantCat string
	}{
		{dl, []string{"film.mkv"}, filepath.Join(dl, "Video"), "Video"},
		{dl + "/", []string{"a.flac", "b.ogg"}, filepath.Join(dl, "Audio"), "Audio"},
		{other, []string{"film.mkv"}, other, ""},
		{dl, []string{"film.mkv", "a.pdf"}, dl, ""},
		{dl, []string{"data.bin"}, dl, ""},
	} {
		dir, cat := sortDest(q, tc.dest, tc.names)
		if dir != tc.want || cat != tc.wantCat {
			t.Errorf("sortDest(%s, %q) = %s, %q; want %s, %q", tc.dest, tc.names, dir, cat, tc.want, tc.wantCat)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Errorf("%s was not made: %v", dir, err)
		}
	}
	// A category folder that cannot be made: the download folder.
	blocker := filepath.Join(dl, "Documents")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir, cat := sortDest(q, dl, []string{"a.pdf"}); dir != dl || cat != "" {
		t.Errorf("with a file where the folder goes: %s, %q", dir, cat)
	}
}
