package ui

import (
	"strings"
	"testing"
)

// TestQuitTextSaysWhatRunsAndSeeds checks the quit dialog's words for
// each mix of what is live: only what is there is named, the title and
// the body speak of the same things, and seeding is never called a
// download.
func TestQuitTextSaysWhatRunsAndSeeds(t *testing.T) {
	LoadTranslations()
	for _, tt := range []struct {
		name        string
		t           Totals
		title, body string
	}{
		{"nothing", Totals{Done: 3}, "", ""},
		{"only seeding", Totals{Seeding: 1, Live: true}, "Quit while seeding?",
			"1 torrent seeding.\nQuitting stops the seeding; it goes on when Braid starts again."},
		{"downloads", Totals{Running: 2, Queued: 1, Live: true}, "Quit while downloading?",
			"2 downloads running, 1 download queued.\nQuitting pauses the running downloads and keeps what they fetched; Resume continues them where they left off.\nQueued downloads stay queued."},
		{"both", Totals{Running: 1, Waiting: 1, Seeding: 2, Live: true}, "Quit while downloading and seeding?",
			"1 download running, 1 download waiting to try again, 2 torrents seeding.\nQuitting pauses the running downloads and keeps what they fetched; Resume continues them where they left off.\nQuitting stops the seeding; it goes on when Braid starts again."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			title, body := quitText(tt.t)
			if title != tt.title || body != tt.body {
				t.Errorf("quitText = %q,\n%q\nwant %q,\n%q", title, body, tt.title, tt.body)
			}
			if tt.t.Seeding == 0 && strings.Contains(title+body, "seed") {
				t.Errorf("nothing seeds, and the dialog speaks of seeding: %q %q", title, body)
			}
		})
	}
}
