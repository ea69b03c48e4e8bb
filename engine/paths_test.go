package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
)

// TestLongPath: a download into a deep folder whose path is far longer
// than Windows' old 260-character MAX_PATH, under a name that is itself
// long, lands and verifies. os.Root opens each name relative to its
// folder, so no whole path meets that limit.
func TestLongPath(t *testing.T) {
	t.Parallel()
	data := testkit.Data(300 << 10)
	m := mirrortest.New(t, data)
	dir := t.TempDir()
	for i := range 3 {
		dir = filepath.Join(dir, strings.Repeat(string(rune('a'+i)), 100))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil { // as the runner makes it
		t.Fatal(err)
	}
	name := strings.Repeat("n", 120) + "/" + strings.Repeat("f", 120) + ".bin"
	full := filepath.Join(dir, filepath.FromSlash(name))
	if len(full) <= 400 {
		t.Fatalf("the path is %d characters, want more than 400", len(full))
	}
	s, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor(name, data, 64<<10, m.URL())})
	if err != nil {
		t.Fatal(err)
	}
	if s.State != StateDone {
		t.Fatalf("state %s", s.State)
	}
	wantFile(t, dir, filepath.FromSlash(name), data)
}
