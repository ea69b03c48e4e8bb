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
// LC_ALL, LC_MESSAGES, LANG and the other LC_ categories). That is the
// whole story on Linux and the BSDs; on Windows, and for macOS programs not
// started from a terminal, the variables are usually unset and the
// functions report no preference, which selects every file.
//
// Every function that reads the environment has a ...From variant taking a
// LookupEnv, so tests set a locale without touching the process
// environment. The functions for defaults are safe for concurrent use.
package platform

import (
	"os"
	"runtime"

	"braid/engine/metalink"
)

// LookupEnv returns the value of an environment variable and whether it is
// set, like os.LookupEnv.
type LookupEnv func(key string) (string, bool)

// Languages returns the user's languages as BCP 47 tags, most wanted first
// (see LanguagesFrom), from the process environment.
func Languages() []string { return LanguagesFrom(os.LookupEnv) }

// Country returns the user's country as an upper-case ISO 3166-1 alpha-2
// code, or "" (see CountryFrom), from the process environment.
func Country() string { return CountryFrom(os.LookupEnv) }

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
// their languages, the running OS, and their country for mirror order.
func DefaultPrefs() metalink.Prefs {
	return DefaultPrefsFrom(os.LookupEnv, runtime.GOOS, runtime.GOARCH)
}

// DefaultPrefsFrom is DefaultPrefs for the given environment and system.
func DefaultPrefsFrom(env LookupEnv, goos, goarch string) metalink.Prefs {
	p := metalink.Prefs{
		Languages: LanguagesFrom(env),
		OS:        OSFor(goos, goarch),
	}
	if c := CountryFrom(env); c != "" {
		p.Locations = []string{c}
	}
	return p
}
