//go:build linux

package deb

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	appID    = "io.github.braid_dm.braid" // platform.AppID, nativehost.Name
	version  = "0.0.1~test1"
	launcher = "/usr/lib/braid/native-host.sh"
)

// manifests are the native messaging host manifests the package installs,
// each with whether it is Firefox's shape.
var manifests = map[string]bool{
	"/etc/opt/chrome/native-messaging-hosts/" + appID + ".json":  false,
	"/etc/chromium/native-messaging-hosts/" + appID + ".json":    false,
	"/etc/opt/edge/native-messaging-hosts/" + appID + ".json":    false,
	"/usr/lib/mozilla/native-messaging-hosts/" + appID + ".json": true,
}

// TestInstallRemove builds the package with build.sh, installs it with
// dpkg into a private root (its own database; the machine's is never
// touched), checks what the desktop, shared-mime-info and the browsers
// read and that the installed braid runs and finds its window, then
// removes and purges it and checks that nothing of it is left.
func TestInstallRemove(t *testing.T) {
	for _, tool := range []string{"dpkg-deb", "dpkg", "dpkg-query", "dpkg-shlibdeps"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian's dpkg and dpkg-dev): the package can be neither built nor installed here", tool)
		}
	}
	hostHad := exec.Command("dpkg-query", "-W", "braid").Run() == nil

	start := time.Now()
	deb := build(t)
	t.Logf("built %s in %v", filepath.Base(deb), time.Since(start).Round(time.Millisecond))

	fields := run(t, nil, "dpkg-deb", "-f", deb, "Package", "Version", "Depends")
	for _, want := range []string{"Package: braid\n", "Version: " + version + "\n", "libc6", "libgl1", "libx11-6"} {
		if !strings.Contains(fields, want) {
			t.Errorf("the package's control says\n%s\nwant %q in it", fields, want)
		}
	}

	root := t.TempDir()
	admin := filepath.Join(root, "var", "lib", "dpkg")
	for _, d := range []string{"info", "updates"} {
		if err := os.MkdirAll(filepath.Join(admin, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(admin, "status"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// --root gives dpkg the private folder as / and its database under it;
	// the log goes there too. The package has no maintainer scripts, and
	// its libraries are not in the empty database: --force-depends.
	dpkg := func(args ...string) {
		t.Helper()
		begin := time.Now()
		run(t, nil, "dpkg", append([]string{"--root=" + root, "--log=" + filepath.Join(root, "dpkg.log"),
			"--force-not-root", "--force-script-chrootless", "--force-depends"}, args...)...)
		t.Logf("dpkg %s in %v", args[0], time.Since(begin).Round(time.Millisecond))
	}
	dpkg("--install", deb)

	t.Run("files", func(t *testing.T) { checkFiles(t, root) })
	t.Run("braid runs", func(t *testing.T) { checkRuns(t, root) })
	t.Run("desktop entry", func(t *testing.T) { checkDesktop(t, root) })
	t.Run("MIME types", func(t *testing.T) { checkMIME(t, root) })
	t.Run("native host", func(t *testing.T) { checkHosts(t, root) })
	t.Run("as braid install", func(t *testing.T) { checkSameAsInstall(t, root) })

	// Removing keeps the conffiles (the manifests under /etc), as for
	// every package; purging removes them too.
	dpkg("--remove", "braid")
	var conffiles []string
	for m := range manifests {
		if strings.HasPrefix(m, "/etc/") {
			conffiles = append(conffiles, m)
		}
	}
	slices.Sort(conffiles)
	if left := leftFiles(t, root); !slices.Equal(left, conffiles) {
		t.Errorf("after dpkg --remove these are left: %q; want only the conffiles %q", left, conffiles)
	}
	dpkg("--purge", "braid")
	if left := leftFiles(t, root); len(left) > 0 {
		t.Errorf("after dpkg --purge these are left: %q", left)
	}
	if out, err := exec.Command("dpkg-query", "--admindir="+admin, "-W", "braid").CombinedOutput(); err == nil {
		t.Errorf("after dpkg --purge the private database still knows braid: %s", out)
	}
	if !hostHad && exec.Command("dpkg-query", "-W", "braid").Run() == nil {
		t.Errorf("the machine's dpkg database lists braid after the test")
	}
	t.Logf("the whole test took %v", time.Since(start).Round(time.Millisecond))
}

// build runs build.sh into a temporary folder and returns the package's
// path. zstd instead of xz: the same package in a second instead of a
// minute of CPU.
func build(t *testing.T) string {
	t.Helper()
	out := run(t, []string{"DEB_COMPRESSION=zstd"}, "./build.sh", version, t.TempDir())
	deb := strings.TrimSpace(out)
	if fi, err := os.Stat(deb); err != nil || !strings.HasSuffix(deb, ".deb") || fi.Size() == 0 {
		t.Fatalf("build.sh printed %q, which is not the package it built (%v)", out, err)
	}
	return deb
}

// run runs a command with env added to the test's environment and returns
// its standard output; it fails the test with both outputs when the
// command fails.
func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.String()
}

func checkFiles(t *testing.T, root string) {
	want := map[string]fs.FileMode{
		"/usr/lib/braid/braid":        0o755,
		"/usr/lib/braid/braid-window": 0o755,
		launcher:                      0o755,
		"/usr/share/applications/" + appID + ".desktop": 0o644,
		"/usr/share/mime/packages/" + appID + ".xml":    0o644,
		"/usr/share/doc/braid/copyright":                0o644,
	}
	for _, size := range []string{"16", "32", "48", "128", "256", "512"} {
		want["/usr/share/icons/hicolor/"+size+"x"+size+"/apps/"+appID+".png"] = 0o644
	}
	for m := range manifests {
		want[m] = 0o644
	}
	for p, mode := range want {
		fi, err := os.Lstat(filepath.Join(root, p))
		if err != nil {
			t.Errorf("%s is not installed: %v", p, err)
			continue
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm() != mode {
			t.Errorf("%s is %v, want a file with mode %v", p, fi.Mode(), mode)
		}
	}
	// braid finds braid-window beside the binary its link resolves to.
	if target, err := os.Readlink(filepath.Join(root, "usr/bin/braid")); err != nil || target != "../lib/braid/braid" {
		t.Errorf("/usr/bin/braid: link to %q (%v), want ../lib/braid/braid", target, err)
	}
	copyright, err := os.ReadFile(filepath.Join(root, "usr/share/doc/braid/copyright"))
	if err != nil || !bytes.Contains(copyright, []byte("License: Apache-2.0")) || !bytes.Contains(copyright, []byte("/usr/share/common-licenses/Apache-2.0")) {
		t.Errorf("the copyright file does not name Apache-2.0 and Debian's copy of it (%v):\n%s", err, copyright)
	}
}

// checkRuns runs the installed braid: its version is the package's, and
// without a display it hands `braid` to braid-window, which is the one
// that says a window needs a display (a braid that cannot find it says so
// instead).
func checkRuns(t *testing.T, root string) {
	braid := filepath.Join(root, "usr/bin/braid")
	if out := run(t, nil, braid, "--version"); !strings.HasPrefix(out, "braid "+version+" ") {
		t.Errorf("braid --version: %q, want the package's version %s", out, version)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			env = append(env, kv)
		}
	}
	tmp := t.TempDir()
	cmd := exec.Command(braid)
	cmd.Env = append(env, "PATH="+tmp, "XDG_RUNTIME_DIR="+tmp, "BRAID_STATE="+filepath.Join(tmp, "state"))
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "the window needs a display") {
		t.Errorf("the installed braid without a display: %v, %q; want braid-window's message and exit 1", err, out)
	}
}

func checkDesktop(t *testing.T, root string) {
	entry := filepath.Join(root, "usr/share/applications", appID+".desktop")
	if _, err := exec.LookPath("desktop-file-validate"); err != nil {
		t.Skip("desktop-file-validate is not installed (Debian's desktop-file-utils)")
	}
	if out, err := exec.Command("desktop-file-validate", entry).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("desktop-file-validate: %v\n%s", err, out)
	}
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			keys[k] = v
		}
	}
	if keys["Exec"] != `"/usr/bin/braid" %U` {
		t.Errorf("Exec=%s, want the installed braid with the files and links (%%U)", keys["Exec"])
	}
	types := strings.Split(keys["MimeType"], ";")
	for _, want := range []string{"application/metalink4+xml", "application/metalink+xml", "application/x-bittorrent", "x-scheme-handler/magnet"} {
		if !slices.Contains(types, want) {
			t.Errorf("MimeType=%s lacks %s", keys["MimeType"], want)
		}
	}
	if keys["Icon"] != appID {
		t.Errorf("Icon=%s, want %s (the hicolor icons' name)", keys["Icon"], appID)
	}
}

