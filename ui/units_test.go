package ui

import (
	"testing"

	"golang.org/x/text/language"

	"braid/units"
)

// TestNumbersInTheUsersLanguage: sizes, speeds and counts in the window
// carry the binary units' IEC names (62,914,560 bytes are 60 MiB, not
// "60 MB") and are written as the user's language writes numbers.
func TestNumbersInTheUsersLanguage(t *testing.T) {
	was := numbers
	t.Cleanup(func() { numbers = was })
	for _, c := range []struct {
		lang               language.Tag
		size, speed, bytes string
	}{
		{language.English, "60.0 MiB", "199 KiB/s", "62,914,560"},
		{language.German, "60,0 MiB", "199 KiB/s", "62.914.560"},
	} {
		numbers = func() units.Format { return units.For(c.lang) }
		if got := bytesText(60 << 20); got != c.size {
			t.Errorf("%v: bytesText = %q, want %q", c.lang, got, c.size)
		}
		if got := speedText(203776); got != c.speed {
			t.Errorf("%v: speedText = %q, want %q", c.lang, got, c.speed)
		}
		if got := count(62914560); got != c.bytes {
			t.Errorf("%v: count = %q, want %q", c.lang, got, c.bytes)
		}
		// What the rate field shows reads back.
		if bps, err := ParseRate(rateText(1536 << 10)); err != nil || bps != 1536<<10 {
			t.Errorf("%v: %q reads back as %d, %v", c.lang, rateText(1536<<10), bps, err)
		}
	}
}
