package metalink

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/language"
)

// Choice is what Select decided for one file: selected, or why not.
type Choice struct {
	Selected bool
	Why      string
}

// Select decides which of files a user gets. given are the filters the
// user asked for (command-line flags, the picker): real filters, each
// file that does not fit is left out, even if that leaves nothing. A nil
// list in given means the user did not say (an empty, non-nil list means
// "any"). defaults are the system's (the locale, the running OS): they only
// narrow a choice between alternatives and never leave a set of
// alternatives with nothing selected. notes say where the defaults did not
// narrow and why, for the user to read.
//
// By OS: the builds for other systems are left out, unless no file of the
// document is for the running system; then the OS default does not filter.
// By language: among alternatives, files of one identity and version
// (Metalink's <identity> and <version>) whose names differ only by their
// language tags, the best match for the user's languages is taken
// (an en-GB user gets the en-GB build where there is one, en-US only where
// there is not; an earlier language of the user's list beats a later
// one); files that name no language, or und, mul or zxx, are always kept.
// When no alternative is in any of the default languages, the defaults
// still choose one rather than none or all: the English one (FallbackLanguage),
// else the first listed one's language; a note says which.
func Select(files []File, given, defaults Prefs) (choices []Choice, notes []string) {
	choices = make([]Choice, len(files))
	for i := range choices {
		choices[i].Selected = true
	}
	drop := func(i int, why string) {
		switch {
		case choices[i].Selected:
			choices[i] = Choice{Why: why}
		case slices.Contains(strings.Split(choices[i].Why, "; "), why):
			// Said already (a given language filter is applied to
			// every file, also those its alternatives left out).
		default:
			choices[i].Why += "; " + why
		}
	}
	// A PAR2 parity set listed beside its file (braid make --parity) is
	// for mending the file, not a file to download with it.
	names := make(map[string]bool, len(files))
	for _, f := range files {
		names[f.Name] = true
	}
	for i, f := range files {
		if of, ok := ParityOf(f.Name); ok && names[of] {
			drop(i, fmt.Sprintf("PAR2 parity for %s: fetched only if no mirror has good bytes for it", of))
		}
	}
	if given.OS != nil {
		for i, f := range files {
			if !f.MatchesOS(given.OS) {
				drop(i, fmt.Sprintf("for %s, not %s", strings.Join(f.OS, ", "), strings.Join(given.OS, ", ")))
			}
		}
	} else if len(defaults.OS) > 0 {
		named, fits := false, false
		for _, f := range files {
			if len(f.OS) > 0 {
				named = true
				fits = fits || f.MatchesOS(defaults.OS)
			}
		}
		switch {
		case named && !fits:
			notes = append(notes, fmt.Sprintf("no file is for this system (%s), so the OS does not narrow the choice; --os chooses",
				strings.Join(defaults.OS, ", ")))
		case named:
			for i, f := range files {
				if !f.MatchesOS(defaults.OS) {
					drop(i, fmt.Sprintf("for %s, not this system (%s)", strings.Join(f.OS, ", "), strings.Join(defaults.OS, ", ")))
				}
			}
		}
	}
	langs, soft := given.Languages, false
	if langs == nil {
		langs, soft = defaults.Languages, true
	}
	if len(langs) == 0 {
		return choices, notes
	}
	for _, set := range groupBy(files, choices, languageStem) {
		var named []int // files of the set that are for some language
		for _, i := range set {
			if !languageFree(files[i]) {
				named = append(named, i)
			}
		}
		if len(named) == 0 {
			continue
		}
		keep, by := bestLanguage(files, named, langs)
		fallback := ""
		if keep == nil && soft {
			keep, by, fallback = fallbackLanguage(files, named)
			notes = append(notes, fmt.Sprintf("no file%s is in %s, so %s is taken; --lang chooses",
				setName(files[set[0]]), strings.Join(langs, ", "), fallback))
		}
		for _, i := range named {
			switch {
			case keep[i]:
			case fallback != "":
				drop(i, fmt.Sprintf("language %s: no file is in %s, and %s is taken instead", strings.Join(files[i].Languages, ", "), strings.Join(langs, ", "), fallback))
			case by != "" && files[i].MatchesLanguage([]string{by}):
				drop(i, fmt.Sprintf("language %s: another file is a closer match for %s", strings.Join(files[i].Languages, ", "), by))
			default:
				drop(i, fmt.Sprintf("language %s does not match %s", strings.Join(files[i].Languages, ", "), strings.Join(langs, ", ")))
			}
		}
	}
	if !soft {
		// A filter the user gave applies to every file: say so of those
		// already left out for another reason too.
		for i, f := range files {
			if !choices[i].Selected && !languageFree(f) && !f.MatchesLanguage(langs) {
				drop(i, fmt.Sprintf("language %s does not match %s", strings.Join(f.Languages, ", "), strings.Join(langs, ", ")))
			}
		}
	}
	return choices, notes
}

