package metalink

import (
	"errors"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSafeName(t *testing.T) {
	tests := []struct {
		name string
		rule string // part of the refusal; "" for a safe name
	}{
		// Safe: what real documents hold.
		{"example.ext", ""},
		{"debian-amd64/sarge/Contents-amd64.gz", ""},
		{"openSUSE-Leap-15.6-NET-x86_64-Media.iso", ""},
		{"café-crème.pdf", ""},
		{"日本語/ファイル.txt", ""},
		{"with space.txt", ""},
		{".hidden", ""},
		{"a..b", ""},
		{"..a", ""},
		{"CONSOLE.txt", ""},
		{"COM10", ""},
		{"lpt", ""},
		{"نیم\u200cفاصله.txt", ""}, // ZWNJ, which Persian needs
		{strings.Repeat("a", 255), ""},

		// Traversal and absolute paths.
		{"../../etc/passwd", `".." path element`},
		{"..", `".." path element`},
		{"a/../../b", `".." path element`},
		{"a/..", `".." path element`},
		{"/etc/passwd", "absolute path"},
		{"//server/share/x", "absolute path"},
		{"C:\\Windows\\x", "drive letter (C:)"},
		{"c:x", "drive letter (c:)"},
		{"..\\..\\x", "backslash"},
		{"a\\b", "backslash"},
		{"file.txt:stream", "colon"},
		{"./a", `"." path element`},
		{"a/./b", `"." path element`},
		{"a//b", "empty path element"},
		{"a/", "empty path element"},
		{"", "empty"},

		// Dots and spaces that Windows trims away.
		{"...", "only dots and spaces"},
		{".. ", "only dots and spaces"},
		{"a/. /b", "only dots and spaces"},
		{"name.", "ends in a dot or a space"},
		{"name ", "ends in a dot or a space"},
		{"dir./file", "ends in a dot or a space"},

		// Control and invisible characters.
		{"\x00", "control character U+0000"},
		{"a\x00b", "control character U+0000"},
		{"tab\tname", "control character U+0009"},
		{"line\nbreak", "control character U+000A"},
		{"del\x7f", "control character U+007F"},
		{"c1\u0085", "control character U+0085"},
		{"foo/\u202egnp.exe", "invisible character U+202E"},
		{"invoice\u202efdp.exe", "invisible character U+202E"},
		{"zero\u200bwidth", "invisible character U+200B"},
		{"bom\ufefffile", "invisible character U+FEFF"},
		{"iso\u2066late", "invisible character U+2066"},
		{"line\u2028sep", "invisible character U+2028"},
		{"bad\xffutf8", "not valid UTF-8"},

		// Characters Windows refuses.
		{"what?.txt", `'?', which Windows does not allow`},
		{"star*.txt", `'*'`},
		{"pipe|x", `'|'`},
		{`quote".txt`, `'"'`},
		{"a<b>c", `'<'`},

		// Windows device names, any case, any extension, any folder.
		{"CON", "device name"},
		{"con.txt", "device name"},
		{"CON.txt", "device name"},
		{"Aux.tar.gz", "device name"},
		{"dir/NUL", "device name"},
		{"prn/x", "device name"},
		{"COM1", "device name"},
		{"com9.log", "device name"},
		{"LPT1", "device name"},
		{"lpt0.txt", "device name"},
		{"COM¹", "device name"},
		{"CONIN$", "device name"},
		{"nul .txt", "device name"},

		// Size.
		{strings.Repeat("a", 256), "longer than 255 bytes"},
		{strings.Repeat("a/", 2100) + "a", "longer than 4096 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := SafeName(tt.name)
			if tt.rule == "" {
				if err != nil {
					t.Fatalf("SafeName(%q) = %v, want nil", tt.name, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("SafeName(%q) = nil, want a refusal about %s", tt.name, tt.rule)
			}
			if !errors.Is(err, ErrUnsafeName) {
				t.Errorf("error %v does not wrap ErrUnsafeName", err)
			}
			var ne *NameError
			if !errors.As(err, &ne) || ne.Name != tt.name {
				t.Errorf("error %v is not a *NameError naming the file", err)
			}
			if !strings.Contains(err.Error(), tt.rule) {
				t.Errorf("error %q does not explain %q", err, tt.rule)
			}
			if strings.ContainsAny(err.Error(), "\x00\n\u202e") {
				t.Errorf("error %q carries the raw hostile characters; it must quote them", err)
			}
		})
	}
}

// TestHostileNamesDocument: unsafe and clashing names are refused one by
// one with a reason that names them; the good files of the document stay.
func TestHostileNamesDocument(t *testing.T) {
	doc := parseTestdata(t, "hostile-names.meta4")
	want := &Document{
		Version: 4,
		Files: []File{
			{Name: "good/one.iso", Size: -1, URLs: []URL{mirror("http://example.com/one.iso", "", LowestPriority)}},
			{Name: "good/three.iso", Size: -1, URLs: []URL{mirror("http://example.com/three.iso", "", LowestPriority)}},
		},
		Rejected: []Rejected{
			{"../../etc/passwd", `unsafe file name "../../etc/passwd": a ".." path element would climb out of the download folder`},
			{"/etc/passwd", `unsafe file name "/etc/passwd": an absolute path would be written outside the download folder`},
			{`C:\Windows\System32\evil.dll`, `unsafe file name "C:\\Windows\\System32\\evil.dll": a drive letter (C:) would be written outside the download folder`},
			{"a/../../b", `unsafe file name "a/../../b": a ".." path element would climb out of the download folder`},
			{`..\..\x`, `unsafe file name "..\\..\\x": it contains a backslash, which Windows reads as a folder separator`},
			{"CON.txt", `unsafe file name "CON.txt": "CON.txt" is a device name on Windows`},
			{"invoice\u202efdp.exe", `unsafe file name "invoice\u202efdp.exe": it contains the invisible character U+202E, which can disguise the name`},
			{"tab\tname", `unsafe file name "tab\tname": it contains the control character U+0009`},
			{"", "the <file> on line 14 has no name"},
			{"", "the <file> on line 15 has no name"},
			{"good/two.iso", `its metaurl names an unsafe path inside the torrent: unsafe file name "../../.bashrc": a ".." path element would climb out of the download folder`},
			{"good/one.iso", `duplicate name: an earlier file of the document is also called "good/one.iso"`},
			{"GOOD/ONE.ISO", `duplicate name: an earlier file is called "good/one.iso", which differs only in case and is the same file on Windows and macOS`},
			{"good", `name clash: the earlier file "good/one.iso" needs a folder with this name`},
			{"good/one.iso/inner", `name clash: the earlier file "good/one.iso" is where this file needs a folder`},
		},
	}
	checkDoc(t, doc, want)
}

// FuzzSafeName: whatever SafeName accepts is a clean, local, portable path.
func FuzzSafeName(f *testing.F) {
	for _, s := range []string{
		"a", "a/b", "../x", "/x", "C:\\x", "CON.txt", "a//b", "...", "a\u202eb",
		"debian-amd64/sarge/Contents-amd64.gz", "x.", "com¹", "\x00", "日本/語",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := SafeName(name)
		if err != nil {
			var ne *NameError
			if !errors.As(err, &ne) || ne.Name != name || !errors.Is(err, ErrUnsafeName) {
				t.Fatalf("SafeName(%q) = %v: not a *NameError for this name", name, err)
			}
			return
		}
		switch {
		case !utf8.ValidString(name):
			t.Fatalf("accepted invalid UTF-8 %q", name)
		case path.Clean(name) != name:
			t.Fatalf("accepted %q, which path.Clean changes to %q", name, path.Clean(name))
		case !filepath.IsLocal(filepath.FromSlash(name)):
			t.Fatalf("accepted %q, which is not local", name)
		case strings.ContainsAny(name, "\\:\x00"):
			t.Fatalf("accepted %q with a separator or NUL", name)
		}
		for elem := range strings.SplitSeq(name, "/") {
			if elem == ".." || elem == "." || elem == "" || isReservedOnWindows(elem) ||
				strings.HasSuffix(elem, ".") || strings.HasSuffix(elem, " ") {
				t.Fatalf("accepted %q with the element %q", name, elem)
			}
		}
		for _, r := range name {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isInvisible(r) {
				t.Fatalf("accepted %q with %U", name, r)
			}
		}
	})
}

// TestClashAgreesWithClaim: the two forms of the duplicate and folder
// check (Parse's nameTree, write.go's clash) give the same verdicts.
func TestClashAgreesWithClaim(t *testing.T) {
	names := []string{
		"a/b/c.iso", "a/b/c.iso", "A/B/C.ISO", "a/b", "a", "a/b/c.iso/d", "a/b/d.iso",
		"x", "x/y", "X", "y/z", "y/z/w", "y", "deep/" + strings.Repeat("d/", 50) + "f",
		"deep/" + strings.Repeat("d/", 50) + "f/g", "deep/d", "Deep/D/D",
	}
	var tree nameTree
	taken, dirs := map[string]string{}, map[string]string{}
	accepted := 0
	for _, n := range names {
		want := clash(n, taken, dirs)
		if got := tree.claim(n); got != want {
			t.Errorf("%q: claim says %q, clash says %q", n, got, want)
		}
		if want == "" {
			accepted++
		}
	}
	if accepted != 5 {
		t.Errorf("%d names accepted, want 5 (a/b/c.iso, a/b/d.iso, x, y/z and the deep file)", accepted)
	}
}

func TestNumbered(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"f.bin":          "f (2).bin",
		"a.tar.gz":       "a (2).tar.gz",
		"dir/README":     "dir/README (2)",
		".hidden":        ".hidden (2)",
		"d.x/archive.7z": "d.x/archive (2).7z",
	} {
		if got := Numbered(in, 2); got != want {
			t.Errorf("Numbered(%q) = %q, want %q", in, got, want)
		}
	}
}
