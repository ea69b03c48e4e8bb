package queue

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The queue is a store: resolving sources, checking signatures and
// reading the transport's errors are the runner's. No file of the package
// (for any system) imports the engine's packages that do them.
func TestStoreImportsNoPolicy(t *testing.T) {
	t.Parallel()
	banned := map[string]bool{"braid/engine/resolve": true, "braid/engine/transport": true, "braid/engine/signature": true}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		files++
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); banned[path] {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
	if files == 0 {
		t.Fatal("no source file of the package found")
	}
}
