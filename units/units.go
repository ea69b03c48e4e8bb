// Package units writes byte counts, rates and counts for people, the
// same way in the window and on the command line: binary sizes with
// their IEC names (1 KiB = 1,024 bytes, 1 MiB = 1,048,576), as a file of
// 62,914,560 bytes is 60 MiB and not 60 MB, with the number written as
// the reader's language writes numbers ("6.0 MiB", German "6,0 MiB").
// Machine faces (--json, the RPC server) give raw byte counts instead.
package units

import (
	"strconv"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// names are the binary units, each 1,024 times the one before.
var names = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

// Format writes numbers as one language does. The zero Format writes
// them as English does. It is safe for concurrent use.
type Format struct {
	p *message.Printer
}

// English writes numbers as English does: "1,024", "6.0 MiB".
var English = For(language.English)

// For is the Format of language tag t.
func For(t language.Tag) Format { return Format{message.NewPrinter(t)} }

// Parse is the Format of a locale name such as "de-DE", "de_DE.UTF-8" or
// "C"; English when the name does not read as a language.
func Parse(locale string) Format {
	for i, c := range locale {
		if c == '.' || c == '@' {
			locale = locale[:i]
			break
		}
	}
	t, err := language.Parse(locale)
	if err != nil || t == language.Und {
		return English
	}
	return For(t)
}

func (f Format) printer() *message.Printer {
	if f.p == nil {
		return English.p
	}
	return f.p
}

// Bytes is n bytes for reading at a glance: "512 B", "1.5 KiB", "60.0
// MiB", "140 MiB" (one decimal below 100, none from 100). n must not be
// negative: each face says "unknown" its own way.
func (f Format) Bytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, u := float64(n), 0
	for v >= 1024 && u < len(names)-1 {
		v /= 1024
		u++
	}
	if v >= 99.95 {
		return f.printer().Sprintf("%.0f %s", v, names[u])
	}
	return f.printer().Sprintf("%.1f %s", v, names[u])
}

// Rate is bytes per second as Bytes writes them, with "/s": "199 KiB/s".
func (f Format) Rate(bps int64) string { return f.Bytes(bps) + "/s" }

// Int is n with the language's digit grouping: "62,914,560", German
// "62.914.560".
func (f Format) Int(n int64) string { return f.printer().Sprintf("%d", n) }
