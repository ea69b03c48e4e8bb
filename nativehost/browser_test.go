package nativehost

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/platform"
	"braid/queue"
	"braid/rpc"
)

// seleniumPython is a Python that has selenium (Debian's python3-selenium
// is in /usr/bin's Python, which a pyenv may hide).
func seleniumPython() string {
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import selenium").Run() == nil {
			return path
		}
	}
	return ""
}

// browserRig is a temporary HOME with a Chromium profile, a state folder,
// Braid's download folder, the browser's, and a site behind a cookie
// login on nginx that publishes report.bin's SHA-256 (an RFC 6249 Digest
// header).
type browserRig struct {
	chromium, driver, python, ext string
	home, profile, state, dl      string
	browserDL                     string
	site                          *nginxSite
	body                          []byte // keep.bin, notes.txt and manual.bin
	report, big                   []byte // report.bin and big.bin, long enough to be seen running
	// env is the environment before HOME moved: go build keeps its
	// cache under the real HOME.
	env []string
	// run is the user's runtime folder, where the running Braid's socket is.
	run string
}

// nginxSite is nginx serving the browser tests' site: /login sets the
// session cookie and sends the browser to /page, whose links point at
// /files/ (only with the cookie) and /open/ (for anyone).
type nginxSite struct {
	URL string
	dir string
}

// asks are the requests nginx logged for path, each as "cookie
// ok|user agent".
func (s *nginxSite) asks(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(s.dir, "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.SplitN(line, "|", 3)
		if len(f) == 3 && f[0] == path {
			out = append(out, fmt.Sprintf("%v|%s", f[1] == secret, f[2]))
		}
	}
	return out
}