// checkMIME reads the package's shared-mime-info definitions as XML, then
// has update-mime-database compile a copy of them (the real database is
// the system's, and its dpkg trigger updates it) and reads the globs it
// made. update-mime-database exits 0 even for XML it cannot parse, so its
// errors are read too.
func checkMIME(t *testing.T, root string) {
	src := filepath.Join(root, "usr/share/mime/packages", appID+".xml")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		XMLName xml.Name `xml:"http://www.freedesktop.org/standards/shared-mime-info mime-info"`
		Types   []struct {
			Type  string `xml:"type,attr"`
			Globs []struct {
				Pattern string `xml:"pattern,attr"`
			} `xml:"glob"`
		} `xml:"mime-type"`
	}
	if err := xml.Unmarshal(b, &info); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	globs := map[string]string{}
	for _, mt := range info.Types {
		for _, g := range mt.Globs {
			globs[g.Pattern] = mt.Type
		}
	}
	want := map[string]string{"*.meta4": "application/metalink4+xml", "*.metalink": "application/metalink+xml"}
	for g, typ := range want {
		if globs[g] != typ {
			t.Errorf("%s is %q in the MIME definitions, want %s", g, globs[g], typ)
		}
	}

	if _, err := exec.LookPath("update-mime-database"); err != nil {
		t.Skip("update-mime-database is not installed (Debian's shared-mime-info)")
	}
	data := t.TempDir()
	mime := filepath.Join(data, "mime")
	if err := os.MkdirAll(filepath.Join(mime, "packages"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mime, "packages", appID+".xml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("update-mime-database", mime)
	cmd.Env = append(os.Environ(), "XDG_DATA_DIRS="+data, "XDG_DATA_HOME="+data)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("update-mime-database: %v\n%s", err, out)
	}
	compiled, err := os.ReadFile(filepath.Join(mime, "globs2"))
	if err != nil {
		t.Fatalf("update-mime-database made no globs: %v", err)
	}
	for g, typ := range want {
		if !strings.Contains(string(compiled), ":"+typ+":"+g+"\n") {
			t.Errorf("update-mime-database's globs lack %s for %s:\n%s", typ, g, compiled)
		}
	}
}

