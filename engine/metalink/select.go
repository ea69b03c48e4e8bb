package metalink

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/text/language"
)

// Prefs are what a user wants from a document: which files to take and which
// mirrors to try first. The zero Prefs selects every file and leaves mirrors
// in priority order. A Prefs is a plain value; it is safe to share between
// goroutines as long as no one writes to its slices.
type Prefs struct {
	// Languages are BCP 47 tags (de, en-GB, zh-Hant, ...) in the user's
	// order. A file that names languages is selected when one of them is
	// the same language as one of these (see File.MatchesLanguage). Empty:
	// any language.
	Languages []string
	// OS are operating systems the user can run, each as a Go pair
	// (linux/amd64), a Metalink 3 name (Linux-x64, MacOSX-Intel) or an IANA
	// Operating System Name (LINUX, WINDOWS-NT); case does not matter. A
	// name without an architecture accepts every architecture of that
	// system. Empty: any OS.
	OS []string
	// Locations are ISO 3166-1 alpha-2 country codes, the user's own first.
	// They never filter: they only move mirrors in those countries forward
	// (see OrderURLs). "uk" is taken as GB.
	Locations []string
}

// HasURL reports whether u is one of f's mirrors, as written.
func (f File) HasURL(u string) bool {
	return slices.ContainsFunc(f.URLs, func(x URL) bool { return x.URL == u })
}

// Selected reports whether p selects f and, when it does not, a reason a
// user can read ("language fr does not match de, en"). A file that names no
// language is eligible whatever p.Languages says, and likewise for OS.
// Location never deselects a file.
func (f File) Selected(p Prefs) (ok bool, why string) {
	var reasons []string
	if !f.MatchesLanguage(p.Languages) {
		reasons = append(reasons, fmt.Sprintf("language %s does not match %s",
			strings.Join(f.Languages, ", "), strings.Join(p.Languages, ", ")))
	}
	if !f.MatchesOS(p.OS) {
		reasons = append(reasons, fmt.Sprintf("for %s, not %s",
			strings.Join(f.OS, ", "), strings.Join(p.OS, ", ")))
	}
	if len(reasons) > 0 {
		return false, strings.Join(reasons, "; ")
	}
	return true, ""
}

// MatchesLanguage reports whether one of f's languages is one of want.
//
// Two tags are the same language when golang.org/x/text/language's matcher
// rates them Exact (de and de-DE, nb and no, iw and he), or rates them High
// and they share the base language after canonicalisation: regional
// variants (en-GB and en-US, pt and pt-PT, de-AT and de-DE) match, because a
// British user would rather have an English build than none. Other scripts
// never match (zh-Hans is not zh-Hant, sr-Latn is not sr-Cyrl), and neither
// do related but different languages that the matcher also rates High
// (Danish for Norwegian, Afrikaans for Dutch): they are a fallback for UI
// strings, not the file a user asked for.
//
// A tag that does not parse matches only the same text, ignoring case. A
// file with no languages, or one marked und (undetermined), mul (many) or
// zxx (no linguistic content), matches anything, as does an empty want.
func (f File) MatchesLanguage(want []string) bool {
	if len(want) == 0 || len(f.Languages) == 0 {
		return true
	}
	for _, have := range f.Languages {
		if languageNeutral(have) {
			return true
		}
		for _, w := range want {
			if sameLanguage(w, have) {
				return true
			}
		}
	}
	return false
}

// languageNeutral reports whether tag says the file is for no language in
// particular.
func languageNeutral(tag string) bool {
	switch strings.ToLower(strings.TrimSpace(tag)) {
	case "und", "mul", "zxx":
		return true
	}
	return false
}

// languageMemo remembers sameLanguage's answers: building a matcher costs
// about 10 µs, and a window re-selecting thousands of files asks about the
// same few pairs again and again. It keeps only short tags and stops
// growing at languageMemoMax entries, so a hostile document with endless
// distinct tags costs time, not memory.
var (
	languageMemo     sync.Map // [2]string{want, have} -> bool
	languageMemoSize atomic.Int64
)

const languageMemoMax = 4096

// sameLanguage reports whether the user's tag want accepts a file in have;
// see File.MatchesLanguage. It is safe for concurrent use.
func sameLanguage(want, have string) bool {
	want, have = strings.TrimSpace(want), strings.TrimSpace(have)
	key := [2]string{want, have}
	if v, ok := languageMemo.Load(key); ok {
		return v.(bool)
	}
	same := matchLanguage(want, have)
	// Real tags are short (RFC 5646 advises 35 characters); longer ones are
	// not worth keeping alive.
	if len(want)+len(have) <= 2*35 && languageMemoSize.Load() < languageMemoMax {
		if _, loaded := languageMemo.LoadOrStore(key, same); !loaded {
			languageMemoSize.Add(1)
		}
	}
	return same
}

