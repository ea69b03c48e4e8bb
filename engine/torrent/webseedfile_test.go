package torrent

import (
	"errors"
	"testing"

	"braid/engine/torrent/torrenttest"
)

// TestWebSeedFile: a one-file torrent with web seeds is its file with the
// seeds as mirrors (a folder seed joined with the name, ftp left out) and
// its sha-1 pieces; several files, no http seed and no metadata are each
// their own error.
func TestWebSeedFile(t *testing.T) {
	data := []byte("0123456789abcdef0123456789abcdef0123456789")
	mi := torrenttest.Make(t, t.TempDir(), "a.zip", 16, []torrenttest.File{{Data: data}},
		"http://one.example/files/", "ftp://two.example/a.zip", "https://three.example/a.zip")
	f, err := specOf(t, mi).WebSeedFile()
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "a.zip" || f.Size != int64(len(data)) || f.Pieces == nil || f.Pieces.Type != "sha-1" || len(f.Pieces.Hashes) != 3 {
		t.Fatalf("file %+v", f)
	}
	if len(f.URLs) != 2 || f.URLs[0].URL != "http://one.example/files/a.zip" || f.URLs[1].URL != "https://three.example/a.zip" {
		t.Fatalf("mirrors %+v", f.URLs)
	}

	bare := torrenttest.Make(t, t.TempDir(), "b.zip", 16, []torrenttest.File{{Data: data}})
	if _, err := specOf(t, bare).WebSeedFile(); !errors.Is(err, ErrNoWebSeeds) {
		t.Errorf("no web seeds: %v", err)
	}
	multi := torrenttest.Make(t, t.TempDir(), "set", 16, []torrenttest.File{{Path: "a", Data: data}, {Path: "b", Data: data}}, "http://one.example/")
	var me *MultiFileError
	if _, err := specOf(t, multi).WebSeedFile(); !errors.As(err, &me) || me.Files != 2 {
		t.Errorf("two files: %v", err)
	}
	if _, err := (&Spec{Name: "magnet"}).WebSeedFile(); !errors.Is(err, ErrNotTorrent) {
		t.Errorf("no metadata: %v", err)
	}
}
