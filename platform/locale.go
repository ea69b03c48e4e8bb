package platform

import (
	"slices"
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
		if tag, ok := localeTag(locale); ok {
			out = appendTag(out, tag)
		}
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

// appendTag appends tag's canonical string to tags unless it is there.
func appendTag(tags []string, tag language.Tag) []string {
	s := tag.String()
	if slices.Contains(tags, s) {
		return tags
	}
	return append(tags, s)
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

// appleLocale reads macOS's locale settings from the output of
// `defaults read -g AppleLanguages` and `defaults read -g AppleLocale`
// (either may be empty when the setting is unset): the languages are
// AppleLanguages, then AppleLocale's language; the country is
// AppleLocale's region.
func appleLocale(languages, locale string) SystemLocale {
	var sys SystemLocale
	for _, l := range parseAppleLanguages(languages) {
		if tag, err := language.Parse(l); err == nil && tag != language.Und {
			sys.Languages = appendTag(sys.Languages, tag)
		}
	}
	tag, country := parseAppleLocale(locale)
	if tag != language.Und {
		sys.Languages = appendTag(sys.Languages, tag)
	}
	sys.Country = country
	return sys
}

// parseAppleLanguages reads the old-style property list `defaults read`
// prints for an array of strings:
//
//	(
//	    "en-GB",
//	    de,
//	    "zh-Hans-CN"
//	)
//
// Strings are quoted unless they are plain words. It returns the strings
// in order; anything else (a value that is not an array, empty lines) is
// skipped.
func parseAppleLanguages(out string) []string {
	out = strings.TrimSpace(out)
	if !strings.HasPrefix(out, "(") || !strings.HasSuffix(out, ")") {
		return nil
	}
	var langs []string
	for _, item := range strings.Split(out[1:len(out)-1], ",") {
		item = strings.TrimSpace(item)
		item = strings.TrimSuffix(strings.TrimPrefix(item, `"`), `"`)
		if item != "" {
			langs = append(langs, item)
		}
	}
	return langs
}

// parseAppleLocale reads macOS's AppleLocale, an ICU locale ID such as
// en_US, de_DE@currency=EUR or en_GB@rg=dezzzz: the language (with
// script and region, as BCP 47) and the country. The rg keyword is the
// region the user chose apart from the language ("English, region:
// Germany") and wins over the ID's own region. A value that does not
// parse gives language.Und and "".
func parseAppleLocale(id string) (language.Tag, string) {
	id = strings.Trim(strings.TrimSpace(id), `"`)
	name, keywords, _ := strings.Cut(id, "@")
	var tag language.Tag
	if name != "" {
		if t, err := language.Parse(strings.ReplaceAll(name, "_", "-")); err == nil {
			tag = t
		}
	}
	for _, kv := range strings.Split(keywords, ";") {
		k, v, _ := strings.Cut(kv, "=")
		if strings.EqualFold(strings.TrimSpace(k), "rg") && len(v) >= 2 {
			if c := countryOf(v[:2]); c != "" {
				return tag, c
			}
		}
	}
	if region, conf := tag.Region(); conf == language.Exact && region.IsCountry() {
		return tag, region.String()
	}
	return tag, ""
}

// windowsLocale reads Windows's locale settings: ui is the user's
// preferred UI languages (GetUserPreferredUILanguages), locale the user
// locale (GetUserDefaultLocaleName, such as en-GB or de-DE_phoneb) and geo
// the home location (GetUserDefaultGeoName: a country code, or a UN M.49
// number for a wider region); any may be empty. The languages are ui, then
// the locale's language; the country is geo when it is a country, else the
// locale's region.
func windowsLocale(ui []string, locale, geo string) SystemLocale {
	var sys SystemLocale
	for _, l := range ui {
		if tag, ok := windowsTag(l); ok {
			sys.Languages = appendTag(sys.Languages, tag)
		}
	}
	tag, ok := windowsTag(locale)
	if ok {
		sys.Languages = appendTag(sys.Languages, tag)
	}
	if c := countryOf(geo); c != "" {
		sys.Country = c
	} else if region, conf := tag.Region(); ok && conf == language.Exact && region.IsCountry() {
		sys.Country = region.String()
	}
	return sys
}

// windowsTag parses a Windows locale name, a BCP 47 tag with an optional
// sort order after an underscore (de-DE_phoneb).
func windowsTag(name string) (language.Tag, bool) {
	name, _, _ = strings.Cut(strings.TrimSpace(name), "_")
	if name == "" {
		return language.Und, false
	}
	tag, err := language.Parse(name)
	if err != nil || tag == language.Und {
		return language.Und, false
	}
	return tag, true
}

// countryOf returns code as an upper-case ISO 3166-1 alpha-2 country, or
// "" when it is not one (a region such as 419 or 001, or garbage).
func countryOf(code string) string {
	region, err := language.ParseRegion(strings.TrimSpace(code))
	if err != nil || !region.IsCountry() {
		return ""
	}
	// ParseRegion also takes alpha-3 and numeric codes; the result is
	// canonical alpha-2 either way.
	return region.String()
}
