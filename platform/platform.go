// Package platform is where Braid meets the machine it runs on: the
// defaults the system suggests, registering the file types Braid opens, and
// the one running instance per user.
//
// The defaults are the user's languages and country from the locale and the
// running OS and architecture (DefaultPrefs). They become the default
// metalink.Prefs, which the user can override (--lang, --os, --location, or
// the window's settings).
//
// The locale is read from the POSIX environment variables (LANGUAGE,
// LC_ALL, LC_MESSAGES, LANG and the other LC_ categories) first: a user who
// sets them in a terminal means them. That is the whole story on Linux and
// the BSDs. On macOS and Windows, where programs started from the Finder,
// the Dock or Explorer usually have no such variables, what the variables
// leave open comes from the system's own settings (System): macOS's
// AppleLanguages and AppleLocale, Windows's preferred UI languages and
// user locale. With neither, the functions report no preference, which
// selects every file.
//
// Every function that reads the environment has a ...From variant taking a
// LookupEnv, so tests set a locale without touching the process
// environment. The functions for defaults are safe for concurrent use.
package platform

import (
	"os"
	"runtime"
	"slices"
	"sync"

	"braid/engine/metalink"
)

// AppID names Braid to the desktop on every system: its .desktop file, icon
// and MIME package on Linux, the app ID Fyne keeps its preferences under
// everywhere (FyneApp.toml's ID).
const AppID = "io.github.braid_dm.braid"

// LookupEnv returns the value of an environment variable and whether it is
// set, like os.LookupEnv.
type LookupEnv func(key string) (string, bool)

// SystemLocale is what the operating system's own settings say about the
// user's languages and country, apart from the POSIX variables.
type SystemLocale struct {
	// Languages are BCP 47 tags, most wanted first, without duplicates.
	Languages []string
	// Country is an upper-case ISO 3166-1 alpha-2 code, or "".
	Country string
}

// systemOnce asks the system once per process: on macOS that runs a
// program, which the picker should not wait for on every document.
var systemOnce = sync.OnceValue(systemLocale)

// System returns the system's locale settings: on macOS the AppleLanguages
// and AppleLocale defaults, on Windows the user's preferred UI languages
// and user locale (and, where Windows knows it, the home country), and
// nothing elsewhere, where the environment is the whole story. Settings
// that cannot be read count as unset. The first call asks the system;
// later calls return the same answer. Safe for concurrent use; callers
// must not modify the returned slice.
func System() SystemLocale { return systemOnce() }

// LanguagesWith is LanguagesFrom(env) when env names a message locale
// (LC_ALL, LC_MESSAGES or LANG, even C), else sys.Languages.
func LanguagesWith(env LookupEnv, sys SystemLocale) []string {
	if messageLocale(env) != "" {
		return LanguagesFrom(env)
	}
	// A copy: the caller may change its Prefs, System's answer is shared.
	return slices.Clone(sys.Languages)
}

// CountryWith is CountryFrom(env) when that names a country, else
// sys.Country.
func CountryWith(env LookupEnv, sys SystemLocale) string {
	if c := CountryFrom(env); c != "" {
		return c
	}
	return sys.Country
}

// OS returns the names that describe the running system for selection: the
// Go pair GOOS/GOARCH (linux/amd64), which metalink.ParseOS reads like the
// Metalink 3 name (Linux-x64).
//
// It deliberately does not add the 32-bit name on a 64-bit system (see
// metalink.File.MatchesOS): a document offering both builds would otherwise
// select both.
func OS() []string { return OSFor(runtime.GOOS, runtime.GOARCH) }

// OSFor is OS for the given GOOS and GOARCH.
func OSFor(goos, goarch string) []string {
	return []string{goos + "/" + goarch}
}

// DefaultPrefs returns the selection a user gets before changing anything:
// their languages, the running OS, and their country for mirror order,
// from the environment and the system's settings (see Languages, Country).
func DefaultPrefs() metalink.Prefs {
	return DefaultPrefsWith(os.LookupEnv, System(), runtime.GOOS, runtime.GOARCH)
}

// DefaultPrefsWith is DefaultPrefs for the given environment, system locale
// settings and system.
func DefaultPrefsWith(env LookupEnv, sys SystemLocale, goos, goarch string) metalink.Prefs {
	p := metalink.Prefs{
		Languages: LanguagesWith(env, sys),
		OS:        OSFor(goos, goarch),
	}
	if c := CountryWith(env, sys); c != "" {
		p.Locations = []string{c}
	}
	return p
}
