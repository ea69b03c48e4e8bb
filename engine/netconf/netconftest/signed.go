package netconftest

import (
	"bufio"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Signed is an nginx on 127.0.0.2 serving files under /s/ only with a
// secure_link signature that has not expired (403 without one, 410 once
// expired), slowly (limit_rate 2m), logging the body bytes sent for each
// request: a CDN's signed links, for the tests of links that expire.
type Signed struct {
	URL string // http://127.0.0.2:PORT
	dir string
}

const signedSecret = "braid-relink-secret"

// SignedNginx starts a Signed server over files, or skips the test when
// nginx, or its secure_link module, is missing.
func SignedNginx(t testing.TB, files map[string][]byte) *Signed {
	t.Helper()
	bin := need(t, "nginx", "nginx")
	if out, _ := exec.Command(bin, "-V").CombinedOutput(); !strings.Contains(string(out), "secure_link") {
		t.Skip("this nginx lacks the secure_link module (install Debian's nginx, nginx-full or nginx-extras): skipping")
	}
	dir := t.TempDir()
	putFiles(t, filepath.Join(dir, "www"), "s", files)
	addr := runNginx(t, bin, dir, "$arg_expires $status $body_bytes_sent", fmt.Sprintf(`		location /s/ {
			limit_rate 2m;
			secure_link $arg_md5,$arg_expires;
			secure_link_md5 "$secure_link_expires$uri %s";
			if ($secure_link = "") { return 403; }
			if ($secure_link = "0") { return 410; }
		}
`, signedSecret))
	return &Signed{URL: "http://" + addr, dir: dir}
}

// Link signs /s/name until expires.
func (s *Signed) Link(name string, expires time.Time) string {
	e := strconv.FormatInt(expires.Unix(), 10)
	sum := md5.Sum([]byte(e + "/s/" + name + " " + signedSecret))
	return fmt.Sprintf("%s/s/%s?md5=%s&expires=%s", s.URL, name, base64.RawURLEncoding.EncodeToString(sum[:]), e)
}

// Sent is the body bytes the server sent for links that expire at
// expires.
func (s *Signed) Sent(t testing.TB, expires time.Time) int64 {
	t.Helper()
	f, err := os.Open(filepath.Join(s.dir, "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := strconv.FormatInt(expires.Unix(), 10)
	var sum int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 3 && fs[0] == want {
			b, _ := strconv.ParseInt(fs[2], 10, 64)
			sum += b
		}
	}
	return sum
}
