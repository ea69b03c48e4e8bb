package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/netconf/netconftest"
	"braid/engine/signature/signaturetest"
)

// TestInspectThroughProxy: inspect and keys import take get's network
// flags. The sources (a metalink of a ZIP, the ZIP itself, an OpenPGP
// key) and the ZIP's only mirror are on an nginx that serves only what
// came through tinyproxy. Without --all-proxy each source is refused
// (exit 1, the server's 403); with it, the metalink is read and the ZIP's
// members are listed from its mirror, the plain URL's members too, and
// the key is imported.
func TestInspectThroughProxy(t *testing.T) {
	t.Parallel()
	archive, _, _ := zipArchive(t)
	key := signaturetest.New(t, "Ann", "ann@example.org")
	proxy := netconftest.Tinyproxy(t, "", "")
	origin := netconftest.ProxiedOnly(t, map[string][]byte{"kit.zip": archive, "ann.asc": key.PublicArmored(t)})
	meta, err := os.ReadFile(pcMeta4(t, pcFile("kit.zip", archive, 1<<20, origin.URL+"/p/kit.zip")))
	if err != nil {
		t.Fatal(err)
	}
	// nginx serves what is on its disk: the metalink names the origin's
	// own address, known once it runs.
	if err := os.WriteFile(filepath.Join(origin.Dir, "www", "p", "kit.meta4"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{origin.URL + "/p/kit.meta4", origin.URL + "/p/kit.zip"} {
		if code, out, errOut := inspectRun(t, metalink.Prefs{}, src); code != 1 || !strings.Contains(errOut, "403") {
			t.Errorf("inspect %s around the proxy: exit %d\nstdout:\n%s\nstderr:\n%s", src, code, out, errOut)
		}
		r := inspectJSON(t, metalink.Prefs{}, "--all-proxy", proxy, src)
		if a := r.Archive; a == nil || !a.Listed || len(a.Members) != 3 || a.Mirrors != 1 {
			t.Errorf("inspect %s through the proxy: archive %+v", src, a)
		}
	}

	state := t.TempDir()
	keyURL := origin.URL + "/p/ann.asc"
	if code, out, errOut := pcRun(t, cmdKeys, "--state", state, "import", keyURL); code != 1 || !strings.Contains(errOut, "403") {
		t.Errorf("keys import around the proxy: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut := pcRun(t, cmdKeys, "--state", state, "--all-proxy", proxy, "import", keyURL)
	if code != 0 || !strings.Contains(out, key.Fingerprint()) {
		t.Errorf("keys import through the proxy: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestInspectWithLogin: inspect sends --http-user's login to its source's
// server (nginx's auth_basic), and lists the ZIP's members with it;
// without it the server's 401 is told in a sentence.
func TestInspectWithLogin(t *testing.T) {
	t.Parallel()
	archive, _, _ := zipArchive(t)
	origin := netconftest.Nginx(t, map[string][]byte{"kit.zip": archive}, "ann", "s3cret-pass")
	src := origin.URL + "/basic/kit.zip"
	code, out, errOut := inspectRun(t, metalink.Prefs{}, src)
	if code != 1 || !strings.Contains(errOut, "asks for a login") {
		t.Errorf("inspect without the login: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	pass := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(pass, []byte("s3cret-pass\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := inspectJSON(t, metalink.Prefs{}, "--http-user", "ann", "--http-passwd-file", pass, src)
	if a := r.Archive; a == nil || !a.Listed || len(a.Members) != 3 {
		t.Errorf("inspect with the login: archive %+v", a)
	}
}
