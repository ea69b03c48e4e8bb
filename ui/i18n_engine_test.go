package ui

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/lang"

	"braid/engine/metalink"
	"braid/engine/signature"
)

// engineFormats are the format strings of the engine's messages the
// window says through engineRules: every bad(...) rule of
// metalink.SafeName, NameError's own, the reasons the Metalink reader
// refuses a file for (its fmt.Sprintf calls and "…: " + err.Error()
// literals in finish, unsafeMetaURL and nameTree.claim), and the reasons
// the runner and the queue pause a job for (prepareDest, destProblem,
// SecretLost).
func engineFormats(t *testing.T) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	for file, funcs := range map[string][]string{
		"engine/metalink/name.go":   {"SafeName"},
		"engine/metalink/errors.go": {"Error"},
		"engine/metalink/read.go":   {"finish", "unsafeMetaURL", "claim"},
		"runner/dest.go":            {"prepareDest", "destProblem"},
		"queue/netsettings.go":      {"SecretLost"},
		"engine/download.go":        {"strikesWhy"},
	} {
		f, err := parser.ParseFile(fset, filepath.Join("..", file), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !containsName(funcs, fn.Name.Name) {
				continue
			}
			if fn.Name.Name == "Error" && (fn.Recv == nil || !strings.Contains(fmt.Sprint(fn.Recv.List[0].Type), "NameError")) {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					name := ""
					switch fun := n.Fun.(type) {
					case *ast.Ident:
						name = fun.Name
					case *ast.SelectorExpr:
						name = fun.Sel.Name
					}
					if (name == "bad" || name == "Sprintf") && len(n.Args) > 0 {
						if lit, ok := n.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							s, _ := strconv.Unquote(lit.Value)
							out = append(out, s)
						}
					}
				case *ast.BinaryExpr:
					// "its metaurl names …: " + err.Error()
					if lit, ok := n.X.(*ast.BasicLit); ok && lit.Kind == token.STRING && n.Op == token.ADD {
						s, _ := strconv.Unquote(lit.Value)
						out = append(out, s+"%s")
					}
				}
				return true
			})
		}
	}
	return out
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

// sample fills a format's verbs with values of their kind.
func sample(format string) string {
	r := strings.NewReplacer("%d", "255", "%q", `"a/b"`, "%U", "U+202E", "%s", "C:", "%v", "the passwords, cookies or headers given for this download are gone")
	return r.Replace(format)
}

// TestEngineRulesCoverTheEngine: every message of the engine the window
// shows (why a name or a file is refused) is one engineRules knows, and
// said in English it reads as the engine wrote it; in German it reads in
// German.
func TestEngineRulesCoverTheEngine(t *testing.T) {
	formats := engineFormats(t)
	t.Logf("%d messages of the engine: %q", len(formats), formats)
	if len(formats) < 25 {
		t.Fatalf("found %d of the engine's messages in its sources: the parse is broken", len(formats))
	}
	for _, f := range formats {
		text := sample(f)
		key, values, ok := engineRuleOf(text)
		if !ok {
			t.Errorf("the engine's %q (as %q) is in no rule: the window would show it in English", f, text)
			continue
		}
		args := make([]any, len(values))
		for i, v := range values {
			args[i] = v
		}
		if got := fmt.Sprintf(key, args...); got != text {
			t.Errorf("%q: read back as %q", text, got)
		}
	}
	// A refused name as the picker shows it: the rule inside the
	// NameError is found too.
	err := metalink.SafeName("../x")
	if _, values, ok := engineRuleOf(err.Error()); !ok || len(values) != 2 {
		t.Fatalf("%q: %v %v", err, values, ok)
	} else if _, _, ok := engineRuleOf(values[1]); !ok {
		t.Errorf("the rule %q of %q is in no rule", values[1], err)
	}
}

// TestEngineTextsInGerman: the engine's reasons, a file's selection
// reason and a signature's outcome come out in German under a German
// locale (the translations loaded as the window loads them).
func TestEngineTextsInGerman(t *testing.T) {
	if !inLocale(t, "de_DE.UTF-8") {
		return
	}
	err := metalink.SafeName("../boese.bin")
	if got, want := engineText(err.Error()), `unsicherer Dateiname "../boese.bin": ein Pfadelement ".." würde aus dem Download-Ordner hinausführen`; got != want {
		t.Errorf("engineText(%q) = %q, want %q", err, got, want)
	}
	files := []metalink.File{
		{Name: "a", Languages: []string{"fr"}, OS: []string{"windows-x64"}},
		{Name: "b", Languages: []string{"de"}, OS: []string{"linux/amd64"}},
	}
	choices, _ := metalink.Select(files, metalink.Prefs{Languages: []string{"de"}, OS: []string{"linux/amd64"}}, metalink.Prefs{})
	if got, want := choiceWhy(choices[0].Why), "für windows-x64, nicht linux/amd64; Sprache fr passt nicht zu de"; choices[0].Selected || got != want {
		t.Errorf("choiceWhy(%q) = %q, want %q", choices[0].Why, got, want)
	}
	// The defaults fall back to English for a Chinese locale.
	files = []metalink.File{{Name: "x.de", Languages: []string{"de"}}, {Name: "x.en", Languages: []string{"en"}}}
	choices, _ = metalink.Select(files, metalink.Prefs{}, metalink.Prefs{Languages: []string{"zh"}})
	if got, want := choiceWhy(choices[0].Why), "Sprache de: keine Datei ist auf zh, daher wird die englische genommen"; choices[0].Selected || !choices[1].Selected || got != want {
		t.Errorf("choiceWhy(%q) = %q, want %q", choices[0].Why, got, want)
	}
	o := signature.Outcome{Status: signature.UnknownKey, Fingerprint: "ABCD"}
	if got := SignatureText(o); got != "signiert mit einem unbekannten Schlüssel ABCD" {
		t.Errorf("SignatureText = %q", got)
	}
	// A mirror's reason as the Mirrors tab says it (Explain): why it was
	// dropped, why it is still used.
	for text, want := range map[string]string{
		"sent 3 pieces that fail their sha-256 hash (last: piece 57)":                                                           "3 Stücke gesendet, die ihren sha-256-Hash nicht bestehen (zuletzt: Stück 57)",
		"sent 3 pieces that fail their sha-256 hash; every mirror sent them so (the damage is in the published copies)":         "3 Stücke gesendet, die ihren sha-256-Hash nicht bestehen; jeder Spiegel hat sie so gesendet (der Schaden steckt in den veröffentlichten Kopien)",
		"sent 1 piece that fails its sha-256 hash; still used: a mirror is dropped after 3 bad pieces no other mirror sent bad": "1 Stück gesendet, das seinen sha-256-Hash nicht besteht; weiter genutzt: Ein Spiegel wird nach 3 fehlerhaften Stücken verworfen, die kein anderer fehlerhaft gesendet hat",
	} {
		if got, detail := Explain(text); got != want || detail != "" {
			t.Errorf("Explain(%q) = %q, %q; want %q", text, got, detail, want)
		}
	}
	if got := engineText("something else entirely"); got != "something else entirely" {
		t.Errorf("a message of no rule changed: %q", got)
	}
}

