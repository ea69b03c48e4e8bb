package platform

import (
	"reflect"
	"testing"
)

func TestAppleLocale(t *testing.T) {
	tests := []struct {
		name              string
		languages, locale string // `defaults read -g` output, as printed
		want              SystemLocale
	}{
		{
			"quoted and plain entries",
			"(\n    \"en-GB\",\n    de,\n    \"zh-Hans-CN\"\n)\n", "en_GB\n",
			SystemLocale{Languages: []string{"en-GB", "de", "zh-Hans-CN"}, Country: "GB"},
		},
		{
			"locale language appended once",
			"(\n    \"de-DE\"\n)\n", "de_DE@currency=EUR\n",
			SystemLocale{Languages: []string{"de-DE"}, Country: "DE"},
		},
		{
			"region override wins",
			"(\n    \"en-US\"\n)\n", "en_US@rg=dezzzz\n",
			SystemLocale{Languages: []string{"en-US"}, Country: "DE"},
		},
		{
			"override among other keywords",
			"", "fr_CA@calendar=gregorian;rg=chzzzz\n",
			SystemLocale{Languages: []string{"fr-CA"}, Country: "CH"},
		},
		{
			"script in the locale",
			"", "zh-Hant_TW\n",
			SystemLocale{Languages: []string{"zh-Hant-TW"}, Country: "TW"},
		},
		{
			"region that is no country",
			"(\n    \"es-419\"\n)\n", "es_419\n",
			SystemLocale{Languages: []string{"es-419"}},
		},
		{
			"language only",
			"(\n    fr\n)\n", "fr\n",
			SystemLocale{Languages: []string{"fr"}},
		},
		{"both unset (defaults failed)", "", "", SystemLocale{}},
		{
			"not an array, garbage locale",
			"The domain/default pair of (kCFPreferencesAnyApplication, AppleLanguages) does not exist\n", "###\n",
			SystemLocale{},
		},
		{
			"invalid entries skipped",
			"(\n    \"not a language\",\n    \"\",\n    \"pt-BR\"\n)\n", "",
			SystemLocale{Languages: []string{"pt-BR"}},
		},
		{
			"canonical and deduplicated",
			"(\n    \"EN-us\",\n    \"en-US\"\n)\n", "en_US\n",
			SystemLocale{Languages: []string{"en-US"}, Country: "US"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := appleLocale(tt.languages, tt.locale); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("appleLocale(%q, %q) = %+v, want %+v", tt.languages, tt.locale, got, tt.want)
			}
		})
	}
}

func TestWindowsLocale(t *testing.T) {
	tests := []struct {
		name        string
		ui          []string
		locale, geo string
		want        SystemLocale
	}{
		{
			"UI languages, then the locale",
			[]string{"de-DE", "en-US"}, "de-CH", "CH",
			SystemLocale{Languages: []string{"de-DE", "en-US", "de-CH"}, Country: "CH"},
		},
		{
			"home location beats the locale's region",
			[]string{"en-US"}, "en-GB", "NL",
			SystemLocale{Languages: []string{"en-US", "en-GB"}, Country: "NL"},
		},
		{
			"no home location: the locale's region",
			[]string{"en-US"}, "en-GB", "",
			SystemLocale{Languages: []string{"en-US", "en-GB"}, Country: "GB"},
		},
		{
			"home location a wider region",
			nil, "es-MX", "419",
			SystemLocale{Languages: []string{"es-MX"}, Country: "MX"},
		},
		{
			"sort order dropped",
			nil, "de-DE_phoneb", "",
			SystemLocale{Languages: []string{"de-DE"}, Country: "DE"},
		},
		{
			"script kept",
			[]string{"sr-Latn-RS"}, "sr-Latn-RS", "RS",
			SystemLocale{Languages: []string{"sr-Latn-RS"}, Country: "RS"},
		},
		{"nothing readable", nil, "", "", SystemLocale{}},
		{
			"garbage skipped",
			[]string{"", "??"}, "!!", "ZZZZ",
			SystemLocale{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := windowsLocale(tt.ui, tt.locale, tt.geo); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("windowsLocale(%q, %q, %q) = %+v, want %+v", tt.ui, tt.locale, tt.geo, got, tt.want)
			}
		})
	}
}

// The environment decides when it names a locale; the system's settings
// fill in what it leaves open.
func TestDefaultPrefsWith(t *testing.T) {
	sys := SystemLocale{Languages: []string{"de-DE", "en-US"}, Country: "AT"}
	tests := []struct {
		name        string
		env         map[string]string
		wantLangs   []string
		wantCountry string
	}{
		{"nothing set: the system", nil, []string{"de-DE", "en-US"}, "AT"},
		{"LANG set: the environment", map[string]string{"LANG": "fr_FR.UTF-8"}, []string{"fr-FR"}, "FR"},
		{"explicit C: no language, the system's country", map[string]string{"LANG": "C"}, nil, "AT"},
		{"only LC_CTYPE (macOS Terminal): the system", map[string]string{"LC_CTYPE": "UTF-8"}, []string{"de-DE", "en-US"}, "AT"},
		{"LANG without a region: the system's country", map[string]string{"LANG": "it"}, []string{"it"}, "AT"},
		{"LC_MONETARY gives the country only", map[string]string{"LC_MONETARY": "nl_NL.UTF-8"}, []string{"de-DE", "en-US"}, "NL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := DefaultPrefsWith(envOf(tt.env), sys, "darwin", "arm64")
			if !reflect.DeepEqual(p.Languages, tt.wantLangs) {
				t.Errorf("Languages = %q, want %q", p.Languages, tt.wantLangs)
			}
			var country string
			if len(p.Locations) > 0 {
				country = p.Locations[0]
			}
			if country != tt.wantCountry || len(p.Locations) > 1 {
				t.Errorf("Locations = %q, want [%s]", p.Locations, tt.wantCountry)
			}
		})
	}
	// The languages are the caller's to change; System's answer is shared.
	p := DefaultPrefsWith(envOf(nil), sys, "darwin", "arm64")
	p.Languages[0] = "xx"
	if sys.Languages[0] != "de-DE" {
		t.Errorf("changing the prefs changed the system locale: %q", sys.Languages)
	}
}
