// Package peercorpus finds, for tests, the peer corpus: other projects'
// own Metalink and ResourceSync test documents (aria2, libmetalink,
// librepo, curl, wget2, pymetalink, resync), collected with their origins
// in MANIFEST.tsv beside the repository (../shared/peer-corpus from its
// root). It is not copied into the repository: Dir finds it there, or
// where BRAID_PEER_CORPUS says, and skips the test when it is absent.
package peercorpus

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Dir returns the corpus folder, or skips the test.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("BRAID_PEER_CORPUS")
	if dir == "" {
		root, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
				break
			}
			up := filepath.Dir(root)
			if up == root {
				t.Skip("peer corpus: no go.mod above the test; cannot find ../shared/peer-corpus")
			}
			root = up
		}
		dir = filepath.Join(root, "..", "shared", "peer-corpus")
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.tsv")); err != nil {
		t.Skipf("peer corpus not found at %s (CI clones shared/ beside the repository; BRAID_PEER_CORPUS names another place): %v", dir, err)
	}
	return dir
}

// Entry is one line of MANIFEST.tsv: a corpus file and where it came
// from.
type Entry struct {
	File, Repo, Path, Commit, How, Note string
}

// Manifest reads dir's MANIFEST.tsv, keeping the entries whose file is
// under prefix ("metalink/", "resourcesync/"; "" for all). A manifest with
// nothing there fails the test.
func Manifest(t testing.TB, dir, prefix string) []Entry {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		for len(c) < 6 {
			c = append(c, "")
		}
		if strings.HasPrefix(c[0], prefix) {
			out = append(out, Entry{c[0], c[1], c[2], c[3], c[4], c[5]})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("MANIFEST.tsv lists nothing under %q", prefix)
	}
	return out
}

// Files is Manifest's file names.
func Files(t testing.TB, dir, prefix string) []string {
	t.Helper()
	var out []string
	for _, e := range Manifest(t, dir, prefix) {
		out = append(out, e.File)
	}
	return out
}
