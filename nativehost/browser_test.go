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
	if testing.Short() {
		t.Skip("starts a browser")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian: apt-get install chromium chromium-driver python3-selenium)")
	}
	driver, err := exec.LookPath("chromedriver")
	if err != nil {
		t.Skip("chromedriver is not installed (Debian: apt-get install chromium-driver)")
	}
	python := seleniumPython()
	if python == "" {
		t.Skip("selenium for Python is not installed (Debian: apt-get install python3-selenium)")
	}
	ext, err := filepath.Abs("../extension")
	if err != nil {
		t.Fatal(err)
	}

	tmp := t.TempDir()
	host := filepath.Join(tmp, "testhost")
	build := exec.Command("go", "build", "-o", host, "./internal/testhost")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the test host: %v\n%s", err, out)
	}
	home, state, dl := filepath.Join(tmp, "home"), filepath.Join(tmp, "state"), filepath.Join(tmp, "dl")
	profile, browserDL := filepath.Join(home, ".config", "chromium"), filepath.Join(tmp, "browser-dl")
	for _, d := range []string{profile, dl, browserDL} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	if _, err := platform.RegisterNativeHost(Registration(host, "--state", state, "--dir", dl)); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var fileAsks []string // cookie and user agent of each request for the file
	body := bytes.Repeat([]byte{7}, 10000)
	mux := http.NewServeMux()
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: secret, Path: "/", HttpOnly: true})
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>files</title><a id="file" href="/files/report.bin">report</a>
<a id="capture" href="/files/big.bin" download>big</a>
<a id="bypass" href="/files/keep.bin" download>keep</a>
<a id="othertype" href="/files/notes.txt" download>notes</a>`)
	})
	mux.HandleFunc("/files/", func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie("session")
		mu.Lock()
		if strings.HasSuffix(r.URL.Path, "/report.bin") {
			fileAsks = append(fileAsks, fmt.Sprintf("%v|%s", c != nil && c.Value == secret, r.UserAgent()))
		}
		mu.Unlock()
		if c == nil || c.Value != secret {
			http.Error(w, "log in first", http.StatusForbidden)
			return
		}
		http.ServeContent(w, r, path.Base(r.URL.Path), fixedTime, bytes.NewReader(body))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	cmd := exec.Command(python, "testdata/browser.py", chromium, driver, ext, profile, srv.URL, ChromeExtensionIDs[0], browserDL)
	cmd.Env = append(os.Environ(), "HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	timer := time.AfterFunc(3*time.Minute, func() { _ = cmd.Process.Kill() })
	out, err := cmd.Output()
	timer.Stop()
	if err != nil {
		t.Fatalf("drive Chromium: %v\n%s\n%s", err, out, stderr.String())
	}
	var res struct {
		Loaded, Link, Status string
		Rows                 []string
		CapturedRows         []string `json:"captured_rows"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("the driver's answer %q: %v\n%s", out, err, stderr.String())
	}
	t.Logf("extension loaded with %s; popup said %q; rows %q; after the capture %q", res.Loaded, res.Status, res.Rows, res.CapturedRows)
	if !strings.HasPrefix(res.Status, "Added report.bin") {
		t.Errorf("popup status %q, want Added report.bin", res.Status)
	}
	if len(res.Rows) != 1 || !strings.Contains(res.Rows[0], "report.bin") || !strings.Contains(res.Rows[0], "queued") || !strings.Contains(res.Rows[0], "10.0 KB") {
		t.Errorf("popup rows %q, want report.bin queued of 10.0 KB", res.Rows)
	}

	caller, err := os.ReadFile(filepath.Join(state, "caller.txt"))
	if err != nil || string(caller) != "chrome-extension://"+ChromeExtensionIDs[0]+"/" {
		t.Errorf("the host was started by %q (%v)", caller, err)
	}
	mu.Lock()
	asks := append([]string(nil), fileAsks...)
	mu.Unlock()
	if len(asks) == 0 || !strings.HasPrefix(asks[0], "true|") || !strings.Contains(asks[0], "Chrome/") {
		t.Errorf("requests for the file (cookie ok|user agent): %q; want the browser's cookie and user agent", asks)
	}

	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := q.List()
	q.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].Source != res.Link || jobs[0].Dest != dl || len(jobs[0].Files) != 1 ||
		jobs[0].Files[0].Name != "report.bin" || jobs[0].Files[0].Size != int64(len(body)) {
		t.Fatalf("queue holds %+v, want report.bin from %s and the captured big.bin", jobs, res.Link)
	}
	if j := jobs[1]; j.Source != srv.URL+"/files/big.bin" || len(j.Files) != 1 || j.Files[0].Name != "big.bin" {
		t.Errorf("captured job %+v, want big.bin", j)
	}
	if j, err := reopenGet(state, jobs[1].ID); err != nil || j.Origin.Referer != srv.URL+"/page" {
		t.Errorf("captured job's referrer %q (%v), want the page %s/page", j.Origin.Referer, err, srv.URL)
	}
	if len(res.CapturedRows) != 2 {
		t.Errorf("popup after the capture lists %q, want report.bin and big.bin", res.CapturedRows)
	}
	for _, name := range []string{"keep.bin", "notes.txt"} {
		if !waitFile(filepath.Join(browserDL, name), 30*time.Second) {
			entries, _ := os.ReadDir(browserDL)
			t.Errorf("%s did not land in the browser's folder (it holds %v; the queue %d jobs)", name, entries, len(jobs))
		}
	}
	if _, err := os.Stat(filepath.Join(browserDL, "big.bin")); err == nil {
		t.Errorf("the browser downloaded big.bin that Braid took")
	}
	_ = filepath.WalkDir(state, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the cookie", p)
		}
		return nil
	})
}

func reopenGet(state string, id int64) (queue.Job, error) {
	q, err := queue.Open(state)
	if err != nil {
		return queue.Job{}, err
	}
	defer q.Close()
	return q.Get(id)
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
