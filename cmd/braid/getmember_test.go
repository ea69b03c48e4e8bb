package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/engine/ziprange/ziptest"
)

// TestGetMember fetches two members of an archive on a ranged mirror: the
// files equal what was zipped, the outcome names the CRC-32, and the
// mirror served the tail, the two local headers and the members'
// compressed bytes, not the 3 MiB member before them.
func TestGetMember(t *testing.T) {
	t.Parallel()
	skipped := mirrortest.Bytes(3<<20, 50)
	notes := ziptest.Text(1<<20, 51)
	tool := mirrortest.Bytes(300<<10, 52)
	archive := ziptest.Make(t,
		ziptest.Entry{Name: "skipped.bin", Data: skipped, Method: zip.Store},
		ziptest.Entry{Name: "doc/notes.txt", Data: notes, Method: zip.Deflate},
		ziptest.Entry{Name: "bin/tool", Data: tool, Method: zip.Store},
		ziptest.Entry{Name: "tail.txt", Data: ziptest.Text(500, 53), Method: zip.Deflate},
	)
	m := mirrortest.New(t, archive, mirrortest.Path("/kit.zip"))
	dir := t.TempDir()
	code, out, errOut := runGet(t, "-d", dir, "--member", "doc/notes.txt", "--member", "bin/tool", m.URL())
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for name, want := range map[string][]byte{"doc/notes.txt": notes, "bin/tool": tool} {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(b, want) {
			t.Errorf("%s differs from what was zipped (%v)", name, err)
		}
		if !strings.Contains(out, name+": done, verified (CRC-32)") {
			t.Errorf("output does not say %s was verified by its CRC-32:\n%s", name, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "skipped.bin")); err == nil {
		t.Error("skipped.bin was written")
	}
	if served := m.BytesServed(); served >= int64(len(notes)+len(tool))+70<<10 || served < int64(len(tool)) {
		t.Errorf("the mirror served %d bytes of a %d-byte archive for %d + %d bytes of members", served, len(archive), len(notes)/2, len(tool))
	}

	// --json: one result line per member, naming the check.
	code, out, errOut = runGet(t, "--json", "-d", dir, "--member", "tail.txt", m.URL())
	if code != 0 {
		t.Fatalf("--json: exit %d\n%s\n%s", code, out, errOut)
	}
	var res jsonResult
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &res); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if res.Type != "result" || !res.OK || res.Outcome != "verified" || res.VerifiedBy != "CRC-32" || res.File != "tail.txt" || res.Bytes != 500 {
		t.Errorf("--json result %+v", res)
	}
}

// TestGetMemberRefusals: an encrypted member, a method Braid cannot
// inflate, a name that would leave the folder, a member that is not
// there and a server without ranges each get a sentence, exit 1, and
// nothing on disk; members that can be read still are.
func TestGetMemberRefusals(t *testing.T) {
	t.Parallel()
	good := ziptest.Text(10000, 54)
	archive := ziptest.Make(t,
		ziptest.Entry{Name: "big.bin", Data: mirrortest.Bytes(1<<20, 55), Method: zip.Store},
		ziptest.Entry{Name: "locked.txt", Data: good, Method: zip.Deflate},
		ziptest.Entry{Name: "bz.bin", Data: []byte("BZh91AY&SY"), Method: 12, Raw: true, Size: 10},
		ziptest.Entry{Name: "../up.txt", Data: good, Method: zip.Store},
		ziptest.Entry{Name: "good.txt", Data: good, Method: zip.Deflate},
	)
	ziptest.SetEncrypted(t, archive, "locked.txt")
	m := mirrortest.New(t, archive, mirrortest.Path("/r.zip"))
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errOut := runGet(t, "-d", dir,
		"--member", "locked.txt", "--member", "bz.bin", "--member", "../up.txt", "--member", "nope.txt", "--member", "good.txt", m.URL())
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"braid get: locked.txt: the member is encrypted, and Braid cannot decrypt ZIP members",
		"braid get: bz.bin: the member is compressed with method 12 (bzip2), which Braid cannot inflate (it reads stored and deflate members)",
		`braid get: ../up.txt: its name is refused, and nothing is written for it: a ".." path element would climb out of the download folder`,
		"braid get: nope.txt: the archive has no member of that name (braid inspect lists them)",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "good.txt: done, verified (CRC-32)") {
		t.Errorf("good.txt is not done:\n%s", out)
	}
	entries, _ := os.ReadDir(dir)
	parent, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 || entries[0].Name() != "good.txt" || len(parent) != 1 {
		t.Errorf("on disk: %v in the folder, %v beside it", entries, parent)
	}

	nr := mirrortest.New(t, archive, mirrortest.Path("/r.zip"), mirrortest.NoRanges())
	code, _, errOut = runGet(t, "-d", dir, "--member", "good.txt", nr.URL())
	if code != 1 || !strings.Contains(errOut, "the server does not send parts of files (byte ranges): reading an archive's list or one member needs them, so the whole archive must be downloaded") {
		t.Errorf("no ranges: exit %d, %s", code, errOut)
	}

	if code, _, errOut := runGet(t, "-d", dir, "--member", "good.txt", m.URL(), nr.URL()); code != 2 || !strings.Contains(errOut, "give one SOURCE, not 2") {
		t.Errorf("two sources: exit %d, %s", code, errOut)
	}
}

