package clocale_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"braid/platform/clocale"

	"fyne.io/fyne/v2/lang"
)

func TestFix(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want map[string]string // variables set by Fix
	}{
		{"LANG C.UTF-8", map[string]string{"LANG": "C.UTF-8"}, map[string]string{"LC_MESSAGES": "C"}},
		{"LANG POSIX.utf8", map[string]string{"LANG": "POSIX.utf8"}, map[string]string{"LC_MESSAGES": "POSIX"}},
		{"LC_ALL C.UTF-8", map[string]string{"LC_ALL": "C.UTF-8", "LANG": "de_DE.UTF-8"}, map[string]string{"LC_ALL": "C"}},
		{"LC_MESSAGES wins over LANG", map[string]string{"LC_MESSAGES": "fr_FR.UTF-8", "LANG": "C.UTF-8"}, map[string]string{}},
		{"a real language", map[string]string{"LANG": "de_DE.UTF-8"}, map[string]string{}},
		{"plain C", map[string]string{"LANG": "C"}, map[string]string{}},
		{"nothing set", map[string]string{}, map[string]string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := map[string]string{}
			clocale.Fix(func(k string) string { return c.env[k] },
				func(k, v string) error { set[k] = v; return nil })
			if len(set) != len(c.want) {
				t.Fatalf("set %v, want %v", set, c.want)
			}
			for k, v := range c.want {
				if set[k] != v {
					t.Fatalf("set %v, want %v", set, c.want)
				}
			}
		})
	}
}

// The real thing: a process started under LANG=C.UTF-8 that imports Fyne
// must not log a locale error, and Fyne must still translate (to English).
func TestFyneStartsQuietlyUnderCUTF8(t *testing.T) {
	if os.Getenv("BRAID_CLOCALE_CHILD") == "1" {
		os.Stdout.WriteString(lang.L("Cancel"))
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFyneStartsQuietlyUnderCUTF8$")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8", "BRAID_CLOCALE_CHILD=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "Error parsing user locale") {
		t.Fatalf("Fyne logged a locale error:\n%s", out)
	}
	if !strings.HasPrefix(string(out), "Cancel") {
		t.Fatalf("child output %q, want Fyne's English \"Cancel\" first", out)
	}
}