// bestLanguage picks, among the files named (alternatives by language),
// those in the best match for the user's languages: the first of langs
// that any of them is in (see File.MatchesLanguage), and among those the
// tag golang.org/x/text/language's matcher finds closest to it. It returns
// the files to keep and the user's language they were chosen for; nil when
// none is in any of langs.
func bestLanguage(files []File, named []int, langs []string) (keep map[int]bool, by string) {
	for _, w := range langs {
		want, wantErr := language.Parse(strings.TrimSpace(w))
		var tags []language.Tag
		var owners []int
		keep = map[int]bool{}
		for _, i := range named {
			for _, h := range files[i].Languages {
				if !sameLanguage(w, h) {
					continue
				}
				t, err := language.Parse(strings.TrimSpace(h))
				if err != nil || wantErr != nil {
					keep[i] = true // matched as text: nothing to rank it by
					continue
				}
				tags = append(tags, t)
				owners = append(owners, i)
			}
		}
		if len(tags) > 0 {
			_, idx, _ := language.NewMatcher(tags).Match(want)
			for k, t := range tags {
				if t == tags[idx] {
					keep[owners[k]] = true
				}
			}
		}
		if len(keep) > 0 {
			return keep, w
		}
	}
	return nil, ""
}

// FallbackLanguage is the language Select takes from a set of
// alternatives none of which is in the user's default languages, before
// the language of the first one listed: the one most users who read
// neither can still follow, and the one most publishers write first.
const FallbackLanguage = "en"

// fallbackLanguage picks, among alternatives by language none of which is
// in the user's languages, the English ones (best match for en), else
// those in the language of the first listed. It returns them, the tag
// they were chosen by, and how a note names them.
func fallbackLanguage(files []File, named []int) (keep map[int]bool, by, says string) {
	if keep, by := bestLanguage(files, named, []string{FallbackLanguage}); keep != nil {
		return keep, by, "the English one"
	}
	first := strings.TrimSpace(files[named[0]].Languages[0])
	keep, by = bestLanguage(files, named, []string{first})
	if keep == nil { // a tag that matches not even itself: take that file
		keep, by = map[int]bool{named[0]: true}, first
	}
	if first == "" {
		return keep, by, fmt.Sprintf("the first listed (%s)", files[named[0]].Name)
	}
	return keep, by, fmt.Sprintf("the first listed (%s)", first)
}

// groupBy returns the indexes of the selected files, grouped by key, in
// document order of each group's first file.
func groupBy(files []File, choices []Choice, key func(File) string) [][]int {
	var order []string
	groups := map[string][]int{}
	for i, f := range files {
		if !choices[i].Selected {
			continue
		}
		k := key(f)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	out := make([][]int, 0, len(order))
	for _, k := range order {
		out = append(out, groups[k])
	}
	return out
}

// setName names a set of alternatives in a note: " of IDENTITY" when the
// files say what they are.
func setName(f File) string {
	if f.Identity == "" {
		return ""
	}
	return " of " + strings.TrimSpace(f.Identity+" "+f.Version)
}

// languageStem is what makes files alternatives by language: the same
// identity and version, and the same name once their language tags are
// taken out ("setup-en-GB.exe" and "setup-de.exe" are one choice,
// "manual-en.pdf" another).
func languageStem(f File) string {
	name := strings.ToLower(f.Name)
	for _, l := range f.Languages {
		if l = strings.ToLower(strings.TrimSpace(l)); l != "" {
			name = strings.ReplaceAll(name, l, "")
			// Names often write en_GB for the tag en-GB.
			name = strings.ReplaceAll(name, strings.ReplaceAll(l, "-", "_"), "")
		}
	}
	return f.Identity + "\x00" + f.Version + "\x00" + name
}

// languageFree reports whether a file is for no language in particular.
func languageFree(f File) bool {
	if len(f.Languages) == 0 {
		return true
	}
	for _, l := range f.Languages {
		if languageNeutral(l) {
			return true
		}
	}
	return false
}
