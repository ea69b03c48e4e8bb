//go:build !windows && !darwin

package platform

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func tempDesktop(t *testing.T) Desktop {
	t.Helper()
	root := t.TempDir()
	d, err := DesktopFor(func(k string) string {
		switch k {
		case "XDG_DATA_HOME":
			return filepath.Join(root, "data")
		case "XDG_CONFIG_HOME":
			return filepath.Join(root, "config")
		}
		return ""
	}, "/opt/Braid Apps/braid", map[int][]byte{16: []byte("png16"), 256: []byte("png256")})
	if err != nil {
		t.Fatal(err)
	}
	// Keep the tools away from the real desktop: only our XDG folders.
	d.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "XDG_DATA_DIRS=" + filepath.Join(root, "none")}
	return d
}

func queryDefault(t *testing.T, d Desktop, mimeType string) string {
	t.Helper()
	cmd := exec.Command("xdg-mime", "query", "default", mimeType)
	cmd.Env = append(d.Env, "XDG_DATA_HOME="+d.DataHome, "XDG_CONFIG_HOME="+d.ConfigHome)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xdg-mime query default %s: %v", mimeType, err)
	}
	return strings.TrimSpace(string(out))
}

func TestInstallMakesBraidTheDefault(t *testing.T) {
	if _, err := exec.LookPath("xdg-mime"); err != nil {
		t.Skip("xdg-utils is not installed (make setup installs it)")
	}
	d := tempDesktop(t)
	// Another application's association must survive uninstall.
	if err := os.MkdirAll(d.ConfigHome, 0o755); err != nil {
		t.Fatal(err)
	}
	other := "[Default Applications]\ntext/plain=org.example.editor.desktop\n"
	editor := "[Desktop Entry]\nType=Application\nName=Editor\nExec=editor %f\nMimeType=text/plain;\n"
	if err := writeFileAtomic(filepath.Join(d.DataHome, "applications", "org.example.editor.desktop"), []byte(editor)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.ConfigHome, "mimeapps.list"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}

	notes, err := d.Install(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if strings.Contains(n, "xdg-mime") {
			t.Fatalf("xdg-mime failed: %s", n)
		}
	}
	for _, mt := range MIMETypes {
		if got := queryDefault(t, d, mt); got != AppID+".desktop" {
			t.Errorf("default for %s = %q, want %s", mt, got, AppID+".desktop")
		}
	}
	entry, err := os.ReadFile(d.desktopFile())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`Exec="/opt/Braid Apps/braid" %U`,
		"MimeType=application/metalink4+xml;application/metalink+xml;application/x-bittorrent;x-scheme-handler/magnet;",
		"Icon=" + AppID,
	} {
		if !strings.Contains(string(entry), want) {
			t.Errorf("desktop entry lacks %q:\n%s", want, entry)
		}
	}
	if _, err := exec.LookPath("desktop-file-validate"); err == nil {
		if out, err := exec.Command("desktop-file-validate", d.desktopFile()).CombinedOutput(); err != nil {
			t.Errorf("desktop-file-validate: %v\n%s", err, out)
		}
	}
	if got, err := os.ReadFile(d.iconFile(256)); err != nil || string(got) != "png256" {
		t.Errorf("256 px icon = %q, %v", got, err)
	}
	if _, err := exec.LookPath("update-mime-database"); err == nil {
		// The MIME database now knows .meta4 by its glob.
		globs, err := os.ReadFile(filepath.Join(d.DataHome, "mime", "globs2"))
		if err != nil || !strings.Contains(string(globs), "application/metalink4+xml:*.meta4") {
			t.Errorf("mime globs2 lacks .meta4: %v\n%s", err, globs)
		}
	}

	if _, err := d.Uninstall(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, mt := range MIMETypes {
		if got := queryDefault(t, d, mt); got != "" {
			t.Errorf("after uninstall, default for %s = %q", mt, got)
		}
	}
	for _, p := range []string{d.desktopFile(), d.mimePackage(), d.iconFile(16), d.iconFile(256)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still there after uninstall (%v)", p, err)
		}
	}
	// xdg-mime ignores entries whose .desktop file is gone, so look at the
	// list itself: no line may still name Braid.
	list, err := os.ReadFile(filepath.Join(d.ConfigHome, "mimeapps.list"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(list), AppID) {
		t.Errorf("mimeapps.list still names Braid after uninstall:\n%s", list)
	}
	if got := queryDefault(t, d, "text/plain"); got != "org.example.editor.desktop" {
		t.Errorf("uninstall touched another application's default: text/plain = %q", got)
	}
}

func TestQuoteExec(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/usr/bin/braid", `"/usr/bin/braid"`},
		{"/opt/my apps/braid", `"/opt/my apps/braid"`},
		{`/opt/$HOME/a"b`, `"/opt/\\$HOME/a\\"b"`},
		{`/opt/back\slash`, `"/opt/back\\\\slash"`},
	} {
		if got := quoteExec(c.in); got != c.want {
			t.Errorf("quoteExec(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestDropAssociations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mimeapps.list")
	in := "[Default Applications]\napplication/metalink4+xml=braid.desktop\ntext/plain=ed.desktop\n" +
		"[Added Associations]\napplication/x-bittorrent=other.desktop;braid.desktop;\n# braid.desktop stays in comments\n"
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := dropAssociations(path, "braid.desktop"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "[Default Applications]\ntext/plain=ed.desktop\n" +
		"[Added Associations]\napplication/x-bittorrent=other.desktop;\n# braid.desktop stays in comments\n"
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