func startSite(t *testing.T, files map[string][]byte) *nginxSite {
	t.Helper()
	bin := ""
	for _, p := range []string{"nginx", "/usr/sbin/nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			bin = path
			break
		}
	}
	if bin == "" {
		t.Skip("nginx is not installed (Debian: apt-get install nginx)")
	}
	dir := t.TempDir()
	page := `<!doctype html><title>files</title><a id="file" href="/files/report.bin">report</a>
<a id="capture" href="/files/big.bin" download>big</a>
<a id="bypass" href="/files/keep.bin" download>keep</a>
<a id="othertype" href="/files/notes.txt" download>notes</a>
<a id="open" href="/open/manual.bin">manual</a>`
	write := func(name string, b []byte) {
		p := filepath.Join(dir, "www", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("page", []byte(page))
	for name, b := range files {
		write(name, b)
	}
	sum := sha256.Sum256(files["files/report.bin"])
	port := testkit.FreePort(t)
	conf := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log info;
events { worker_connections 64; }
http {
	log_format asks '$uri|$cookie_session|$http_user_agent';
	access_log %[1]s/access.log asks;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	types { text/plain txt; application/octet-stream bin; }
	server {
		listen 127.0.0.1:%[2]d;
		root %[1]s/www;
		location = /login {
			add_header Set-Cookie "session=%[3]s; Path=/; HttpOnly";
			return 302 /page;
		}
		location = /page { default_type text/html; }
		location /files/ {
			if ($cookie_session != "%[3]s") { return 403; }
		}
		location = /files/report.bin {
			if ($cookie_session != "%[3]s") { return 403; }
			add_header Digest "SHA-256=%[4]s";
		}
		location /open/ { }
	}
}
`, dir, port, secret, base64.StdEncoding.EncodeToString(sum[:]))
	cf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-e", filepath.Join(dir, "error.log"), "-p", dir, "-c", cf)
	if out, err := exec.Command(bin, "-t", "-e", filepath.Join(dir, "error.log"), "-p", dir, "-c", cf).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx does not answer on %s", addr)
		}
	}
	return &nginxSite{URL: "http://" + addr, dir: dir}
}

// noBrowserOnWine is why the real-browser tests do not run on Windows:
// they drive Linux's Chromium and Firefox (Selenium, Xvfb, nginx), and a
// Wine prefix has no Windows browser. What the browser meets there is
// tested apart: the registry's host keys (platform's
// TestRegisterNativeHostInRegistry) and the hand-over over the pipe
// (TestAddHandsOverToTheRunningBraid).
const noBrowserOnWine = "drives Linux's Chromium and Firefox; a Wine prefix has no Windows browser (the registry and the pipe are tested apart)"

func newBrowserRig(t *testing.T) *browserRig {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	if runtime.GOOS == "windows" {
		t.Skip(noBrowserOnWine)
	}
	r := &browserRig{body: bytes.Repeat([]byte{7}, 10000),
		report: mirrortest.Bytes(1500000, 3), big: mirrortest.Bytes(1500000, 4)}
	var err error
	if r.chromium, err = exec.LookPath("chromium"); err != nil {
		t.Skip("chromium is not installed (Debian: apt-get install chromium chromium-driver python3-selenium)")
	}
	if r.driver, err = exec.LookPath("chromedriver"); err != nil {
		t.Skip("chromedriver is not installed (Debian: apt-get install chromium-driver)")
	}
	if r.python = seleniumPython(); r.python == "" {
		t.Skip("selenium for Python is not installed (Debian: apt-get install python3-selenium)")
	}
	if r.ext, err = filepath.Abs("../extension"); err != nil {
		t.Fatal(err)
	}
	r.site = startSite(t, map[string][]byte{"files/report.bin": r.report, "files/big.bin": r.big,
		"files/keep.bin": r.body, "files/notes.txt": r.body, "open/manual.bin": r.body})
	tmp := t.TempDir()
	r.home, r.state, r.dl = filepath.Join(tmp, "home"), filepath.Join(tmp, "state"), filepath.Join(tmp, "dl")
	r.profile, r.browserDL = filepath.Join(r.home, ".config", "chromium"), filepath.Join(tmp, "browser-dl")
	r.run = testkit.ShortDir(t, "brun") // a socket's path must be short
	for _, d := range []string{r.profile, r.dl, r.browserDL} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r.env = os.Environ()
	t.Setenv("HOME", r.home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	// The browser, its native host and the running Braid share the
	// user's runtime folder; no keyring (no D-Bus session) keeps secrets.
	t.Setenv("XDG_RUNTIME_DIR", r.run)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	return r
}

// buildHost builds internal/testhost and registers it as the native host
// the way braid install does, on r's state folder and download folder.
func (r *browserRig) buildHost(t *testing.T) {
	t.Helper()
	host := filepath.Join(t.TempDir(), "testhost")
	build := exec.Command("go", "build", "-o", host, "./internal/testhost")
	build.Env = r.env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the test host: %v\n%s", err, out)
	}
	if _, err := platform.RegisterNativeHost(Registration(host, "--state", r.state, "--dir", r.dl)); err != nil {
		t.Fatal(err)
	}
}

// startBraid runs the user's Braid on r's queue: `braid queue run` (with
// the RPC, so it waits for work), built headless, at 100 KB/s so that a
// download is seen running. It listens on the user's socket: the native
// host hands the browser's links to it. It is stopped at the test's end.
func (r *browserRig) startBraid(t *testing.T) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "braid")
	build := exec.Command("go", "build", "-tags", "nosqlite,disable_libutp,headless", "-o", bin, "../cmd/braid")
	build.Env = r.env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build braid: %v\n%s", err, out)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "queue", "--state", r.state, "run", "--limit", "100k", "--rpc-listen", "127.0.0.1:0", "--rpc-secret", "not-used-here")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		t.Logf("braid queue run said:\n%s", out.String())
		if bytes.Contains(out.Bytes(), []byte(secret)) {
			t.Errorf("braid queue run printed the cookie")
		}
	})
	sock := platform.SocketPath(os.Getenv)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return
		}
		select {
		case <-exited:
			t.Fatalf("braid queue run exited before listening:\n%s", out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("braid queue run does not listen on %s", sock)
		}
	}
}

// waitDone waits until job id of r's queue ends, and returns it.
func (r *browserRig) waitDone(t *testing.T, id int64) queue.Job {
	t.Helper()
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		j, err := q.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if j.State == queue.Done || j.State == queue.Failed || j.State == queue.Paused || time.Now().After(deadline) {
			return j
		}
	}
}

// landedVerified: job j is done, its one file verified by the SHA-256
// nginx published, and the bytes in Braid's download folder are want.
func (r *browserRig) landedVerified(t *testing.T, j queue.Job, name string, want []byte) {
	t.Helper()
	if j.State != queue.Done || len(j.Files) != 1 || j.Files[0].VerifiedBy != "sha-256" {
		t.Fatalf("job %d (%s) is %s (%s), files %+v: want done, verified by sha-256", j.ID, j.Source, j.State, j.Error, j.Files)
	}
	got, err := os.ReadFile(filepath.Join(r.dl, name))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s in Braid's folder: %d bytes (%v), want the site's %d", name, len(got), err, len(want))
	}
	t.Logf("%s landed in %s: %s", name, r.dl, j.Files[0].Outcome())
}

// driveResult is what testdata/browser.py prints.
type driveResult struct {
	Loaded, Link, Status, Test string
	Rows                       []string
	CapturedRows               []string `json:"captured_rows"`
	RowsAt                     float64  `json:"rows_at"`     // Unix seconds
	CapturedAt                 float64  `json:"captured_at"` // Unix seconds
}

// listedUntilDone: the popup's rows, read at (Unix seconds) when, name
// the downloads of jobs that had not ended then, and no other. The popup
// lists only downloads that are not done, refreshed each second, so one
// that ended shortly before the read may be listed or not, and on a slow
// machine every one may have ended.
func listedUntilDone(t *testing.T, when string, rows []string, at float64, jobs ...queue.Job) {
	t.Helper()
	readAt := time.UnixMilli(int64(at * 1000))
	names := 0
	for _, j := range jobs {
		name := j.Files[0].Name
		switch {
		case slices.ContainsFunc(rows, func(row string) bool { return strings.Contains(row, name) }):
			names++
			if !j.FinishedAt.IsZero() && j.FinishedAt.Before(readAt.Add(-5*time.Second)) {
				t.Errorf("popup %s lists %s, which ended %s before", when, name, readAt.Sub(j.FinishedAt))
			}
		case j.FinishedAt.IsZero() || j.FinishedAt.After(readAt):
			t.Errorf("popup %s lists %q, without %s, which had not ended", when, rows, name)
		default:
			t.Logf("%s ended %s before the popup was read %s", name, readAt.Sub(j.FinishedAt), when)
		}
	}
	if len(rows) != names {
		t.Errorf("popup %s lists %q; want only the downloads that had not ended", when, rows)
	}
}

// drive runs testdata/browser.py; extra are its RPC arguments.
func (r *browserRig) drive(t *testing.T, extra ...string) driveResult {
	t.Helper()
	args := append([]string{"testdata/browser.py", r.chromium, r.driver, r.ext, r.profile, r.site.URL, ChromeExtensionIDs[0], r.browserDL}, extra...)
	cmd := exec.Command(r.python, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	timer := time.AfterFunc(3*time.Minute, func() { _ = cmd.Process.Kill() })
	out, err := cmd.Output()
	timer.Stop()
	if err != nil {
		t.Fatalf("drive Chromium: %v\n%s\n%s", err, out, stderr.String())
	}
	var res driveResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("the driver's answer %q: %v\n%s", out, err, stderr.String())
	}
	t.Logf("extension loaded with %s; options said %q; popup said %q; rows %q; after the capture %q",
		res.Loaded, res.Test, res.Status, res.Rows, res.CapturedRows)
	return res
}

// jobs are the queue's jobs, each read whole.
func (r *browserRig) jobs(t *testing.T) []queue.Job {
	t.Helper()
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	list, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	var jobs []queue.Job
	for _, j := range list {
		full, err := q.Get(j.ID)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, full)
	}
	return jobs
}

// noCookieInState: the session cookie is in no file of the state folder
// (the database, its journal, a log).
func (r *browserRig) noCookieInState(t *testing.T) {
	t.Helper()
	_ = filepath.WalkDir(r.state, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the cookie", p)
		}
		return nil
	})
}

// TestBrowserDownloadWithBraid runs Debian's Chromium headless with the
// unpacked extension and the host registered the way `braid install`
// registers it (platform.RegisterNativeHost, with the launcher, under a
// temporary HOME whose Chromium profile is the browser's), while the
// user's Braid runs (`braid queue run`, listening on the user's socket).
// On a page behind a cookie login on nginx, the link is handed to Braid
// from the extension's popup: the host, started by Chromium with the
// extension's origin, hands it with the browser's cookie and user agent
// to the running Braid, which reads it, lists it back in the popup, and
// downloads it with the cookie it keeps for its session (there is no
// keyring here): report.bin lands in Braid's folder, verified by the
// SHA-256 nginx publishes in its Digest header. The cookie is in no file
// of the state folder.
//
// Then, with the capture turned on in the options page (type "bin", any
// size), a download the page starts goes to Braid with the page as its
// referrer and lands in Braid's folder, while one started with the bypass
// key (Alt) held and one of another type stay the browser's and land in
// its download folder.
func TestBrowserDownloadWithBraid(t *testing.T) {
	r := newBrowserRig(t)
	r.buildHost(t)
	r.startBraid(t)
	res := r.drive(t)
	if !strings.HasPrefix(res.Status, "Added report.bin") {
		t.Errorf("popup status %q, want Added report.bin", res.Status)
	}

	caller, err := os.ReadFile(filepath.Join(r.state, "caller.txt"))
	if err != nil || string(caller) != "chrome-extension://"+ChromeExtensionIDs[0]+"/" {
		t.Errorf("the host was started by %q (%v)", caller, err)
	}

	jobs := r.jobs(t)
	if len(jobs) != 2 || jobs[0].Source != res.Link || jobs[0].Dest != r.dl || len(jobs[0].Files) != 1 ||
		jobs[0].Files[0].Name != "report.bin" || jobs[0].Files[0].Size != int64(len(r.report)) {
		t.Fatalf("queue holds %+v, want report.bin from %s and the captured big.bin", jobs, res.Link)
	}
	if j := jobs[1]; j.Source != r.site.URL+"/files/big.bin" || len(j.Files) != 1 || j.Files[0].Name != "big.bin" ||
		j.Origin.Referer != r.site.URL+"/page" {
		t.Errorf("captured job %s (%+v) referrer %q, want big.bin from the page %s/page", j.Source, j.Files, j.Origin.Referer, r.site.URL)
	}
	for _, name := range []string{"keep.bin", "notes.txt"} {
		if !testkit.Eventually(30*time.Second, func() bool { _, err := os.Stat(filepath.Join(r.browserDL, name)); return err == nil }) {
			entries, _ := os.ReadDir(r.browserDL)
			t.Errorf("%s did not land in the browser's folder (it holds %v)", name, entries)
		}
	}
	if _, err := os.Stat(filepath.Join(r.browserDL, "big.bin")); err == nil {
		t.Errorf("the browser downloaded big.bin that Braid took")
	}

	report, big := r.waitDone(t, jobs[0].ID), r.waitDone(t, jobs[1].ID)
	listedUntilDone(t, "after the add", res.Rows, res.RowsAt, report)
	if len(res.Rows) == 1 && (!strings.Contains(res.Rows[0], "of 1.5 MB") ||
		!strings.Contains(res.Rows[0], "queued") && !strings.Contains(res.Rows[0], "running")) {
		t.Errorf("popup rows %q, want report.bin queued or running, of 1.5 MB", res.Rows)
	}
	listedUntilDone(t, "after the capture", res.CapturedRows, res.CapturedAt, report, big)
	r.landedVerified(t, report, "report.bin", r.report)
	if j := big; j.State != queue.Done {
		t.Errorf("captured big.bin is %s (%s), want done", j.State, j.Error)
	} else if got, err := os.ReadFile(filepath.Join(r.dl, "big.bin")); err != nil || !bytes.Equal(got, r.big) {
		t.Errorf("big.bin in Braid's folder: %d bytes (%v), want the site's %d", len(got), err, len(r.big))
	}
	// Every request for report.bin, Braid's first look and its
	// download's, came with the browser's cookie and user agent.
	asks := r.site.asks(t, "/files/report.bin")
	if len(asks) < 2 {
		t.Errorf("nginx saw %d requests for report.bin, want Braid's look and its download", len(asks))
	}
	for _, a := range asks {
		if !strings.HasPrefix(a, "true|") || !strings.Contains(a, "Chrome/") {
			t.Errorf("a request for report.bin came as %q (cookie ok|user agent); want the browser's cookie and user agent", a)
		}
	}
	r.noCookieInState(t)
}

// TestBrowserRPCFallback: with no native host registered, the extension
// set (in its options page) to Braid's aria2-compatible RPC adds the link
// through it; Braid allows the extension's origin, which Chromium sends.
// The browser's cookies for the link go as a Cookie header, which the
// RPC keeps with the job like any header: no word on them. The popup
// lists the download through the RPC.
func TestBrowserRPCFallback(t *testing.T) {
	r := newBrowserRig(t)
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	d := &rpc.QueueDownloads{Queue: q}
	d.SetDir(r.dl)
	const rpcSecret = "rpc-secret-for-the-test"
	srv, err := rpc.New(d, rpc.Options{Secret: rpcSecret, AllowOrigins: []string{"chrome-extension://" + ChromeExtensionIDs[0]}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()

	res := r.drive(t, hs.URL+rpc.Path, rpcSecret)
	if !strings.Contains(res.Test, "remote control answers") {
		t.Errorf("options' connection test said %q", res.Test)
	}
	// The remote control takes the browser's cookies (as a Cookie
	// header kept with the job): no word on them.
	if res.Status != "Added manual.bin" {
		t.Errorf("popup status %q, want Added manual.bin", res.Status)
	}
	if len(res.Rows) != 1 || !strings.Contains(res.Rows[0], "manual.bin") || !strings.Contains(res.Rows[0], "10.0 KB") {
		t.Errorf("popup rows %q, want manual.bin of 10.0 KB", res.Rows)
	}
	jobs := r.jobs(t)
	if len(jobs) != 1 || jobs[0].Source != res.Link || jobs[0].Dest != r.dl {
		t.Errorf("queue holds %+v, want %s", jobs, res.Link)
	}
	r.noCookieInState(t)
}