// matchLanguage is sameLanguage without the memo, for trimmed tags.
func matchLanguage(want, have string) bool {
	if strings.EqualFold(want, have) {
		return true
	}
	w, err := language.Parse(want)
	if err != nil {
		return false
	}
	h, err := language.Parse(have)
	if err != nil {
		return false
	}
	_, _, conf := language.NewMatcher([]language.Tag{h}).Match(w)
	switch conf {
	case language.Exact:
		return true
	case language.High:
		wb, _ := w.Base()
		hb, _ := h.Base()
		return wb == hb
	}
	return false
}

// MatchesOS reports whether f runs on one of the systems in want. Names are
// read by ParseOS. A file with no OS matches anything, as does an empty
// want, and so does a file marked Source (Metalink 3's name for source
// code, which builds anywhere).
//
// Architectures must agree: Linux-x86 is not selected on linux/amd64 even
// though many such systems could run it. Selection is per file, and a
// document that offers both builds would otherwise select both; 32-bit
// support on 64-bit Linux and macOS is not a given. A user who wants the
// 32-bit build says so: --os Windows-x64,Windows-x86.
func (f File) MatchesOS(want []string) bool {
	if len(want) == 0 || len(f.OS) == 0 {
		return true
	}
	for _, have := range f.OS {
		h := ParseOS(have)
		if h.System == "source" {
			return true
		}
		for _, w := range want {
			if h.Runs(ParseOS(w)) {
				return true
			}
		}
	}
	return false
}

// Platform is an operating system name read by ParseOS: a system and the
// architectures meant.
type Platform struct {
	// System is a GOOS-style name (linux, windows, darwin, freebsd,
	// solaris, ...), one of the families "bsd" and "unix", "source", or
	// for a name ParseOS does not know, its first word in lower case.
	System string
	// Arch are GOARCH-style names (386, amd64, arm64, ppc, ...); empty
	// means any architecture. MacOSX-Intel is {386, amd64}, MacOSX-UB
	// (Universal Binary) is {ppc, 386, amd64}.
	Arch []string
}

// osSystems maps the words that start OS names (lower case) to a System.
// Two-word names ("sun os", "mac os", "unix bsd") are looked up joined.
var osSystems = map[string]string{
	"linux": "linux", "gnulinux": "linux",
	"windows": "windows", "win": "windows", "win32": "windows", "win64": "windows", "winnt": "windows",
	"macos": "darwin", "macosx": "darwin", "osx": "darwin", "darwin": "darwin", "mac": "darwin",
	"freebsd": "freebsd", "netbsd": "netbsd", "openbsd": "openbsd",
	"dragonfly": "dragonfly", "dragonflybsd": "dragonfly", "bsd": "bsd", "unixbsd": "bsd",
	"solaris": "solaris", "sunos": "solaris", "sun": "solaris", "illumos": "solaris",
	"unix": "unix", "aix": "aix", "android": "android", "ios": "ios", "plan9": "plan9",
	"source": "source", "src": "source",
}

// osFamilies names the systems that a family name covers.
var osFamilies = map[string][]string{
	"bsd":  {"freebsd", "netbsd", "openbsd", "dragonfly"},
	"unix": {"linux", "darwin", "freebsd", "netbsd", "openbsd", "dragonfly", "bsd", "solaris", "aix"},
}

// osArches maps architecture words (lower case) to GOARCH names.
var osArches = map[string][]string{
	"x86": {"386"}, "386": {"386"}, "i386": {"386"}, "i486": {"386"}, "i586": {"386"}, "i686": {"386"}, "ia32": {"386"},
	"x64": {"amd64"}, "amd64": {"amd64"}, "x86_64": {"amd64"}, "em64t": {"amd64"}, "intel64": {"amd64"},
	"intel": {"386", "amd64"}, "ub": {"ppc", "386", "amd64"}, "universal": {"ppc", "386", "amd64"},
	"universal2": {"amd64", "arm64"}, "ia64": {"ia64"}, "itanium": {"ia64"}, "alpha": {"alpha"}, "hppa": {"hppa"}, "m68k": {"m68k"},
	"arm": {"arm"}, "armel": {"arm"}, "armhf": {"arm"}, "armv6": {"arm"}, "armv7": {"arm"},
	"arm64": {"arm64"}, "aarch64": {"arm64"}, "armv8": {"arm64"},
	"mips": {"mips"}, "mipsel": {"mipsle"}, "mipsle": {"mipsle"},
	"mips64": {"mips64"}, "mips64el": {"mips64le"}, "mips64le": {"mips64le"},
	"ppc": {"ppc"}, "powerpc": {"ppc"}, "ppc64": {"ppc64"}, "ppc64le": {"ppc64le"}, "ppc64el": {"ppc64le"},
	"s390": {"s390"}, "s390x": {"s390x"}, "sparc": {"sparc", "sparc64"}, "sparc64": {"sparc64"},
	"riscv64": {"riscv64"}, "loong64": {"loong64"}, "wasm": {"wasm"},
}

