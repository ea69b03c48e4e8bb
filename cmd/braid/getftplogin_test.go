package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/ftptest"
	"braid/engine/metalink"
	"braid/internal/testkit"
)

// TestGetFTPLogin: an ftp link whose server takes no anonymous login is
// read and downloaded with --ftp-user and its password (from a file), and
// inspected with them; without them get and inspect say the server asks
// for a login. The link is read (its size) with the login too, not only
// the download.
func TestGetFTPLogin(t *testing.T) {
	t.Parallel()
	const user, pass = "ann", "ftp-login-pw-5"
	data := testkit.Data(300 << 10)
	s := ftptest.New(t, ftptest.File("pub/a.bin", data), ftptest.User(user, pass))
	link := s.URL("pub/a.bin")
	passFile := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(passFile, []byte(pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	login := []string{"--ftp-user", user, "--ftp-passwd-file", passFile}

	dir, state := t.TempDir(), t.TempDir()
	code, out, errOut := pcRun(t, cmdGet, "--state", state, "-d", dir, "--retry-for", "2s", link)
	if code != 1 || !strings.Contains(errOut, "asks for a login (530 ") || !strings.Contains(errOut, "; --ftp-user and --ftp-passwd-file give one\n") {
		t.Errorf("get without the login: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = pcRun(t, cmdGet, append([]string{"--state", state, "-d", dir, "--retry-for", "2s", link}, login...)...)
	if code != 0 {
		t.Fatalf("get with the login: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "a.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("a.bin: %v", err)
	}
	testkit.NoSecretIn(t, state, pass)

	if code, out, errOut := inspectRun(t, metalink.Prefs{}, link); code != 1 || !strings.Contains(errOut, "asks for a login") {
		t.Errorf("inspect without the login: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	r := inspectJSON(t, metalink.Prefs{}, append(login, link)...)
	if len(r.Files) != 1 || r.Files[0].Size != int64(len(data)) {
		t.Errorf("inspect with the login: files %+v", r.Files)
	}
}
