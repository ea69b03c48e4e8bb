package metalink

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// maxNameBytes bounds a whole name; every OS Braid runs on refuses
	// longer paths somewhere.
	maxNameBytes = 4096
	// maxElementBytes is the common file-system limit for one path element.
	maxElementBytes = 255
)

// SafeName is the one check every server-supplied path goes through before
// anything is written under it: Metalink file and metaurl names, and the
// names from Content-Disposition headers. A safe name is a relative,
// slash-separated path that stays inside the download folder and can be
// created on Linux, macOS and Windows alike.
//
// It refuses: an empty or over-long name; invalid UTF-8; an absolute path
// ("/etc/passwd"); a drive letter ("C:x"); a backslash; control characters
// (C0, DEL, C1); characters Windows forbids (< > : " | ? *); invisible
// formatting characters such as U+202E RIGHT-TO-LEFT OVERRIDE that can
// disguise an extension; and, in any path element, "", ".", "..", a name
// made only of dots and spaces, a trailing dot or space (Windows drops them,
// so "..." or ".. " can turn into ".."), an element longer than 255 bytes,
// and Windows device names (CON, PRN, AUX, NUL, COM0-9, LPT0-9, ...) with or
// without an extension, in any case.
//
// The error is a *NameError that names the file and the rule it breaks; it
// wraps ErrUnsafeName. SafeName is safe for concurrent use.
func SafeName(name string) error {
	bad := func(format string, args ...any) error {
		return &NameError{Name: name, Rule: fmt.Sprintf(format, args...)}
	}
	switch {
	case name == "":
		return bad("the name is empty")
	case len(name) > maxNameBytes:
		return bad("the name is longer than %d bytes", maxNameBytes)
	case !utf8.ValidString(name):
		return bad("the name is not valid UTF-8")
	case name[0] == '/':
		return bad("an absolute path would be written outside the download folder")
	case len(name) >= 2 && name[1] == ':' && isASCIILetter(name[0]):
		return bad("a drive letter (%s) would be written outside the download folder", name[:2])
	}
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			return bad("it contains the control character %U", r)
		case r == '\\':
			return bad(`it contains a backslash, which Windows reads as a folder separator`)
		case r == ':':
			return bad("it contains a colon, which Windows reads as a drive letter or an alternate data stream")
		case strings.ContainsRune(`<>"|?*`, r):
			return bad("it contains %q, which Windows does not allow in file names", r)
		case r >= 0xa0 && isInvisible(r):
			return bad("it contains the invisible character %U, which can disguise the name", r)
		}
	}
	for elem := range strings.SplitSeq(name, "/") {
		switch {
		case elem == "":
			return bad(`it has an empty path element ("//" or a trailing "/")`)
		case elem == ".":
			return bad(`it has a "." path element`)
		case elem == "..":
			return bad(`a ".." path element would climb out of the download folder`)
		case strings.Trim(elem, ". ") == "":
			return bad("the path element %q is only dots and spaces, which Windows trims to nothing or \"..\"", elem)
		case strings.HasSuffix(elem, ".") || strings.HasSuffix(elem, " "):
			return bad("the path element %q ends in a dot or a space, which Windows drops", elem)
		case len(elem) > maxElementBytes:
			return bad("a path element is longer than %d bytes", maxElementBytes)
		case isReservedOnWindows(elem):
			return bad("%q is a device name on Windows", elem)
		}
	}
	return nil
}

func isASCIILetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// isInvisible reports format characters (Unicode category Cf: bidi
// overrides and isolates, zero-width spaces, the BOM, soft hyphen, ...) and
// line or paragraph separators. ZWNJ and ZWJ stay allowed: some scripts
// need them to be spelled correctly.
func isInvisible(r rune) bool {
	if r == '\u200c' || r == '\u200d' {
		return false
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// windowsDevices are the names Windows maps to devices whatever the folder
// or extension ("CON.txt", "aux.tar.gz"), in any case. COM and LPT take a
// digit, and the superscript digits count as digits there too.
var windowsDevices = []string{"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$"}

func isReservedOnWindows(elem string) bool {
	base, _, _ := strings.Cut(elem, ".")
	base = strings.TrimRight(base, " ")
	if len(base) < 3 || len(base) > len("CONOUT$") {
		return false
	}
	for _, d := range windowsDevices {
		if strings.EqualFold(base, d) {
			return true
		}
	}
	if !strings.EqualFold(base[:3], "COM") && !strings.EqualFold(base[:3], "LPT") {
		return false
	}
	switch base[3:] {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}

// Numbered returns the n-th alternative to name for a file whose name is
// taken, the way browsers number a download: "f.bin" → "f (1).bin",
// "a.tar.gz" → "a (1).tar.gz", "dir/README" → "dir/README (1)".
func Numbered(name string, n int) string {
	dir, base := path.Split(name)
	stem, ext := base, ""
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		stem, ext = base[:i], base[i:]
		if j := strings.LastIndexByte(stem, '.'); j > 0 && strings.EqualFold(stem[j:], ".tar") {
			stem, ext = stem[:j], stem[j:]+ext
		}
	}
	return fmt.Sprintf("%s%s (%d)%s", dir, stem, n, ext)
}