// ParseOS reads an operating system name as a Metalink document or a user
// writes it: a Metalink 3 name (Linux-x86, MacOSX-Intel, "Solaris (SPARC)"),
// an IANA Operating System Name (LINUX, WINDOWS-NT-4, SUN-OS-4.0) or a Go
// pair (linux/amd64), ignoring case. Words it does not know after the system
// (versions such as 2.6 or NT) are ignored. ParseOS never fails: an unknown
// system keeps its first word, so it still matches the same word.
func ParseOS(name string) Platform {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		switch r {
		case '-', '/', ' ', '\t', '\n', '\r', '(', ')', ',', ';':
			return true
		}
		return false
	})
	var p Platform
	if len(words) == 0 {
		return p
	}
	rest := words[1:]
	if len(words) > 1 {
		if s, ok := osSystems[words[0]+words[1]]; ok {
			p.System, rest = s, words[2:]
		}
	}
	if p.System == "" {
		s, ok := osSystems[words[0]]
		if !ok {
			s = words[0]
		}
		p.System = s
	}
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if w == "x86" && i+1 < len(rest) && rest[i+1] == "64" { // x86-64
			w = "x64"
			i++
		}
		arch, ok := osArches[w]
		if !ok {
			continue
		}
		if p.System == "darwin" && w == "arm" {
			// Macs on ARM are Apple silicon, all 64-bit.
			arch = []string{"arm64"}
		}
		for _, a := range arch {
			if !slices.Contains(p.Arch, a) {
				p.Arch = append(p.Arch, a)
			}
		}
	}
	return p
}

// Runs reports whether a file built for p runs on the system user
// describes: the systems agree (a family such as bsd or unix covers its
// members, either way round) and, when both name architectures, they share
// one.
func (p Platform) Runs(user Platform) bool {
	if !sameSystem(p.System, user.System) {
		return false
	}
	if len(p.Arch) == 0 || len(user.Arch) == 0 {
		return true
	}
	for _, a := range p.Arch {
		if slices.Contains(user.Arch, a) {
			return true
		}
	}
	return false
}

func sameSystem(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return a == b || slices.Contains(osFamilies[a], b) || slices.Contains(osFamilies[b], a)
}

// NormalizeCountry returns an ISO 3166-1 alpha-2 code in upper case, taking
// the common "uk" as GB. Anything that is not two ASCII letters yields "".
func NormalizeCountry(c string) string {
	c = strings.ToUpper(strings.TrimSpace(c))
	if len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z' {
		return ""
	}
	if c == "UK" {
		return "GB"
	}
	return c
}

// OrderURLs returns urls in the order to try them (URLOrder): mirrors in
// the user's countries first, then by priority, then document order. It
// never drops a mirror, so a file whose mirrors are all abroad still
// downloads. urls is not modified.
func OrderURLs(urls []URL, locations []string) []URL {
	out := slices.Clone(urls)
	slices.SortStableFunc(out, URLOrder(locations))
	return out
}

// URLOrder compares two mirrors by the order in which to try them, for
// the user whose countries (ISO 3166-1 alpha-2, most preferred first) are
// locations: a mirror in one of them comes before one that is not (a
// country earlier in locations before a later one), and among mirrors
// alike in that, the lower Priority first (0 counts as LowestPriority).
// Equal mirrors compare 0, so a stable sort keeps document order.
//
// RFC 5854 gives each URL a priority and a location and no rule to
// combine them. The user's location wins: the publisher set priorities
// without knowing where the user is, while the user asked for mirrors
// near them; and neither is a filter, so every mirror is still tried.
// Every face orders by this one rule: the engine's first choices,
// braid inspect's list and the picker's "best".
func URLOrder(locations []string) func(a, b URL) int {
	rank := make(map[string]int, len(locations))
	for i, l := range locations {
		if c := NormalizeCountry(l); c != "" {
			if _, dup := rank[c]; !dup {
				rank[c] = i
			}
		}
	}
	countryRank := func(u URL) int {
		if r, ok := rank[NormalizeCountry(u.Location)]; ok {
			return r
		}
		return len(locations)
	}
	return func(a, b URL) int {
		return cmp.Or(
			cmp.Compare(countryRank(a), countryRank(b)),
			cmp.Compare(effectivePriority(a.Priority), effectivePriority(b.Priority)),
		)
	}
}

// effectivePriority treats a priority outside 1..LowestPriority (such as the
// zero of a URL built in code) as no priority at all.
func effectivePriority(p int) int {
	if p < 1 || p > LowestPriority {
		return LowestPriority
	}
	return p
}
