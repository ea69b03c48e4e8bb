package netconftest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Vsftpd starts vsftpd on 127.0.0.3, serving files at /pub/NAME to
// anonymous logins, and returns its host:port. Its passive data ports
// listen on that address only, as a server's do: a client that dials the
// data connection elsewhere (a proxy's address) is refused. It runs as
// the user running the test (run_as_launching_user), so it needs no
// account of its own.
func Vsftpd(t testing.TB, files map[string][]byte) string {
	t.Helper()
	bin := need(t, "vsftpd", "vsftpd")
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	putFiles(t, root, "pub", files)
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	// vsftpd refuses to serve an anonymous root it could write to.
	if err := os.Chmod(root, 0o555); err != nil {
		t.Fatal(err)
	}
	port := freePort(t, "127.0.0.3")
	logFile := filepath.Join(dir, "vsftpd.log")
	conf := fmt.Sprintf(`listen=YES
listen_address=127.0.0.3
listen_port=%d
background=NO
run_as_launching_user=YES
seccomp_sandbox=NO
anonymous_enable=YES
anon_root=%s
local_enable=NO
write_enable=NO
pasv_enable=YES
secure_chroot_dir=%s
xferlog_enable=YES
vsftpd_log_file=%s
`, port, root, empty, logFile)
	cf := filepath.Join(dir, "vsftpd.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.3:%d", port)
	start(t, addr, logFile, bin, cf)
	return addr
}
