package packaging

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const syso = "../cmd/braid/rsrc_windows_amd64.syso"

// braidVersion is the version cmd/braid says it is (braid --version).
func braidVersion(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../cmd/braid/cli.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^var version = "([0-9]+\.[0-9]+\.[0-9]+)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal(`cmd/braid/cli.go has no line var version = "x.y.z"`)
	}
	return string(m[1])
}

// TestResourceVersionIsBraids: the version braid.exe shows in Explorer's
// Properties is the one braid --version prints.
func TestResourceVersionIsBraids(t *testing.T) {
	v := braidVersion(t)
	data, err := os.ReadFile("windows/winres.json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Version map[string]map[string]struct {
			Fixed struct {
				File    string `json:"file_version"`
				Product string `json:"product_version"`
			} `json:"fixed"`
			Info map[string]map[string]string `json:"info"`
		} `json:"RT_VERSION"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatalf("windows/winres.json: %v", err)
	}
	vi := res.Version["#1"]["0000"]
	if vi.Fixed.File != v+".0" || vi.Fixed.Product != v+".0" {
		t.Errorf("winres.json's fixed versions are %q and %q, braid is %s", vi.Fixed.File, vi.Fixed.Product, v)
	}
	info := vi.Info["0409"]
	if info["FileVersion"] != v || info["ProductVersion"] != v {
		t.Errorf("winres.json's version strings are %q and %q, braid is %s", info["FileVersion"], info["ProductVersion"], v)
	}
}

// TestSysoIsCurrent fails while cmd/braid's committed .syso differs from
// what go-winres makes of windows/winres.json and the icons in assets/.
func TestSysoIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go-winres, which go run may first download")
	}
	out := filepath.Join(t.TempDir(), "rsrc")
	cmd := exec.Command("go", "run", "github.com/tc-hib/go-winres@"+WinresVersion,
		"make", "--in", "packaging/windows/winres.json", "--arch", "amd64", "--out", out)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go-winres: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out + "_windows_amd64.syso")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(syso)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what go-winres makes of windows/winres.json: run `go generate ./packaging`", strings.TrimPrefix(syso, "../"))
	}
}
