package units

import (
	"testing"

	"golang.org/x/text/language"
)

// TestBytes: binary sizes with IEC names, the number as English and
// German write it.
func TestBytes(t *testing.T) {
	de := For(language.German)
	for _, c := range []struct {
		n      int64
		en, de string
	}{
		{0, "0 B", "0 B"}, {1023, "1023 B", "1023 B"}, {1024, "1.0 KiB", "1,0 KiB"}, {1536, "1.5 KiB", "1,5 KiB"},
		{203776, "199 KiB", "199 KiB"}, {6 << 20, "6.0 MiB", "6,0 MiB"}, {60 << 20, "60.0 MiB", "60,0 MiB"},
		{106797808, "102 MiB", "102 MiB"}, {(100 << 20) - 1, "100 MiB", "100 MiB"}, {5 << 40, "5.0 TiB", "5,0 TiB"},
		{1 << 62, "4.0 EiB", "4,0 EiB"},
	} {
		if got := English.Bytes(c.n); got != c.en {
			t.Errorf("English.Bytes(%d) = %q, want %q", c.n, got, c.en)
		}
		if got := de.Bytes(c.n); got != c.de {
			t.Errorf("German Bytes(%d) = %q, want %q", c.n, got, c.de)
		}
	}
	if got := (Format{}).Rate(500 << 10); got != "500 KiB/s" {
		t.Errorf("zero Format Rate = %q", got)
	}
	if got, want := de.Int(62914560), "62.914.560"; got != want {
		t.Errorf("German Int = %q, want %q", got, want)
	}
	if got, want := English.Int(62914560), "62,914,560"; got != want {
		t.Errorf("English Int = %q, want %q", got, want)
	}
	for in, want := range map[string]string{"de_DE.UTF-8": "6,0 MiB", "de-DE": "6,0 MiB", "C": "6.0 MiB", "": "6.0 MiB", "POSIX": "6.0 MiB", "en_US.UTF-8": "6.0 MiB"} {
		if got := Parse(in).Bytes(6 << 20); got != want {
			t.Errorf("Parse(%q).Bytes = %q, want %q", in, got, want)
		}
	}
}
