package ui

import (
	"fmt"
	"math"
	"sync"
	"time"

	"fyne.io/fyne/v2/lang"

	"braid/units"
)

// numbers writes sizes, rates and counts as the user's language writes
// numbers ("6,0 MiB" in German), with the binary units' IEC names, as
// the command line does (braid/units).
var numbers = sync.OnceValue(func() units.Format { return units.Parse(lang.SystemLocale().String()) })

// bytesText formats a byte count for a person: "0 B", "512 B", "1.5 MiB",
// "40 GiB"; "—" when unknown (negative).
func bytesText(n int64) string {
	if n < 0 {
		return "—"
	}
	return numbers().Bytes(n)
}

// speedText formats bytes per second; "" when there is no speed to show.
func speedText(bps float64) string {
	if bps < 1 || math.IsNaN(bps) || math.IsInf(bps, 0) {
		return ""
	}
	return bytesText(int64(bps)) + "/s"
}

// etaText formats time left: "42 s", "3 min", "1 h 12 min", "2 d 4 h";
// "" when unknown.
func etaText(d time.Duration) string {
	if d < 0 {
		return ""
	}
	s := int64(math.Ceil(d.Seconds()))
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		return fmt.Sprintf(lang.L("%d min"), (s+59)/60)
	case s < 86400:
		if m := (s % 3600) / 60; m > 0 {
			return fmt.Sprintf(lang.L("%d h %d min"), s/3600, m)
		}
		return fmt.Sprintf("%d h", s/3600)
	}
	if h := (s % 86400) / 3600; h > 0 {
		return fmt.Sprintf("%d d %d h", s/86400, h)
	}
	return fmt.Sprintf("%d d", s/86400)
}

// count formats an integer with the language's digit grouping: 1,024
// (German 1.024).
func count(n int) string { return numbers().Int(int64(n)) }
