package platform

import (
	"slices"
	"testing"

	"braid/engine/metalink"
)

// envOf returns a LookupEnv that sees only vars.
func envOf(vars map[string]string) LookupEnv {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

func TestLanguagesFrom(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"nothing set", nil, nil},
		{"LANG with codeset", map[string]string{"LANG": "de_DE.UTF-8"}, []string{"de-DE"}},
		{"LANG without region", map[string]string{"LANG": "fr.UTF-8"}, []string{"fr"}},
		{"LANG modifier euro dropped", map[string]string{"LANG": "de_AT@euro"}, []string{"de-AT"}},
		{"script modifier", map[string]string{"LANG": "sr_RS.UTF-8@latin"}, []string{"sr-Latn-RS"}},
		{"C", map[string]string{"LANG": "C"}, nil},
		{"C.UTF-8", map[string]string{"LANG": "C.UTF-8"}, nil},
		{"POSIX", map[string]string{"LC_ALL": "POSIX", "LANG": "de_DE.UTF-8"}, nil},
		{"LC_ALL beats LANG", map[string]string{"LC_ALL": "pt_BR.UTF-8", "LANG": "de_DE.UTF-8"}, []string{"pt-BR"}},
		{"LC_MESSAGES beats LANG", map[string]string{"LC_MESSAGES": "en_GB.UTF-8", "LANG": "de_DE.UTF-8"}, []string{"en-GB"}},
		{"empty LC_ALL ignored", map[string]string{"LC_ALL": "", "LANG": "it_IT.UTF-8"}, []string{"it-IT"}},
		{
			"LANGUAGE list first, deduplicated",
			map[string]string{"LANGUAGE": "de_CH:de:en", "LANG": "de_DE.UTF-8"},
			[]string{"de-CH", "de", "en", "de-DE"},
		},
		{
			"LANGUAGE duplicates the locale",
			map[string]string{"LANGUAGE": "en_GB:en", "LANG": "en_GB.UTF-8"},
			[]string{"en-GB", "en"},
		},
		{"LANGUAGE ignored under C", map[string]string{"LANGUAGE": "de", "LANG": "C.UTF-8"}, nil},
		{"LANGUAGE ignored when locale unset", map[string]string{"LANGUAGE": "de"}, nil},
		{"LANGUAGE bad entries skipped", map[string]string{"LANGUAGE": "::xx_YY:%%:nl", "LANG": "fr_BE.UTF-8"}, []string{"nl", "fr-BE"}},
		{"garbage locale", map[string]string{"LANG": "!!!"}, nil},
		{"zh_TW", map[string]string{"LANG": "zh_TW.UTF-8"}, []string{"zh-TW"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LanguagesFrom(envOf(tt.env)); !slices.Equal(got, tt.want) {
				t.Errorf("LanguagesFrom(%v) = %q, want %q", tt.env, got, tt.want)
			}
		})
	}
}

func TestCountryFrom(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"nothing set", nil, ""},
		{"LANG", map[string]string{"LANG": "de_DE.UTF-8"}, "DE"},
		{"lower-case region", map[string]string{"LANG": "en_gb"}, "GB"},
		{"no region", map[string]string{"LANG": "de.UTF-8"}, ""},
		{"C", map[string]string{"LANG": "C.UTF-8"}, ""},
		{"LC_MONETARY beats LANG", map[string]string{"LANG": "en_US.UTF-8", "LC_MONETARY": "de_DE.UTF-8"}, "DE"},
		{"LC_ADDRESS beats LC_TIME", map[string]string{"LC_TIME": "fr_FR.UTF-8", "LC_ADDRESS": "nl_BE.UTF-8"}, "BE"},
		{"LC_ALL decides alone", map[string]string{"LC_ALL": "ja_JP.UTF-8", "LC_MONETARY": "de_DE.UTF-8"}, "JP"},
		{"LC_ALL without region", map[string]string{"LC_ALL": "C", "LANG": "de_DE.UTF-8"}, ""},
		{"LC_MESSAGES after LANG", map[string]string{"LANG": "de", "LC_MESSAGES": "de_AT.UTF-8"}, "AT"},
		{"LANGUAGE last", map[string]string{"LANG": "en", "LANGUAGE": "en:en_NZ"}, "NZ"},
		{"region that is not a country", map[string]string{"LANG": "es_419.UTF-8"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CountryFrom(envOf(tt.env)); got != tt.want {
				t.Errorf("CountryFrom(%v) = %q, want %q", tt.env, got, tt.want)
			}
		})
	}
}

func TestDefaultPrefsFrom(t *testing.T) {
	tests := []struct {
		name        string
		env         map[string]string
		goos, arch  string
		want        metalink.Prefs
		selectsFile metalink.File
		skipsFile   metalink.File
	}{
		{
			name: "German Linux",
			env:  map[string]string{"LANG": "de_DE.UTF-8"},
			goos: "linux", arch: "amd64",
			want:        metalink.Prefs{Languages: []string{"de-DE"}, OS: []string{"linux/amd64"}, Locations: []string{"DE"}},
			selectsFile: metalink.File{Languages: []string{"de"}, OS: []string{"Linux-x64"}},
			skipsFile:   metalink.File{Languages: []string{"de"}, OS: []string{"Linux-x86"}},
		},
		{
			name: "C locale on an Intel Mac",
			env:  map[string]string{"LANG": "C"},
			goos: "darwin", arch: "amd64",
			want:        metalink.Prefs{OS: []string{"darwin/amd64"}},
			selectsFile: metalink.File{Languages: []string{"ja"}, OS: []string{"MacOSX-Intel"}},
			skipsFile:   metalink.File{OS: []string{"MacOSX-PPC"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DefaultPrefsFrom(envOf(tt.env), tt.goos, tt.arch)
			if !slices.Equal(got.Languages, tt.want.Languages) || !slices.Equal(got.OS, tt.want.OS) ||
				!slices.Equal(got.Locations, tt.want.Locations) {
				t.Fatalf("DefaultPrefsFrom = %+v, want %+v", got, tt.want)
			}
			if ok, why := tt.selectsFile.Selected(got); !ok {
				t.Errorf("file %+v not selected: %s", tt.selectsFile, why)
			}
			if ok, _ := tt.skipsFile.Selected(got); ok {
				t.Errorf("file %+v selected, want skipped", tt.skipsFile)
			}
		})
	}
}

func TestRunningSystem(t *testing.T) {
	// The running system must select a file built for itself and nothing
	// for another system.
	p := DefaultPrefs()
	if len(p.OS) != 1 {
		t.Fatalf("DefaultPrefs().OS = %q, want one name", p.OS)
	}
	self := metalink.ParseOS(p.OS[0])
	if self.System == "" || len(self.Arch) != 1 {
		t.Fatalf("ParseOS(%q) = %+v: the running system is not understood", p.OS[0], self)
	}
	if ok, why := (metalink.File{OS: OS()}).Selected(p); !ok {
		t.Errorf("a file for %q is not selected on it: %s", OS(), why)
	}
	if ok, _ := (metalink.File{OS: []string{"Plan9-m68k"}}).Selected(p); ok {
		t.Errorf("a file for Plan9-m68k is selected on %q", OS())
	}
}

// DefaultPrefsFrom is DefaultPrefs for the given environment and system,
// ignoring the system's locale settings.
func DefaultPrefsFrom(env LookupEnv, goos, goarch string) metalink.Prefs {
	return DefaultPrefsWith(env, SystemLocale{}, goos, goarch)
}
