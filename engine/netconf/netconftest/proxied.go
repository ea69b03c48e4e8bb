package netconftest

import (
	"fmt"
	"os"
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
	for name, data := range files {
		p := filepath.Join(dir, "www", "p", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t, "127.0.0.2")
	logFile := filepath.Join(dir, "error.log")
	conf := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[3]s info;
events { worker_connections 128; }
http {
	log_format via '$status $body_bytes_sent "$http_via"';
	access_log %[1]s/access.log via;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	server {
		listen 127.0.0.2:%[2]d;
		root %[1]s/www;
		location /p/ {
			if ($http_via !~ "tinyproxy") { return 403; }
		}
	}
}
`, dir, port, logFile)
	cf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.2:%d", port)
	start(t, addr, logFile, bin, "-e", logFile, "-p", dir, "-c", cf)
	return &Origin{URL: "http://" + addr, Dir: dir}
}
