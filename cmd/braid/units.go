package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"braid/units"
)

// byteText is a byte count in binary units, for reading at a glance,
// written as the window writes it (braid/units): 1023 B, 1.5 KiB, 102
// MiB. A negative count (unknown) is "?". The command line speaks
// English, and writes its numbers so.
func byteText(n int64) string {
	if n < 0 {
		return "?"
	}
	return units.English.Bytes(n)
}

// sizeOrUnknown is byteText for a file's size, which may not be known.
func sizeOrUnknown(n int64) string {
	if n < 0 {
		return "unknown size"
	}
	return byteText(n)
}

// parseRate reads a rate such as 500K, 10M, 1.5G or 2000 (bytes per
// second); K, M and G are powers of 1024, and a trailing B, iB or /s is
// allowed.
func parseRate(s string) (int64, error) {
	v := strings.TrimSpace(s)
	if v == "" {
		return 0, nil
	}
	v = strings.TrimSuffix(v, "/s")
	v = strings.TrimSuffix(strings.TrimSuffix(v, "B"), "i")
	mult := 1.0
	if n := len(v); n > 0 {
		switch v[n-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		}
		if mult > 1 {
			v = v[:n-1]
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f*mult > 1<<62 {
		return 0, fmt.Errorf("%q is not a rate such as 500K or 10M", s)
	}
	return int64(f * mult), nil
}
