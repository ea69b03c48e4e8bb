package main

import (
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The window's and queue run's log: slog (which engine/torrent's clients
// take when given no logger) and the standard log package (Fyne's errors)
// write to braid.log in the state folder, a large old log is set aside,
// and closing restores the default.
func TestOpenLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, logName)
	if err := os.WriteFile(path, make([]byte, maxLog+1), 0o600); err != nil {
		t.Fatal(err)
	}
	before := slog.Default()
	closeLog, err := openLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	slog.Warn("tracker unreachable", "url", "http://tracker.invalid/announce")
	log.Print("fyne error: no display")
	closeLog()
	if slog.Default() != before {
		t.Fatal("the default logger was not restored")
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tracker unreachable", "http://tracker.invalid/announce", "fyne error: no display"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("braid.log lacks %q:\n%s", want, got)
		}
	}
	if fi, err := os.Stat(path + ".1"); err != nil || fi.Size() != maxLog+1 {
		t.Errorf("the old log was not set aside as braid.log.1: %v", err)
	}

	// A state folder the log cannot be made in: logs are dropped, and the
	// error says where.
	closeLog, err = openLog(filepath.Join(dir, "missing"))
	closeLog()
	if err == nil || !strings.Contains(err.Error(), logName) {
		t.Fatalf("err %v, want one naming %s", err, logName)
	}
}
