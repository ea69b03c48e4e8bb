package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestListIsCurrent fails while the committed list differs from what the
// generator writes from go.mod today: a new or updated dependency needs
// `go run ./packaging/licences` (make licences) before it ships.
func TestListIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	want, err := generate(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(Output)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what go.mod's modules give (%d bytes, want %d): run `go run ./packaging/licences` from the repository's root", Output, len(got), len(want))
	}
}

// TestEveryModuleHasALicence checks that each module linked into braid, on
// Linux and on Windows, has at least one licence text in the list, and that
// the list is not padded with modules braid does not link.
func TestEveryModuleHasALicence(t *testing.T) {
	root := filepath.Join("..", "..")
	mods, err := linked(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) < 10 {
		t.Fatalf("only %d modules linked; go list's output was misread", len(mods))
	}
	text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(Output)))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]int{}
	for _, line := range strings.Split(string(text), "\n") {
		if title, ok := strings.CutPrefix(line, "==== "); ok {
			name, _, _ := strings.Cut(title, ": ")
			listed[name]++
		}
	}
	for _, m := range mods {
		name := m.path + " " + m.version
		if listed[name] == 0 {
			t.Errorf("%s is linked into braid and has no licence in %s", name, Output)
		}
		delete(listed, name)
	}
	delete(listed, "Go standard library")
	for name := range listed {
		t.Errorf("%s is in %s but not linked into braid", name, Output)
	}
	for _, m := range mods {
		ls, err := licences(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			if len(bytes.TrimSpace(l.text)) < 100 {
				t.Errorf("%s: %s is %d bytes, too short to be a licence", m.path, l.name, len(l.text))
			}
		}
	}
}
