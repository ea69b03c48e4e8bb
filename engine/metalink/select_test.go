package metalink

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestMatchesLanguage(t *testing.T) {
	tests := []struct {
		name string
		file []string
		want []string
		ok   bool
	}{
		{"user de takes de-DE", []string{"de-DE"}, []string{"de"}, true},
		{"user de-DE takes de", []string{"de"}, []string{"de-DE"}, true},
		{"user de-AT takes de-DE", []string{"de-DE"}, []string{"de-AT"}, true},
		{"user en takes en-GB", []string{"en-GB"}, []string{"en"}, true},
		{"user en takes en-US", []string{"en-US"}, []string{"en"}, true},
		{"user en-GB takes en-US", []string{"en-US"}, []string{"en-GB"}, true},
		{"user pt-BR takes pt", []string{"pt"}, []string{"pt-BR"}, true},
		{"user pt takes pt-BR", []string{"pt-BR"}, []string{"pt"}, true},
		{"user pt-PT takes pt-BR", []string{"pt-BR"}, []string{"pt-PT"}, true},
		{"user zh-Hans refuses zh-Hant", []string{"zh-Hant"}, []string{"zh-Hans"}, false},
		{"user zh-Hant refuses zh-Hans", []string{"zh-Hans"}, []string{"zh-Hant"}, false},
		{"user zh-TW refuses zh-Hans", []string{"zh-Hans"}, []string{"zh-TW"}, false},
		{"user zh-TW takes zh-Hant", []string{"zh-Hant"}, []string{"zh-TW"}, true},
		{"user zh-CN takes zh-Hans", []string{"zh-Hans"}, []string{"zh-CN"}, true},
		{"user zh takes zh-Hans", []string{"zh-Hans"}, []string{"zh"}, true},
		{"user sr-Latn refuses sr-Cyrl", []string{"sr-Cyrl"}, []string{"sr-Latn"}, false},
		{"user nb takes no", []string{"no"}, []string{"nb"}, true},
		{"deprecated iw is he", []string{"iw"}, []string{"he"}, true},
		{"user da refuses nb", []string{"nb"}, []string{"da"}, false},
		{"user af refuses nl", []string{"nl"}, []string{"af"}, false},
		{"user gsw refuses de", []string{"de"}, []string{"gsw"}, false},
		{"user de refuses fr", []string{"fr"}, []string{"de"}, false},
		{"case and underscore", []string{"EN_us"}, []string{"en"}, true},
		{"second user language", []string{"en-US"}, []string{"de", "en"}, true},
		{"second file language", []string{"fr", "de"}, []string{"de"}, true},
		{"file without language", nil, []string{"de"}, true},
		{"user without language", []string{"fr"}, nil, true},
		{"file und", []string{"und"}, []string{"de"}, true},
		{"file mul", []string{"mul"}, []string{"de"}, true},
		{"invalid file tag", []string{"klingonese-!!"}, []string{"de"}, false},
		{"invalid file tag equal text", []string{"Klingonese-!!"}, []string{"klingonese-!!"}, true},
		{"empty file tag", []string{""}, []string{"de"}, false},
		{"invalid user tag", []string{"de"}, []string{"%%%"}, false},
		{"private use equal", []string{"x-klingon"}, []string{"x-klingon"}, true},
		{"private use different", []string{"x-klingon"}, []string{"x-vulcan"}, false},
		{"huge tag", []string{strings.Repeat("a-", 5000)}, []string{"de"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := File{Name: "f", Languages: tt.file}
			if got := f.MatchesLanguage(tt.want); got != tt.ok {
				t.Errorf("file %q, user %q: MatchesLanguage = %v, want %v", tt.file, tt.want, got, tt.ok)
			}
		})
	}
}

