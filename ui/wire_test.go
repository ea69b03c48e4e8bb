package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestSyncLooks: a sync job running says "Syncing", not "Downloading",
// and a finished one shows Synced with what it did.
func TestSyncLooks(t *testing.T) {
	test.NewTempApp(t)
	if got := lookOf(Job{State: Running, Sync: true}).Text; got != "Syncing" {
		t.Errorf("running sync: %q", got)
	}
	if got := lookOf(Job{State: Running}).Text; got != "Downloading" {
		t.Errorf("running download: %q", got)
	}
	if got := lookOf(Job{State: Synced, Sync: true, Outcome: "2 fetched, 5 kept"}).Text; got != "Synced: 2 fetched, 5 kept" {
		t.Errorf("synced: %q", got)
	}
}

func TestPathMatches(t *testing.T) {
	tests := []struct {
		filter, name string
		want         bool
	}{
		{"", "a/b.txt", true},
		{"data/", "data/x.csv", true},
		{"DATA", "data/x.csv", true},
		{"docs/", "data/x.csv", false},
		{"*.pdf", "papers/2024/a.pdf", true},
		{"papers/*.pdf", "papers/a.pdf", true},
		{"*.pdf", "papers/a.txt", false},
		{"[", "a[b", false}, // a bad pattern matches nothing rather than failing
	}
	for _, tt := range tests {
		if got := pathMatches(tt.filter, tt.name); got != tt.want {
			t.Errorf("pathMatches(%q, %q) = %v, want %v", tt.filter, tt.name, got, tt.want)
		}
	}
}