// TestGetMemberNetwork: --member reads through get's network flags. From
// Debian's nginx: a login from --http-user, a cookie from --load-cookies,
// a --header, and a proxy (tinyproxy) that is the only way there; a
// refused login gets the transport's sentence. The bytes equal what was
// zipped.
func TestGetMemberNetwork(t *testing.T) {
	t.Parallel()
	const user, pass = "zip-user", "Zip-pa55"
	member := ziptest.Text(200<<10, 56)
	archive := ziptest.Make(t,
		ziptest.Entry{Name: "pad.bin", Data: mirrortest.Bytes(512<<10, 57), Method: zip.Store},
		ziptest.Entry{Name: "m.txt", Data: member, Method: zip.Deflate},
		ziptest.Entry{Name: "pad2.bin", Data: mirrortest.Bytes(256<<10, 58), Method: zip.Store},
	)
	o := netconftest.Nginx(t, map[string][]byte{"a.zip": archive}, user, pass)
	cookies := filepath.Join(t.TempDir(), "cookies.txt")
	line := "127.0.0.2\tFALSE\t/\tFALSE\t0\t" + netconftest.CookieName + "\t" + netconftest.CookieValue + "\n"
	if err := os.WriteFile(cookies, []byte("# Netscape HTTP Cookie File\n"+line), 0o600); err != nil {
		t.Fatal(err)
	}
	proxy := netconftest.Tinyproxy(t, "", "")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"login", []string{"--no-netrc", "--http-user", user, "--http-passwd", pass, o.URL + "/basic/a.zip"}},
		{"cookie", []string{"--load-cookies", cookies, o.URL + "/cookie/a.zip"}},
		{"header", []string{"--header", netconftest.HeaderName + ": " + netconftest.HeaderValue, o.URL + "/header/a.zip"}},
		{"proxy", []string{"--all-proxy", proxy, o.URL + "/open/a.zip"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runGet(t, append([]string{"-d", dir, "--member", "m.txt"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "m.txt")); !bytes.Equal(got, member) {
				t.Fatal("m.txt differs from what was zipped")
			}
			if strings.Contains(out+errOut, pass) {
				t.Error("the password is in the output")
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		code, _, errOut := runGet(t, "--no-netrc", "-d", t.TempDir(), "--member", "m.txt", "--http-user", user, "--http-passwd", "wrong", o.URL+"/basic/a.zip")
		if code != 1 || !strings.Contains(errOut, "the archive's list cannot be read: the login was refused (401 Unauthorized)") {
			t.Fatalf("exit %d, %q: want a failure that says the login was refused", code, errOut)
		}
	})
	t.Run("no proxy there", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		gone := l.Addr().String()
		l.Close()
		if code, _, errOut := runGet(t, "-d", t.TempDir(), "--member", "m.txt", "--all-proxy", "http://"+gone, o.URL+"/open/a.zip"); code != 1 {
			t.Fatalf("exit %d through a proxy that is not there: %s", code, errOut)
		}
	})
}
