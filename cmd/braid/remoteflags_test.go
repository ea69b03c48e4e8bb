//go:build !headless

package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// --remote's secret never comes from a bare flag: a secret file without
// --remote, a file that cannot be read and an endpoint that is not http(s)
// are usage errors in words, naming the file but never a secret; --help
// says where the secret comes from.
func TestRemoteFlags(t *testing.T) {
	t.Setenv("BRAID_REMOTE_SECRET", "env-s3cret")
	missing := filepath.Join(t.TempDir(), "no-such-secret")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--remote-secret-file", missing}, 2, "--remote-secret-file needs --remote URL"},
		{[]string{"--remote", "http://127.0.0.1:9/jsonrpc", "--remote-secret-file", missing}, 2, "cannot read the secret from " + missing},
		{[]string{"--remote", "ftp://127.0.0.1:9/"}, 2, "is not the address of downloads to drive"},
		{[]string{"--remote", "http://127.0.0.1:9/", "--remote-secret", "x"}, 2, "flag provided but not defined: -remote-secret"},
		{[]string{"--help"}, 0, "BRAID_REMOTE_SECRET"},
	} {
		var out, errOut bytes.Buffer
		code := cmdWindow(context.Background(), tc.args, &out, &errOut)
		if code != tc.code || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("braid %s: exit %d, %q; want %d and %q", strings.Join(tc.args, " "), code, errOut.String(), tc.code, tc.want)
		}
		if strings.Contains(out.String()+errOut.String(), "env-s3cret") {
			t.Errorf("braid %s printed the secret", strings.Join(tc.args, " "))
		}
	}
}
