package platform

import (
	"strings"

	"golang.org/x/text/language"
)

// LanguagesFrom returns the languages env asks for, as canonical BCP 47
// tags, most wanted first, without duplicates.
//
// It follows GNU gettext: the colon-separated LANGUAGE list comes first,
// then the locale for messages, which is LC_ALL, else LC_MESSAGES, else
// LANG. A POSIX locale (de_DE.UTF-8, sr_RS@latin) becomes a tag (de-DE,
// sr-Latn-RS). When the message locale is C or POSIX, or unset (which is C),
// gettext ignores LANGUAGE and so does this; C states no language at all, so the result is
// empty and no file is deselected for its language. Entries that are not a
// valid locale are skipped.
func LanguagesFrom(env LookupEnv) []string {
	msg := messageLocale(env)
	if msg == "" || isCLocale(msg) {
		return nil
	}
	var out []string
	add := func(locale string) {
		tag, ok := localeTag(locale)
		if !ok {
			return
		}
		s := tag.String()
		for _, have := range out {
			if have == s {
				return
			}
		}
		out = append(out, s)
	}
	if list, ok := env("LANGUAGE"); ok {
		for _, l := range strings.Split(list, ":") {
			add(l)
		}
	}
	add(msg)
	return out
}

// CountryFrom returns the country env's locale names, as an upper-case
// ISO 3166-1 alpha-2 code, or "" when no locale names one.
//
// LC_ALL, when set, decides alone. Otherwise the categories that describe
// where the user lives (LC_ADDRESS, LC_TELEPHONE, LC_MONETARY, LC_PAPER,
// LC_MEASUREMENT, LC_TIME) come before LANG: someone in Germany who reads
// English often has LANG=en_US.UTF-8 and LC_MONETARY=de_DE.UTF-8. The
// message locale and LANGUAGE come last. A region is taken only when the
// locale states it (de alone gives no country) and it is a country (not a
// region like 419, Latin America).
func CountryFrom(env LookupEnv) string {
	if all := get(env, "LC_ALL"); all != "" {
		return localeCountry(all)
	}
	for _, k := range []string{"LC_ADDRESS", "LC_TELEPHONE", "LC_MONETARY", "LC_PAPER", "LC_MEASUREMENT", "LC_TIME", "LANG", "LC_MESSAGES"} {
		if c := localeCountry(get(env, k)); c != "" {
			return c
		}
	}
	for _, l := range strings.Split(get(env, "LANGUAGE"), ":") {
		if c := localeCountry(l); c != "" {
			return c
		}
	}
	return ""
}

// get returns env's value for key, "" when unset.
func get(env LookupEnv, key string) string {
	v, _ := env(key)
	return strings.TrimSpace(v)
}

// messageLocale is the locale gettext uses for messages.
func messageLocale(env LookupEnv) string {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := get(env, k); v != "" {
			return v
		}
	}
	return ""
}

// isCLocale reports whether locale is the C or POSIX locale, with or without
// a codeset (C.UTF-8).
func isCLocale(locale string) bool {
	name, _, _ := strings.Cut(locale, ".")
	return name == "C" || name == "POSIX"
}

// localeScripts maps POSIX locale modifiers that name a script to the ISO
// 15924 code BCP 47 uses; other modifiers (euro, valencia) do not change
// which files suit the user and are dropped.
var localeScripts = map[string]string{
	"latin":      "Latn",
	"cyrillic":   "Cyrl",
	"devanagari": "Deva",
}

// localeTag turns a POSIX locale, language[_territory][.codeset][@modifier],
// into a BCP 47 tag. It reports false for C, POSIX, "" and anything that
// does not parse.
func localeTag(locale string) (language.Tag, bool) {
	locale = strings.TrimSpace(locale)
	if locale == "" || isCLocale(locale) {
		return language.Und, false
	}
	name, modifier, _ := strings.Cut(locale, "@")
	name, _, _ = strings.Cut(name, ".")
	lang, region, _ := strings.Cut(name, "_")
	parts := []string{lang}
	if s, ok := localeScripts[strings.ToLower(modifier)]; ok {
		parts = append(parts, s)
	}
	if region != "" {
		parts = append(parts, region)
	}
	tag, err := language.Parse(strings.Join(parts, "-"))
	if err != nil || tag == language.Und {
		return language.Und, false
	}
	return tag, true
}

// localeCountry returns the country a locale states, or "".
func localeCountry(locale string) string {
	tag, ok := localeTag(locale)
	if !ok {
		return ""
	}
	region, conf := tag.Region()
	if conf != language.Exact || !region.IsCountry() {
		return ""
	}
	return region.String()
}
