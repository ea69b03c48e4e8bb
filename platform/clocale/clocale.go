// Package clocale keeps Fyne from logging "Error parsing user locale C" at
// the start of every braid command on systems whose locale is C.UTF-8
// (Debian's default; common on servers and CI). Fyne's locale probe
// (github.com/jeandeaual/go-locale) treats "C" and "POSIX" as "no
// language" but reads "C.UTF-8" as a language called "C".
//
// Importing this package for its side effect, from package main, rewrites
// the messages locale to plain "C" before Fyne's packages initialise: Go
// initialises packages in import-path order when neither depends on the
// other, and this one depends only on the standard library, so it runs
// before fyne.io/.... For programs braid starts, "C" messages with a
// "C.UTF-8" character set mean exactly what they meant before.
package clocale

import (
	"os"
	"strings"
)

func init() { Fix(os.Getenv, os.Setenv) }

// Fix applies the rewrite through the given environment functions: when the
// locale that decides messages (LC_ALL, then LC_MESSAGES, then LANG) is C or
// POSIX with a codeset, LC_MESSAGES becomes C (or, under LC_ALL, LC_ALL
// itself, which overrides every category).
func Fix(getenv func(string) string, setenv func(string, string) error) {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(k)
		if v == "" {
			continue
		}
		base, _, hasCodeset := strings.Cut(v, ".")
		if !hasCodeset || (base != "C" && base != "POSIX") {
			return
		}
		if k == "LC_ALL" {
			_ = setenv("LC_ALL", base)
		} else {
			_ = setenv("LC_MESSAGES", base)
		}
		return
	}
}
