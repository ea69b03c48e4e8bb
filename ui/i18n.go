package ui

import (
	"embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
)

// translations are the window's words in English, German, French,
// Spanish and Simplified Chinese, one JSON file per language keyed by the
// English text. Fyne's lang package picks the language from the system
// locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG on Linux; the user's
// preferences on Windows and macOS); English is the fallback.
//
//go:embed translations/*.json
var translations embed.FS

// LoadTranslations adds them to Fyne's, once. The window's parts call it
// when they are made, and the window command before it builds anything;
// not at init, because parsing them takes milliseconds that `braid get`
// and the other commands without a window should not pay at start.
var LoadTranslations = sync.OnceFunc(func() {
	if err := lang.AddTranslationsFS(translations, "translations"); err != nil {
		fyne.LogError(lang.L("load the translations"), err)
	}
})

// countL is the translation of key, a text with one count (%s), in the
// plural form the language uses for n, with n written in: "1 Download
// läuft", "3 Downloads laufen". The translation files give such keys
// their forms ({"one": …, "other": …}, as go-i18n reads them).
func countL(key string, n int) string {
	return fmt.Sprintf(lang.N(key, n), count(n))
}

// CountL is countL for the bridge: key's plural form for n, with n
// written in.
func CountL(key string, n int) string { return countL(key, n) }

// moreSuffix is how the queue names a job of several files: the first
// and how many more, in English ("a.iso (+2 more)").
var moreSuffix = regexp.MustCompile(`^(.*) \(\+(\d+) more\)$`)

// localName is a job's name with the queue's English "(+N more)" in the
// user's language.
func localName(name string) string {
	if !strings.HasSuffix(name, ")") {
		return name // most names: no regular expression to run
	}
	m := moreSuffix.FindStringSubmatch(name)
	if m == nil {
		return name
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return name
	}
	return m[1] + " " + countL("(+%s more)", n)
}

// localNames applies localName to jobs in place.
func localNames(jobs []Job) {
	for i := range jobs {
		jobs[i].Name = localName(jobs[i].Name)
	}
}
