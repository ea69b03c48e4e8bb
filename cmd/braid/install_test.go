package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/platform"
)

// The desktop entry, the icon and the window must share the packaged
// app's ID, or desktops treat them as different applications.
func TestAppIDMatchesFyneApp(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "FyneApp.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && strings.TrimSpace(k) == "ID" {
			if id := strings.Trim(strings.TrimSpace(v), `"`); id != platform.AppID {
				t.Fatalf("FyneApp.toml ID = %q, platform.AppID = %q", id, platform.AppID)
			}
			return
		}
	}
	t.Fatal("FyneApp.toml has no ID")
}
