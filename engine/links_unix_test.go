//go:build unix

package engine

import (
	"os"
	"testing"
)

// linkOutside makes link a symlink to target.
func linkOutside(t *testing.T, target, link string, _ bool) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
