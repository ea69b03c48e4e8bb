package netconftest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// putFiles writes files under root/place, making their folders.
func putFiles(t testing.TB, root, place string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, place, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runNginx starts nginx (bin) on 127.0.0.2 with dir as its prefix,
// serving dir/www with the given locations, logging each request to
// dir/access.log in logFormat ("" for nginx's own), and returns its
// address. The test ends it.
func runNginx(t testing.TB, bin, dir, logFormat, locations string) string {
	t.Helper()
	port := freePort(t, "127.0.0.2")
	logFile := filepath.Join(dir, "error.log")
	access := dir + "/access.log"
	if logFormat != "" {
		access = fmt.Sprintf("log_format custom '%s';\n\taccess_log %s custom", logFormat, access)
	} else {
		access = "access_log " + access
	}
	conf := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[2]s info;
events { worker_connections 128; }
http {
	%[3]s;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	server {
		listen 127.0.0.2:%[4]d;
		root %[1]s/www;
%[5]s	}
}
`, dir, logFile, access, port, locations)
	cf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.2:%d", port)
	start(t, addr, logFile, bin, "-e", logFile, "-p", dir, "-c", cf)
	return addr
}
