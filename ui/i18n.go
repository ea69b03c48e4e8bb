package ui

import (
	"embed"
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
