package ui

import (
	"encoding/json"
	"fmt"
	"os/exec"

	"fyne.io/fyne/v2/lang"

	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// technical are literals in ui/ that a person never reads as words:
// parse keywords, URL schemes, file extensions, unit names and the app's
// name. Everything else with a word in it goes through lang.L.
var technical = map[string]bool{
	"Braid": true, "B": true, "KB": true, "MB": true, "GB": true, "TB": true, "PB": true,
	"HH:MM": true, "Mon 15:04": true, "Ctrl+N": true, "Ctrl+O": true, "Ctrl+V": true, "Ctrl+P": true, "Ctrl+R": true,
	"Ctrl+A": true, "Ctrl+↑": true, "Ctrl+↓": true, "Ctrl+Home": true, "Ctrl+End": true, "Ctrl+E": true,
	"Ctrl+Shift+C": true, "Ctrl+F": true, "Ctrl+L": true, "Ctrl+,": true, "F1": true, "Ctrl+Q": true,
	"no limit": true, "none": true, "unlimited": true, "ps": true, // keywords ParseRate accepts
	"gib": true, "gb": true, "mib": true, "mb": true, "kib": true, "kb": true,
	"http": true, "https": true, "ftp": true, "file": true, // URL schemes
	"windows": true, "darwin": true, "DBUS_SESSION_BUS_ADDRESS": true, // runtime.GOOS, environment
	"DISPLAY": true, "WAYLAND_DISPLAY": true, "BRAID_FILE_DIALOG": true, "fyne": true, // the file chooser's environment
	"Range":    true,                                              // an HTTP header the bridge sends
	"starting": true,                                              // the bridge's marker of a check about to begin, never shown
	"theme":    true, "system": true, "light": true, "dark": true, // preference key and values, never shown
	"true": true, // a build setting's value
}

// isTechnical reports whether a literal is a scheme, path, extension,
// format or key rather than words: no space, not capitalised, and a
// character words do not have. A lone lower-case word such as "file" is
// read by people and must be translated, unless listed in technical.
func isTechnical(s string) bool {
	if technical[s] || strings.ContainsFunc(s, unicode.IsSpace) {
		return technical[s]
	}
	r, _ := utf8.DecodeRuneInString(s)
	return !unicode.IsUpper(r) && strings.ContainsAny(s, ".:/_%=?+#@-")
}

func hasWord(s string) bool {
	run := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			run++
			if run >= 2 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// untranslated walks the Go files of dir and returns the string literals
// a user could read that do not go through lang.L, lang.X, lang.N or
// lang.XN, as file:line: text.
func untranslated(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	eachSource(t, dir, func(fset *token.FileSet, f *ast.File) {
		translated := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ImportSpec:
				return false
			case *ast.Field:
				if n.Tag != nil {
					translated[n.Tag] = true
				}
			case *ast.CallExpr:
				// countL translates its key; a regular expression is
				// never read as words.
				if isCountL(n) {
					if lit, ok := n.Args[0].(*ast.BasicLit); ok {
						translated[lit] = true
					}
				}
				if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "countL" || id.Name == "engineKey") {
					if lit, ok := n.Args[0].(*ast.BasicLit); ok {
						translated[lit] = true
					}
				}
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "regexp" {
						for _, a := range n.Args {
							if lit, ok := a.(*ast.BasicLit); ok {
								translated[lit] = true
							}
						}
					}
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "lang" {
						for _, a := range n.Args {
							if lit, ok := a.(*ast.BasicLit); ok {
								translated[lit] = true
							}
						}
					}
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING || translated[n] {
					return true
				}
				s, err := strconv.Unquote(n.Value)
				if err != nil || !hasWord(s) || isTechnical(s) {
					return true
				}
				out = append(out, fset.Position(n.Pos()).String()+": "+s)
			}
			return true
		})
	})
	return out
}

// eachSource parses the Go files of dir other than tests and hands each
// to f.
func eachSource(t *testing.T, dir string, f func(*token.FileSet, *ast.File)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		f(fset, file)
	}
}

// TestNoStringBypassesTranslation fails on any user-visible string
// literal in ui/ and ui/bridge that does not go through Fyne's lang
// package.
func TestNoStringBypassesTranslation(t *testing.T) {
	for _, dir := range []string{".", "bridge"} {
		for _, s := range untranslated(t, dir) {
			t.Errorf("not translated: %s", s)
		}
	}
}