// TestEngineTextsSayWhatTheEngineSays: in English the window's words for
// a file's selection and a signature's outcome are the engine's own, so
// the two cannot drift apart unnoticed.
func TestEngineTextsSayWhatTheEngineSays(t *testing.T) {
	if !inLocale(t, "C") {
		return
	}
	files := []metalink.File{
		{Name: "a"},
		{Name: "b", Languages: []string{"fr"}},
		{Name: "c", OS: []string{"windows-x64"}},
		{Name: "d", Languages: []string{"ja"}, OS: []string{"macos"}},
		{Name: "e.en-US", Languages: []string{"en-US"}},
		{Name: "e.en-GB", Languages: []string{"en-GB"}},
	}
	for _, prefs := range []struct{ given, defaults metalink.Prefs }{
		{given: metalink.Prefs{Languages: []string{"de", "en"}, OS: []string{"linux/amd64"}}},
		{defaults: metalink.Prefs{Languages: []string{"en-GB"}, OS: []string{"linux/amd64"}}},
		{defaults: metalink.Prefs{Languages: []string{"zh"}}},
	} {
		choices, _ := metalink.Select(files, prefs.given, prefs.defaults)
		for i, c := range choices {
			if got := choiceWhy(c.Why); got != c.Why {
				t.Errorf("%s: the engine says %q, the window %q", files[i].Name, c.Why, got)
			}
			if c.Why != "" {
				if _, _, ok := engineRuleOf(strings.Split(c.Why, "; ")[0]); !ok {
					t.Errorf("%s: %q is in no rule", files[i].Name, c.Why)
				}
			}
		}
	}
	for _, st := range []signature.Status{signature.Unchecked, signature.Good, signature.UnknownKey, signature.Bad, signature.Unreadable} {
		for _, note := range []string{"", "made before the key expired"} {
			o := signature.Outcome{Status: st, Signer: "Ann <ann@example.org>", Fingerprint: "ABCD1234", Note: note}
			if got, want := SignatureText(o), o.String(); got != want {
				t.Errorf("%v: the window says %q, the engine %q", st, got, want)
			}
			if got, want := SignatureAdvice(o), o.Advice(); got != want {
				t.Errorf("%v: the window advises %q, the engine %q", st, got, want)
			}
		}
	}
}

// inLocale runs the test again in a child test binary under locale (Fyne
// reads the locale once, at start) and reports whether this is the child,
// which runs the test's body; the parent fails when the child does.
func inLocale(t *testing.T, locale string) bool {
	t.Helper()
	if os.Getenv("BRAID_TEST_LOCALE") == locale {
		LoadTranslations()
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "BRAID_TEST_LOCALE="+locale, "LANG="+locale, "LC_ALL=", "LC_MESSAGES=", "LANGUAGE=")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("under %s: %v\n%s", locale, err, out)
	}
	return false
}

// TestPluralsInGerman: counts take the form their number needs, for one
// and for more (a parity set's blocks, a time, a Repair's progress).
func TestPluralsInGerman(t *testing.T) {
	if !inLocale(t, "de_DE.UTF-8") {
		return
	}
	for got, want := range map[string]string{
		CountL("%s recovery blocks", 1):  "1 Wiederherstellungsblock",
		CountL("%s recovery blocks", 2):  "2 Wiederherstellungsblöcke",
		CountL("%s minutes", 1):          "1 Minute",
		CountL("%s minutes", 3):          "3 Minuten",
		CountL("%s download running", 1): "1 Download läuft",
		localName("a.iso (+1 more)"):     "a.iso (+1 weitere)",
		pieceMap(run{95, PieceDone, 0}, run{1, PieceActive, RebuiltFromParity}).Summary(): "95 von 96 Stücken fertig · 1 wird aus Parität wiederhergestellt",
		pieceMap(run{93, PieceDone, 0}, run{3, PieceActive, RebuiltFromParity}).Summary(): "93 von 96 Stücken fertig · 3 werden aus Parität wiederhergestellt",
		fmt.Sprintf(lang.N("%s of %s bad pieces mended", 1), "0", "1"):                    "0 von 1 fehlerhaften Stück repariert",
		fmt.Sprintf(lang.N("%s of %s bad pieces mended", 4), "2", "4"):                    "2 von 4 fehlerhaften Stücken repariert",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