// checkHosts reads each manifest as its browser does: strict JSON of the
// right shape naming the host, which exists and may be run.
func checkHosts(t *testing.T, root string) {
	for path, firefox := range manifests {
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Error(err)
			continue
		}
		var m struct {
			Name              string   `json:"name"`
			Description       string   `json:"description"`
			Path              string   `json:"path"`
			Type              string   `json:"type"`
			AllowedOrigins    []string `json:"allowed_origins"`
			AllowedExtensions []string `json:"allowed_extensions"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if m.Name != appID || m.Name+".json" != filepath.Base(path) || m.Type != "stdio" || m.Description == "" {
			t.Errorf("%s: %+v; want name %s (the file's name), type stdio and a description", path, m, appID)
		}
		if m.Path != launcher {
			t.Errorf("%s names %q as the host, want %s", path, m.Path, launcher)
		}
		if fi, err := os.Stat(filepath.Join(root, m.Path)); err != nil || fi.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s names %s, which is not an installed program (%v)", path, m.Path, err)
		}
		switch {
		case firefox && (len(m.AllowedExtensions) == 0 || m.AllowedOrigins != nil):
			t.Errorf("%s is Firefox's: want allowed_extensions only, have %+v", path, m)
		case !firefox && (len(m.AllowedOrigins) == 0 || m.AllowedExtensions != nil):
			t.Errorf("%s is Chromium's: want allowed_origins only, have %+v", path, m)
		}
		for _, o := range m.AllowedOrigins {
			if !strings.HasPrefix(o, "chrome-extension://") || !strings.HasSuffix(o, "/") {
				t.Errorf("%s: %q is not an extension's origin", path, o)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(root, launcher))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("#!/bin/sh\n")) || !bytes.Contains(b, []byte("exec '/usr/bin/braid' 'native-host' \"$@\"\n")) {
		t.Errorf("%s does not start /usr/bin/braid native-host with the browser's arguments:\n%s", launcher, b)
	}
}

// checkSameAsInstall runs the installed braid's own `braid install` for a
// user with Chromium and Firefox, and compares what it wrote with the
// package's files: the same but for the paths of braid and the launcher.
func checkSameAsInstall(t *testing.T, root string) {
	home := t.TempDir()
	for _, d := range []string{".config/chromium", ".mozilla", "nopath"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := filepath.EvalSymlinks(filepath.Join(root, "usr/bin/braid"))
	if err != nil {
		t.Fatal(err)
	}
	// No desktop tool on PATH: they would write caches and mimeapps.list.
	run(t, []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "share"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + filepath.Join(home, "nopath")},
		filepath.Join(root, "usr/bin/braid"), "install")
	userLauncher := filepath.Join(home, "share/braid/native-host.sh")
	installed := strings.NewReplacer(userLauncher, launcher, exe, "/usr/bin/braid")
	same := func(user, pkg string) {
		t.Helper()
		u, err := os.ReadFile(user)
		if err != nil {
			t.Errorf("braid install wrote no %s: %v", user, err)
			return
		}
		p, err := os.ReadFile(filepath.Join(root, pkg))
		if err != nil {
			t.Error(err)
			return
		}
		if got := installed.Replace(string(u)); got != string(p) {
			t.Errorf("%s differs from what braid install writes:\n%s\nbraid install (paths replaced):\n%s", pkg, p, got)
		}
	}
	same(filepath.Join(home, "share/applications", appID+".desktop"), "/usr/share/applications/"+appID+".desktop")
	same(filepath.Join(home, "share/mime/packages", appID+".xml"), "/usr/share/mime/packages/"+appID+".xml")
	same(userLauncher, launcher)
	for path, firefox := range manifests {
		user := filepath.Join(home, ".config/chromium/NativeMessagingHosts", appID+".json")
		if firefox {
			user = filepath.Join(home, ".mozilla/native-messaging-hosts", appID+".json")
		}
		same(user, path)
	}
	icons := filepath.Join(home, "share/icons")
	n := 0
	err = filepath.WalkDir(icons, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(icons, p)
		same(p, "/usr/share/icons/"+rel)
		n++
		return nil
	})
	if err != nil || n == 0 {
		t.Errorf("braid install's icons: %d found (%v)", n, err)
	}
}

// leftFiles lists what is in root besides dpkg's own database and log and
// the folders the test made for them: what the package left behind.
func leftFiles(t *testing.T, root string) []string {
	t.Helper()
	var left []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch rel {
		case ".", "var", "var/lib", "dpkg.log":
			return nil
		case "var/lib/dpkg":
			return filepath.SkipDir
		}
		if d.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil || len(entries) > 0 {
				return err // what is inside is listed on its own
			}
		}
		left = append(left, "/"+rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(left)
	return left
}