// TestTranslationsComplete checks that every language file has every
// key the English one has, and nothing else, and that format verbs
// survive translation.
func TestTranslationsComplete(t *testing.T) {
	en := readTranslations(t, "en")
	verbs := regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)
	// The plural forms each language needs (CLDR, as go-i18n applies
	// them): a key with forms has them all.
	forms := map[string][]string{"en": {"one", "other"}, "de": {"one", "other"}, "fr": {"one", "many", "other"}, "es": {"one", "many", "other"}, "zh_Hans": {"other"}}
	for _, l := range []string{"en", "de", "fr", "es", "zh_Hans"} {
		m := readTranslations(t, l)
		for k := range en {
			v, ok := m[k]
			if !ok {
				t.Errorf("%s: missing %q", l, k)
				continue
			}
			if len(en[k]) > 1 || len(v) > 1 || v["other"] == "" {
				var have []string
				for f := range v {
					have = append(have, f)
				}
				slices.Sort(have)
				want := slices.Sorted(slices.Values(forms[l]))
				if !slices.Equal(have, want) && !(len(en[k]) == 1 && len(v) == 1) {
					t.Errorf("%s: %q has the forms %v, want %v", l, k, have, want)
				}
			}
			for form, text := range v {
				if a, b := verbs.FindAllString(k, -1), verbs.FindAllString(text, -1); !slices.Equal(a, b) {
					t.Errorf("%s: %q has verbs %v, its translation (%s) %q has %v", l, k, a, form, text, b)
				}
			}
		}
		for k := range m {
			if _, ok := en[k]; !ok {
				t.Errorf("%s: %q is not an English key", l, k)
			}
		}
		// A text left in English: the same as the English one, with a
		// word in it, and not one the language shares.
		for k, v := range m {
			if l != "en" && v["other"] == en[k]["other"] && hasWord(k) && !sameInEnglish[l][k] && !sameEverywhere[k] {
				t.Errorf("%s: %q is left in English", l, k)
			}
		}
	}
}

// sameInEnglish are the texts each language writes as English does: loan
// words, names, units, and abbreviations.
var sameInEnglish = map[string]map[string]bool{
	"de": {"OK": true, "Normal": true, "Proxy": true, "Status": true, "System": true, "Tracker": true, "category.Audio": true,
		"Bytes": true, "Name": true, "Host": true, "Info": true, "Peers": true, "Version": true, "Problem": true,
		"%d min": true, "%d h %d min": true, "Downloads": true, "Version %s": true, "Link": true, "Links": true, "Details": true},
	"fr": {"OK": true, "Proxy": true, "Tracker": true, "Trackers": true, "tracker": true, "Extensions": true,
		"category.Archives": true, "category.Audio": true, "category.Documents": true,
		"Pause": true, "signature": true, "Segments": true, "Source": true, "Licence": true, "Version": true,
		"Signature": true, "ratio %.2f": true, "%d min": true, "%d h %d min": true, "Version %s": true, "Secret": true, "%s minutes": true},
	"es": {"Manual": true, "Normal": true, "Proxy": true, "Tracker": true, "Trackers": true, "tracker": true, "proxy: %w": true,
		"category.Audio": true,
		"Bytes":          true, "%s (%s bytes)": true, "%d min": true, "%d h %d min": true, "General": true, "Error": true},
	"zh_Hans": {"Delete": true, // the key's name on the keyboard
		"Tracker": true}, // as qBittorrent's and Transmission's Chinese say it
}

// sameEverywhere are texts no language translates: protocol names and
// examples of what to type.
var sameEverywhere = map[string]bool{
	"DHT": true, "PEX": true, "µTP": true, "BitTorrent": true,
	"http://proxy.example:3128, socks5h://proxy.example:1080": true,
	"localhost, .example.org, 10.0.0.0/8":                     true,
}

