package ui

import (
	"fmt"
	"fyne.io/fyne/v2/lang"
	"math"
	"strconv"
	"time"
)

// Sizes are shown in binary units (1 MiB = 1,048,576 bytes) with the short
// names people read them by, as file managers do.
var sizeUnits = []string{"B", "KB", "MB", "GB", "TB", "PB"}

// bytesText formats a byte count for a person: "0 B", "512 B", "1.5 MB",
// "40 GB"; "—" when unknown (negative).
func bytesText(n int64) string {
	if n < 0 {
		return "—"
	}
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, u := float64(n), 0
	for v >= 1024 && u < len(sizeUnits)-1 {
		v /= 1024
		u++
	}
	if v >= 100 {
		return fmt.Sprintf("%.0f %s", v, sizeUnits[u])
	}
	return fmt.Sprintf("%.1f %s", v, sizeUnits[u])
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

// count formats an integer with thousands separators: 1,024.
func count(n int) string {
	s := strconv.Itoa(n)
	neg := false
	if n < 0 {
		neg, s = true, s[1:]
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
