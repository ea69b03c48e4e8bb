package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
)

// writeSecret writes content to a file of the test's own, readable by
// this user only, and returns its path.
func writeSecret(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSecretSources: a secret comes from the flag, else the first line of
// its file, else the environment; both flag and file is refused; a file
// that cannot give one is named in a sentence that never holds what it
// read.
func TestSecretSources(t *testing.T) {
	t.Parallel()
	env := func(k string) string {
		if k == "BRAID_TEST_SECRET" {
			return "from-env"
		}
		return ""
	}
	missing := filepath.Join(t.TempDir(), "no-such-file")
	tests := []struct {
		name, value, file string
		want, err         string
	}{
		{"flag", "from-flag", "", "from-flag", ""},
		{"file", "", writeSecret(t, "from-file\nsecond line\n"), "from-file", ""},
		{"file with CRLF", "", writeSecret(t, "from-file\r\n"), "from-file", ""},
		{"file without a line end", "", writeSecret(t, "from-file"), "from-file", ""},
		{"environment", "", "", "from-env", ""},
		{"flag and file", "from-flag", writeSecret(t, "from-file\n"), "", "not both"},
		{"missing file", "", missing, "", "cannot read the secret from " + missing},
		{"empty first line", "", writeSecret(t, "\nhidden-second-line\n"), "", "no secret on its first line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := secret{"--x-secret", tc.value, "--x-secret-file", tc.file, "BRAID_TEST_SECRET"}.get(env)
			if tc.err == "" {
				if err != nil || got != tc.want {
					t.Errorf("got %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("got %q, %v; want an error saying %q", got, err, tc.err)
			}
			if strings.Contains(err.Error(), "from-file") || strings.Contains(err.Error(), "hidden") || strings.Contains(err.Error(), "from-flag") {
				t.Errorf("the error shows a secret: %v", err)
			}
		})
	}
}

// TestQueueRunSecretFile: `queue run --rpc-secret-file` takes the secret
// from the file (the environment's is not used then), never prints it,
// and a plain listener on loopback says no warning.
func TestQueueRunSecretFile(t *testing.T) {
	t.Parallel()
	const s3cret = "file-s3cret-for-rpc"
	file := writeSecret(t, s3cret+"\n")
	endpoint, done, out, errOut := startQueueRPC(t, t.TempDir(), t.TempDir(), "--rpc-secret-file", file)
	if code, v := rpcCall(t, endpoint, "aria2.getVersion", "token:"+s3cret); code != http.StatusOK {
		t.Errorf("the file's secret: HTTP %d %v", code, v)
	}
	if code, _ := rpcCall(t, endpoint, "aria2.getVersion", "token:"+file); code != http.StatusBadRequest {
		t.Errorf("the file's name taken as the secret: HTTP %d", code)
	}
	stopQueueRPC(t, endpoint, "token:"+s3cret, done, errOut)
	if strings.Contains(out.String()+errOut.String(), s3cret) {
		t.Error("the secret is in queue run's output")
	}
	if strings.Contains(errOut.String(), "plain HTTP") {
		t.Errorf("a loopback listener was warned about: %s", errOut.String())
	}

	var stdout, stderr bytes.Buffer
	code := cmdQueue(t.Context(), []string{"--state", t.TempDir(), "run", "--rpc-listen", "127.0.0.1:0", "--rpc-secret", "x", "--rpc-secret-file", file}, &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "not both") {
		t.Errorf("--rpc-secret and --rpc-secret-file: exit %d, %q", code, stderr.String())
	}
}

// TestQueueRunWarnsPlainRemote: a plain listener other machines reach
// says so in words on stderr.
func TestQueueRunWarnsPlainRemote(t *testing.T) {
	t.Parallel()
	file := writeSecret(t, "s3cret\n")
	endpoint, done, _, errOut := startQueueRPC(t, t.TempDir(), t.TempDir(), "--rpc-secret-file", file, "--rpc-listen", "0.0.0.0:0", "--rpc-allow-remote")
	stopQueueRPC(t, endpoint, "token:s3cret", done, errOut)
	if w := errOut.String(); !strings.Contains(w, "plain HTTP") || !strings.Contains(w, "in clear") {
		t.Errorf("a plain listener on 0.0.0.0: stderr %q, want a warning in words", w)
	}
}

// stopQueueRPC ends a queue run with aria2.shutdown and waits for it.
func stopQueueRPC(t *testing.T, endpoint, token string, done <-chan int, errOut *syncBuffer) {
	t.Helper()
	if code, v := rpcCall(t, endpoint, "aria2.shutdown", token); code != http.StatusOK {
		t.Fatalf("shutdown: HTTP %d, %v", code, v)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("queue run ended with %d: %s", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("queue run still serving 20 s after aria2.shutdown")
	}
}

// TestGetPasswordsOutOfProcessList: the HTTP login's password from
// --http-passwd-file against nginx's auth_basic, and the proxy's from
// --all-proxy-passwd-file against tinyproxy's BasicAuth; neither shows
// in the output or the state folder.
func TestGetPasswordsOutOfProcessList(t *testing.T) {
	t.Parallel()
	const user, pass = "alice", "S3cret-pa55-file"
	data := mirrortest.Bytes(100<<10, 31)
	o := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, user, pass)
	proxyURL := netconftest.Tinyproxy(t, "bob", "Pr0xy-pa55-file")
	proxyUser := strings.Replace(proxyURL, ":Pr0xy-pa55-file@", "@", 1)
	for _, tc := range []struct {
		name, secret string
		args         []string
	}{
		{"http", pass, []string{"--http-user", user, "--http-passwd-file", writeSecret(t, pass+"\n"), o.URL + "/basic/f.bin"}},
		{"proxy", "Pr0xy-pa55-file", []string{"--all-proxy", proxyUser, "--all-proxy-passwd-file", writeSecret(t, "Pr0xy-pa55-file\n"), o.URL + "/open/f.bin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state, dir := t.TempDir(), t.TempDir()
			code, out := getIn(t, state, append([]string{"--no-netrc", "--retry-for", "5s", "-d", dir}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "f.bin")); !bytes.Equal(got, data) {
				t.Fatal("f.bin does not hold the file")
			}
			assertNoSecret(t, tc.secret, out, state)
		})
	}
	t.Run("proxy without its password", func(t *testing.T) {
		code, out := getIn(t, t.TempDir(), "--no-netrc", "--retry-for", "1s", "-d", t.TempDir(), "--all-proxy", proxyUser, o.URL+"/open/f.bin")
		if code == 0 {
			t.Fatalf("a proxy that asks for a login let the get through without its password: %s", out)
		}
	})
	t.Run("password twice", func(t *testing.T) {
		code, out := getIn(t, t.TempDir(), "--all-proxy", proxyURL, "--all-proxy-passwd-file", writeSecret(t, "other\n"), o.URL+"/open/f.bin")
		if code != 2 || !strings.Contains(out, "not both") || strings.Contains(out, "Pr0xy-pa55-file") {
			t.Fatalf("exit %d, %q: want a usage error that hides the password", code, out)
		}
	})
	t.Run("no user for the file", func(t *testing.T) {
		code, out := getIn(t, t.TempDir(), "--all-proxy", "http://127.0.0.1:9", "--all-proxy-passwd-file", writeSecret(t, "other\n"), o.URL+"/open/f.bin")
		if code != 2 || !strings.Contains(out, "user@") {
			t.Fatalf("exit %d, %q: want a usage error asking for the user", code, out)
		}
	})
}

// TestGetPasswordsFromEnvironment: BRAID_HTTP_PASSWD is the --http-user's
// password, and BRAID_ALL_PROXY_PASSWD the --all-proxy user's. Not
// parallel: it sets the environment.
func TestGetPasswordsFromEnvironment(t *testing.T) {
	const user, pass, ppass = "alice", "S3cret-pa55-env", "Pr0xy-pa55-env"
	data := mirrortest.Bytes(100<<10, 32)
	o := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, user, pass)
	proxyURL := netconftest.Tinyproxy(t, "bob", ppass)
	t.Setenv("BRAID_HTTP_PASSWD", pass)
	t.Setenv("BRAID_ALL_PROXY_PASSWD", ppass)
	state, dir := t.TempDir(), t.TempDir()
	code, out := getIn(t, state, "--no-netrc", "--retry-for", "5s", "-d", dir, "--http-user", user,
		"--all-proxy", strings.Replace(proxyURL, ":"+ppass+"@", "@", 1), o.URL+"/basic/f.bin")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.bin")); !bytes.Equal(got, data) {
		t.Fatal("f.bin does not hold the file")
	}
	assertNoSecret(t, pass, out, state)
	assertNoSecret(t, ppass, out, state)
}

// TestHelpSaysWhereSecretsComeFrom: each secret's help names its file
// flag and its variable, and warns that the flag's value shows in the
// process list.
func TestHelpSaysWhereSecretsComeFrom(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	cmdGet(t.Context(), []string{"-h"}, &stdout, &stderr)
	get := stdout.String() + stderr.String()
	stdout.Reset()
	stderr.Reset()
	cmdQueue(t.Context(), []string{"run", "-h"}, &stdout, &stderr)
	queue := stdout.String() + stderr.String()
	for _, tc := range []struct {
		help  string
		words []string
	}{
		{get, []string{"-http-passwd-file", "$BRAID_HTTP_PASSWD", "-ftp-passwd-file", "$BRAID_FTP_PASSWD", "-all-proxy-passwd-file", "$BRAID_ALL_PROXY_PASSWD", "process list"}},
		{queue, []string{"--rpc-secret-file", "$BRAID_RPC_SECRET", "process list"}},
	} {
		for _, w := range tc.words {
			if !strings.Contains(tc.help, w) {
				t.Errorf("help does not say %q:\n%s", w, tc.help)
			}
		}
	}
}