// TestSameLanguageMemo asks many goroutines about more pairs than the memo
// holds: every answer must equal the unmemoised one, and the memo must stop
// growing at its bound.
func TestSameLanguageMemo(t *testing.T) {
	tags := []string{"de", "de-AT", "en", "en-GB", "zh-Hans", "zh-Hant", "pt", "pt-BR", "nb", "no", "x-bad-!"}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range languageMemoMax/8 + 200 {
				want, have := tags[(g+i)%len(tags)], fmt.Sprintf("%s-x-%d-%d", tags[i%len(tags)], g, i)
				if i%3 == 0 {
					have = tags[i%len(tags)]
				}
				if got, exp := sameLanguage(want, have), matchLanguage(want, have); got != exp {
					select {
					case errs <- fmt.Sprintf("sameLanguage(%q, %q) = %v, matchLanguage %v", want, have, got, exp):
					default:
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := languageMemoSize.Load(); n > languageMemoMax {
		t.Errorf("memo holds %d entries, more than %d", n, languageMemoMax)
	}
	if n := languageMemoSize.Load(); n < languageMemoMax/2 {
		t.Errorf("memo holds only %d entries after %d distinct pairs: it does not remember", n, languageMemoMax)
	}
}

func TestParseOS(t *testing.T) {
	tests := []struct {
		in     string
		system string
		arch   []string
	}{
		{"Linux-x86", "linux", []string{"386"}},
		{"Linux-x64", "linux", []string{"amd64"}},
		{"linux-x86_64", "linux", []string{"amd64"}},
		{"Linux-x86-64", "linux", []string{"amd64"}},
		{"linux/amd64", "linux", []string{"amd64"}},
		{"Linux-PPC64", "linux", []string{"ppc64"}},
		{"Linux-mipsel", "linux", []string{"mipsle"}},
		{"Linux-arm", "linux", []string{"arm"}},
		{"LINUX", "linux", nil},
		{"LINUX-2.0", "linux", nil},
		{"GNU/Linux", "linux", nil},
		{"Windows-x86", "windows", []string{"386"}},
		{"windows-X64", "windows", []string{"amd64"}},
		{"Windows-ia64", "windows", []string{"ia64"}},
		{"WINDOWS-NT-4", "windows", nil},
		{"WIN32", "windows", nil},
		{"MacOSX-PPC", "darwin", []string{"ppc"}},
		{"MacOSX-Intel", "darwin", []string{"386", "amd64"}},
		{"MacOSX-UB", "darwin", []string{"ppc", "386", "amd64"}},
		{"MacOSX-ARM", "darwin", []string{"arm64"}},
		{"Mac OS X", "darwin", nil},
		{"MACOS", "darwin", nil},
		{"darwin/arm64", "darwin", []string{"arm64"}},
		{"Solaris-SPARC", "solaris", []string{"sparc", "sparc64"}},
		{"Solaris (SPARC)", "solaris", []string{"sparc", "sparc64"}},
		{"SUN-OS-4.0", "solaris", nil},
		{"BSD-x86", "bsd", []string{"386"}},
		{"UNIX-BSD", "bsd", nil},
		{"FREEBSD", "freebsd", nil},
		{"Source", "source", nil},
		{"AMIGA-OS-3.1", "amiga", nil},
		{"", "", nil},
		{"---", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p := ParseOS(tt.in)
			if p.System != tt.system || !slices.Equal(p.Arch, tt.arch) {
				t.Errorf("ParseOS(%q) = %+v, want {System:%s Arch:%v}", tt.in, p, tt.system, tt.arch)
			}
		})
	}
}

func TestMatchesOS(t *testing.T) {
	tests := []struct {
		name string
		file []string
		want []string
		ok   bool
	}{
		{"same pair", []string{"Linux-x64"}, []string{"linux/amd64"}, true},
		{"case insensitive", []string{"LINUX-X64"}, []string{"Linux/AMD64"}, true},
		{"x86 not on amd64", []string{"Linux-x86"}, []string{"linux/amd64"}, false},
		{"x86 allowed when asked", []string{"Windows-x86"}, []string{"windows/amd64", "Windows-x86"}, true},
		{"other system", []string{"Windows-x64"}, []string{"linux/amd64"}, false},
		{"IANA name without arch", []string{"LINUX"}, []string{"linux/arm64"}, true},
		{"user without arch", []string{"Linux-PPC"}, []string{"linux"}, true},
		{"Intel mac on amd64", []string{"MacOSX-Intel"}, []string{"darwin/amd64"}, true},
		{"Intel mac not on arm64", []string{"MacOSX-Intel"}, []string{"darwin/arm64"}, false},
		{"universal binary on ppc", []string{"MacOSX-UB"}, []string{"darwin/ppc"}, true},
		{"ARM mac on arm64", []string{"MacOSX-ARM"}, []string{"darwin/arm64"}, true},
		{"PPC mac not on amd64", []string{"MacOSX-PPC"}, []string{"darwin/amd64"}, false},
		{"BSD family takes FreeBSD", []string{"BSD-x64"}, []string{"freebsd/amd64"}, true},
		{"user BSD takes OpenBSD", []string{"OPENBSD"}, []string{"bsd"}, true},
		{"BSD is not Linux", []string{"BSD-x64"}, []string{"linux/amd64"}, false},
		{"UNIX takes Linux", []string{"UNIX"}, []string{"linux/amd64"}, true},
		{"UNIX is not Windows", []string{"UNIX"}, []string{"windows/amd64"}, false},
		{"illumos runs Solaris", []string{"Solaris-x86"}, []string{"illumos/386"}, true},
		{"Solaris SPARC on sparc64", []string{"Solaris-SPARC"}, []string{"solaris/sparc64"}, true},
		{"second file OS", []string{"Windows-x64", "Linux-x64"}, []string{"linux/amd64"}, true},
		{"source anywhere", []string{"Source"}, []string{"windows/arm64"}, true},
		{"file without OS", nil, []string{"linux/amd64"}, true},
		{"user without OS", []string{"Windows-x64"}, nil, true},
		{"unknown system same word", []string{"Haiku-x86"}, []string{"haiku/386"}, true},
		{"unknown system other word", []string{"Haiku-x86"}, []string{"linux/386"}, false},
		{"empty file OS", []string{""}, []string{"linux/amd64"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := File{Name: "f", OS: tt.file}
			if got := f.MatchesOS(tt.want); got != tt.ok {
				t.Errorf("file %q, user %q: MatchesOS = %v, want %v", tt.file, tt.want, got, tt.ok)
			}
		})
	}
}

func TestSelected(t *testing.T) {
	tests := []struct {
		name string
		file File
		p    Prefs
		ok   bool
		why  string
	}{
		{
			name: "zero prefs take everything",
			file: File{Languages: []string{"fr"}, OS: []string{"Windows-x64"}},
			ok:   true,
		},
		{
			name: "language mismatch",
			file: File{Languages: []string{"fr"}},
			p:    Prefs{Languages: []string{"de", "en"}},
			why:  "language fr does not match de, en",
		},
		{
			name: "OS mismatch",
			file: File{OS: []string{"Windows-x64"}},
			p:    Prefs{OS: []string{"linux/amd64"}},
			why:  "for Windows-x64, not linux/amd64",
		},
		{
			name: "both mismatch",
			file: File{Languages: []string{"fr"}, OS: []string{"Windows-x86", "Windows-x64"}},
			p:    Prefs{Languages: []string{"de"}, OS: []string{"linux/amd64"}},
			why:  "language fr does not match de; for Windows-x86, Windows-x64, not linux/amd64",
		},
		{
			name: "location never filters",
			file: File{Languages: []string{"de"}, URLs: []URL{{URL: "http://a/", Location: "JP"}}},
			p:    Prefs{Languages: []string{"de"}, OS: []string{"linux/amd64"}, Locations: []string{"DE"}},
			ok:   true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := tt.file.Selected(tt.p)
			if ok != tt.ok || why != tt.why {
				t.Errorf("Selected = %v, %q; want %v, %q", ok, why, tt.ok, tt.why)
			}
		})
	}
}

func TestNormalizeCountry(t *testing.T) {
	tests := map[string]string{
		"de": "DE", " DE ": "DE", "uk": "GB", "UK": "GB", "gb": "GB",
		"": "", "d": "", "deu": "", "1a": "", "é1": "",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			if got := NormalizeCountry(in); got != want {
				t.Errorf("NormalizeCountry(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestOrderURLs(t *testing.T) {
	u := func(name, loc string, pri int) URL { return URL{URL: name, Location: loc, Priority: pri} }
	tests := []struct {
		name      string
		urls      []URL
		locations []string
		want      []string
	}{
		{
			name: "the user's country first, then priority, then document order",
			urls: []URL{
				u("us1", "US", 2), u("de1", "DE", 2), u("fr", "FR", 1),
				u("de2", "DE", 2), u("us2", "US", 1), u("none", "", 2),
			},
			locations: []string{"de"},
			want:      []string{"de1", "de2", "fr", "us2", "us1", "none"},
		},
		{
			name:      "uk means GB and lower case locations",
			urls:      []URL{u("us", "us", 5), u("gb", "gb", 5)},
			locations: []string{"uk"},
			want:      []string{"gb", "us"},
		},
		{
			name:      "earlier country first",
			urls:      []URL{u("fr", "FR", 1), u("at", "AT", 1), u("de", "DE", 1)},
			locations: []string{"DE", "AT"},
			want:      []string{"de", "at", "fr"},
		},
		{
			name:      "no locations keeps priority order",
			urls:      []URL{u("b", "DE", 9), u("a", "US", 3), u("c", "", 9)},
			locations: nil,
			want:      []string{"a", "b", "c"},
		},
		{
			name:      "zero priority counts as lowest",
			urls:      []URL{u("zero", "DE", 0), u("low", "US", LowestPriority), u("one", "US", 1)},
			locations: []string{"NZ"},
			want:      []string{"one", "zero", "low"},
		},
		{
			name:      "never filters when no mirror is local",
			urls:      []URL{u("jp", "JP", 1), u("us", "US", 1)},
			locations: []string{"NZ"},
			want:      []string{"jp", "us"},
		},
		{
			name:      "invalid location ignored",
			urls:      []URL{u("x", "XX", 1), u("y", "", 1)},
			locations: []string{"", "not a country"},
			want:      []string{"x", "y"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.urls)
			got := OrderURLs(tt.urls, tt.locations)
			var names []string
			for _, g := range got {
				names = append(names, g.URL)
			}
			if !slices.Equal(names, tt.want) {
				t.Errorf("OrderURLs = %v, want %v", names, tt.want)
			}
			if !slices.Equal(in, tt.urls) {
				t.Errorf("OrderURLs modified its input: %v", tt.urls)
			}
		})
	}
}

// BenchmarkSelected selects among files in three languages and two
// systems, as a window does when the user changes a preference.
func BenchmarkSelected(b *testing.B) {
	files := []File{
		{Languages: []string{"en-US"}, OS: []string{"Windows-x86"}},
		{Languages: []string{"zh-Hans"}, OS: []string{"Windows-x64"}},
		{Languages: []string{"de", "fr"}, OS: []string{"Linux-x64", "MacOSX-Intel"}},
	}
	p := Prefs{Languages: []string{"de-AT", "en"}, OS: []string{"linux/amd64"}}
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			f.Selected(p)
		}
	}
}