// TestLocaleChoosesLanguage starts this test binary again under each
// system locale and checks that the window's words come out in that
// language, as Fyne's lang package reads the locale at start-up.
func TestLocaleChoosesLanguage(t *testing.T) {
	if os.Getenv("BRAID_LOCALE_HELPER") != "" {
		return
	}
	for locale, want := range map[string]string{
		"de_DE.UTF-8": "Pausieren|Über|3 von 5 Dateien|1 Download läuft|2 Downloads laufen|a.iso (+1 weitere)",
		"fr_FR.UTF-8": "Pause|À propos|3 fichiers sur 5|1 téléchargement en cours|2 téléchargements en cours|a.iso (+1 autre)",
		"es_ES.UTF-8": "Pausar|Acerca de|3 de 5 archivos|1 descarga en curso|2 descargas en curso|a.iso (+1 más)",
		"zh_CN.UTF-8": "暂停|简介|3 / 5 个文件|1 个下载正在运行|2 个下载正在运行|a.iso （另有 1 个）",
		"en_GB.UTF-8": "Pause|About|3 of 5 files|1 download running|2 downloads running|a.iso (+1 more)",
		"C":           "Pause|About|3 of 5 files|1 download running|2 downloads running|a.iso (+1 more)",
	} {
		t.Run(locale, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLocaleHelper$", "-test.v")
			cmd.Env = append(os.Environ(), "BRAID_LOCALE_HELPER=1", "LANG="+locale, "LC_ALL=", "LC_MESSAGES=", "LANGUAGE=")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "words: "+want+"\n") {
				t.Errorf("under %s, want %q in\n%s", locale, want, out)
			}
		})
	}
}

// TestLocaleHelper prints some translated words for
// TestLocaleChoosesLanguage; alone it does nothing.
func TestLocaleHelper(t *testing.T) {
	if os.Getenv("BRAID_LOCALE_HELPER") == "" {
		t.Skip("run by TestLocaleChoosesLanguage")
	}
	LoadTranslations()
	fmt.Printf("words: %s|%s|%s|%s|%s|%s\n", lang.L("Pause"), lang.L("About"), fmt.Sprintf(lang.L("%s of %s files"), "3", "5"),
		countL("%s download running", 1), countL("%s download running", 2), localName("a.iso (+1 more)"))
}

// TestEveryStringHasATranslation checks that each literal given to
// lang.L in ui/ and ui/bridge is a key of en.json, and so (by
// TestTranslationsComplete) of every language file.
func TestEveryStringHasATranslation(t *testing.T) {
	en := readTranslations(t, "en")
	for _, dir := range []string{".", "bridge"} {
		eachSource(t, dir, func(fset *token.FileSet, f *ast.File) {
			ast.Inspect(f, func(n ast.Node) bool {
				c, ok := n.(*ast.CallExpr)
				if !ok || len(c.Args) == 0 {
					return true
				}
				if id, ok := c.Fun.(*ast.Ident); (ok && id.Name == "countL") || isCountL(c) {
					// countL's key must have plural forms.
					if lit, ok := c.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, err := strconv.Unquote(lit.Value)
						if v, found := en[s]; err == nil && (!found || v["one"] == "") {
							t.Errorf("%s: %q is not in en.json with a form for one", fset.Position(lit.Pos()), s)
						}
					}
					return true
				}
				if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "engineKey" {
					if lit, ok := c.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, err := strconv.Unquote(lit.Value)
						if _, found := en[s]; err == nil && !found {
							t.Errorf("%s: %q is not in en.json", fset.Position(lit.Pos()), s)
						}
					}
					return true
				}
				sel, ok := c.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "L" && sel.Sel.Name != "N") {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "lang" {
					return true
				}
				if lit, ok := c.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, err := strconv.Unquote(lit.Value)
					if _, found := en[s]; err == nil && !found {
						t.Errorf("%s: %q is not in en.json", fset.Position(lit.Pos()), s)
					}
				}
				return true
			})
		})
	}
}

// isCountL reports whether c calls ui.CountL, the bridge's countL.
func isCountL(c *ast.CallExpr) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "CountL" || len(c.Args) == 0 {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == "ui"
}

// readTranslations reads a language file: each key's text, or its plural
// forms ("one", "other", …); a plain text is the form "other".
func readTranslations(t *testing.T, lang string) map[string]map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("translations", lang+".json"))
	if err != nil {
		t.Fatal(err)
	}
	raw := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("%s.json: %v", lang, err)
	}
	out := make(map[string]map[string]string, len(raw))
	for k, v := range raw {
		var text string
		if json.Unmarshal(v, &text) == nil {
			out[k] = map[string]string{"other": text}
			continue
		}
		forms := map[string]string{}
		if err := json.Unmarshal(v, &forms); err != nil {
			t.Fatalf("%s.json: %q: %v", lang, k, err)
		}
		out[k] = forms
	}
	return out
}
