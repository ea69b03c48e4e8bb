package netconftest

import (
	"path/filepath"
	"testing"
)

// ProxiedOnly starts nginx on 127.0.0.2 serving files at /p/NAME only to
// requests that came through tinyproxy (its Via header), 403 to any other:
// an origin a direct connection cannot pass, for the tests of a proxy
// setting that has no dial function to refuse direct connections (the
// real window's).
func ProxiedOnly(t testing.TB, files map[string][]byte) *Origin {
	t.Helper()
	bin := need(t, "nginx", "nginx")
	dir := t.TempDir()
	putFiles(t, filepath.Join(dir, "www"), "p", files)
	addr := runNginx(t, bin, dir, `$status $body_bytes_sent "$http_via"`, `		location /p/ {
			if ($http_via !~ "tinyproxy") { return 403; }
		}
`)
	return &Origin{URL: "http://" + addr, Dir: dir}
}
