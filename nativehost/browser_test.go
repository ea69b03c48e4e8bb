package nativehost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
// login.
type browserRig struct {
	chromium, driver, python, ext string
	home, profile, state, dl      string
	browserDL                     string
	site                          *httptest.Server
	body                          []byte
	// env is the environment before HOME moved: go build keeps its
	// cache under the real HOME.
	env []string

	mu       sync.Mutex
	fileAsks []string // cookie ok|user agent of each request for /files/report.bin
}

func newBrowserRig(t *testing.T) *browserRig {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	r := &browserRig{body: bytes.Repeat([]byte{7}, 10000)}
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
	tmp := t.TempDir()
	r.home, r.state, r.dl = filepath.Join(tmp, "home"), filepath.Join(tmp, "state"), filepath.Join(tmp, "dl")
	r.profile, r.browserDL = filepath.Join(r.home, ".config", "chromium"), filepath.Join(tmp, "browser-dl")
	for _, d := range []string{r.profile, r.dl, r.browserDL} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r.env = os.Environ()
	t.Setenv("HOME", r.home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")

	mux := http.NewServeMux()
	mux.HandleFunc("/login", func(w http.ResponseWriter, req *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: secret, Path: "/", HttpOnly: true})
		http.Redirect(w, req, "/page", http.StatusFound)
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>files</title><a id="file" href="/files/report.bin">report</a>
<a id="capture" href="/files/big.bin" download>big</a>
<a id="bypass" href="/files/keep.bin" download>keep</a>
<a id="othertype" href="/files/notes.txt" download>notes</a>
<a id="open" href="/open/manual.bin">manual</a>`)
	})
	mux.HandleFunc("/files/", func(w http.ResponseWriter, req *http.Request) {
		c, _ := req.Cookie("session")
		r.mu.Lock()
		if strings.HasSuffix(req.URL.Path, "/report.bin") {
			r.fileAsks = append(r.fileAsks, fmt.Sprintf("%v|%s", c != nil && c.Value == secret, req.UserAgent()))
		}
		r.mu.Unlock()
		if c == nil || c.Value != secret {
			http.Error(w, "log in first", http.StatusForbidden)
			return
		}
		http.ServeContent(w, req, path.Base(req.URL.Path), fixedTime, bytes.NewReader(r.body))
	})
	mux.HandleFunc("/open/", func(w http.ResponseWriter, req *http.Request) {
		http.ServeContent(w, req, path.Base(req.URL.Path), fixedTime, bytes.NewReader(r.body))
	})
	r.site = httptest.NewServer(mux)
	t.Cleanup(r.site.Close)
	return r
}

// driveResult is what testdata/browser.py prints.
type driveResult struct {
	Loaded, Link, Status, Test string
	Rows                       []string
	CapturedRows               []string `json:"captured_rows"`
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
// temporary HOME whose Chromium profile is the browser's). On a page
// behind a cookie login, the link is handed to Braid from the extension's
// popup: the host, started by Chromium with the extension's origin, reads
// the link with the browser's cookie and user agent, and the download is
// in the queue, listed back in the popup; the cookie is in no file of the
// state folder.
//
// Then, with the capture turned on in the options page (type "bin", any
// size), a download the page starts goes to Braid with the page as its
// referrer, while one started with the bypass key (Alt) held and one of
// another type stay the browser's and land in its download folder.
func TestBrowserDownloadWithBraid(t *testing.T) {
	r := newBrowserRig(t)
	host := filepath.Join(t.TempDir(), "testhost")
	build := exec.Command("go", "build", "-o", host, "./internal/testhost")
	build.Env = r.env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the test host: %v\n%s", err, out)
	}
	if _, err := platform.RegisterNativeHost(Registration(host, "--state", r.state, "--dir", r.dl)); err != nil {
		t.Fatal(err)
	}
	res := r.drive(t)
	if !strings.HasPrefix(res.Status, "Added report.bin") {
		t.Errorf("popup status %q, want Added report.bin", res.Status)
	}
	if len(res.Rows) != 1 || !strings.Contains(res.Rows[0], "report.bin") || !strings.Contains(res.Rows[0], "queued") || !strings.Contains(res.Rows[0], "10.0 KB") {
		t.Errorf("popup rows %q, want report.bin queued of 10.0 KB", res.Rows)
	}

	caller, err := os.ReadFile(filepath.Join(r.state, "caller.txt"))
	if err != nil || string(caller) != "chrome-extension://"+ChromeExtensionIDs[0]+"/" {
		t.Errorf("the host was started by %q (%v)", caller, err)
	}
	r.mu.Lock()
	asks := append([]string(nil), r.fileAsks...)
	r.mu.Unlock()
	if len(asks) == 0 || !strings.HasPrefix(asks[0], "true|") || !strings.Contains(asks[0], "Chrome/") {
		t.Errorf("requests for the file (cookie ok|user agent): %q; want the browser's cookie and user agent", asks)
	}

	jobs := r.jobs(t)
	if len(jobs) != 2 || jobs[0].Source != res.Link || jobs[0].Dest != r.dl || len(jobs[0].Files) != 1 ||
		jobs[0].Files[0].Name != "report.bin" || jobs[0].Files[0].Size != int64(len(r.body)) {
		t.Fatalf("queue holds %+v, want report.bin from %s and the captured big.bin", jobs, res.Link)
	}
	if j := jobs[1]; j.Source != r.site.URL+"/files/big.bin" || len(j.Files) != 1 || j.Files[0].Name != "big.bin" ||
		j.Origin.Referer != r.site.URL+"/page" {
		t.Errorf("captured job %s (%+v) referrer %q, want big.bin from the page %s/page", j.Source, j.Files, j.Origin.Referer, r.site.URL)
	}
	if len(res.CapturedRows) != 2 {
		t.Errorf("popup after the capture lists %q, want report.bin and big.bin", res.CapturedRows)
	}
	for _, name := range []string{"keep.bin", "notes.txt"} {
		if !waitFile(filepath.Join(r.browserDL, name), 30*time.Second) {
			entries, _ := os.ReadDir(r.browserDL)
			t.Errorf("%s did not land in the browser's folder (it holds %v)", name, entries)
		}
	}
	if _, err := os.Stat(filepath.Join(r.browserDL, "big.bin")); err == nil {
		t.Errorf("the browser downloaded big.bin that Braid took")
	}
	r.noCookieInState(t)
}

// TestBrowserRPCFallback: with no native host registered, the extension
// set (in its options page) to Braid's aria2-compatible RPC adds the link
// through it: a link that needs no login, since Braid's RPC keeps no
// cookies; Braid allows the extension's origin, which Chromium sends. The
// page set a cookie, which Braid's RPC refuses as a header it cannot
// keep; the extension asks again without it and says so. The popup lists
// the download through the RPC.
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

// waitFile waits for a browser's download to finish at path.
func waitFile(path string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}
