// Package nativehost is Braid's native messaging host: the program a
// browser extension starts and talks to over stdin and stdout
// (developer.chrome.com/docs/extensions/develop/concepts/native-messaging,
// and the same protocol in Firefox). `braid native-host` runs Serve.
//
// The extension sends one JSON message per request and reads one answer:
//
//	{"id": 1, "type": "add", "url": "https://…", "referrer": "https://…",
//	 "userAgent": "Mozilla/5.0 …", "cookies": [{"name": "s", "value": "…"}],
//	 "filename": "file.iso"}
//	→ {"id": 1, "ok": true, "job": 7, "name": "file.iso"}
//	{"id": 2, "type": "list"}
//	→ {"id": 2, "ok": true, "downloads": [{"job": 7, "name": "file.iso",
//	   "bytes": 1024, "size": 4096, "state": "running"}]}
//	{"id": 3, "type": "ping"} → {"id": 3, "ok": true, "version": 1}
//
// A failed request answers {"ok": false, "error": "…"}.
//
// "add" hands the link to the running Braid (the window, or `braid queue
// run`) through the user's private socket (Options.Forward): that Braid
// reads the URL with the browser's cookies and user agent (its name and
// size behind a login), adds the download to its queue and keeps the
// cookies for its session, so the download it runs now sends them. The
// host itself lives for one message or one popup: a secret kept in its
// memory would die with it. With no Braid running (Forward says
// platform.ErrNotRunning) the host adds the download to the queue itself,
// where the next Braid finds it; the cookies then last only where the
// system has a keyring, and the answer says so when it has none. The
// cookies go with the job as a secret, sent only to the link's host, never
// in the database, a log or an error.
package nativehost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"braid/platform"
	"braid/queue"
	"braid/rpc"
	"braid/runner"
)

// Name is the native messaging host's name, as extensions call it and as
// the browsers' host manifests register it.
const Name = "io.github.braid_dm.braid"

// Version is the protocol's version, answered to "ping"; the extension
// can check it.
const Version = 1

// maxList is the most downloads "list" answers with: the popup shows the
// active ones, and an answer must stay under MaxFromHost.
const maxList = 200

// Options configure Serve.
type Options struct {
	// StateDir is the queue's state folder as given by --state; "" is
	// queue.Dir's default (BRAID_STATE, else the user's config folder).
	StateDir string
	// Dir is the folder downloads go to; "" is the queue's download
	// folder setting.
	Dir string
	// Wake is called after the host added a job itself, so a running
	// Braid starts it; nil: the job waits for the runner's next look.
	Wake func()
	// Forward hands a link to the running Braid and returns its answer;
	// platform.ErrNotRunning or platform.ErrElsewhere: the host adds the
	// link itself. nil: the host always adds links itself.
	Forward func(context.Context, platform.Link) (platform.Answer, error)
	// HTTPClient's transport reads the URLs given to "add" (with the
	// browser's cookies); nil: the network of the proxy the window stored
	// (runner.StoredNetwork).
	HTTPClient *http.Client
	// Timeout bounds one request; 0 means two minutes.
	Timeout time.Duration
}

// Caller names the extension that started the host from the host's
// arguments: Chrome and its kin pass the extension's origin
// ("chrome-extension://ID/", and on Windows a --parent-window flag after
// it), Firefox the host manifest's path and the extension's ID. "" when
// the arguments are neither.
func Caller(args []string) string {
	for _, a := range args {
		if strings.HasPrefix(a, "chrome-extension://") {
			return a
		}
	}
	if len(args) >= 2 && strings.HasSuffix(strings.ToLower(args[0]), ".json") {
		return args[1]
	}
	return ""
}

// request is one message from the extension.
type request struct {
	ID        json.RawMessage   `json:"id,omitempty"`
	Type      string            `json:"type"`
	URL       string            `json:"url,omitempty"`
	Referrer  string            `json:"referrer,omitempty"`
	UserAgent string            `json:"userAgent,omitempty"`
	Cookies   []platform.Cookie `json:"cookies,omitempty"`
	Filename  string            `json:"filename,omitempty"`
}

// Download is one of Braid's downloads as "list" tells it to the popup.
type Download struct {
	Job   int64  `json:"job"`
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"` // done so far
	Size  int64  `json:"size"`  // -1: not known yet
	State string `json:"state"` // queued, running, paused, failed
	Error string `json:"error,omitempty"`
}

// reply is one answer to the extension.
type reply struct {
	ID        json.RawMessage `json:"id,omitempty"`
	OK        bool            `json:"ok"`
	Error     string          `json:"error,omitempty"`
	Warning   string          `json:"warning,omitempty"`
	Version   int             `json:"version,omitempty"`
	Job       int64           `json:"job,omitempty"`
	Name      string          `json:"name,omitempty"`
	Downloads []Download      `json:"downloads,omitempty"`
}

// Serve answers the messages read from r on w until r ends (the browser
// closes the pipe: nil) or ctx ends. A message that is not JSON, or not a
// request Braid knows, gets an error answer and the host goes on; a
// message over the size limit, or cut short, ends Serve with an error,
// since the stream cannot be read further.
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts Options) error {
	h := &host{opts: opts}
	defer h.close()
	for ctx.Err() == nil {
		b, err := ReadMessage(r, MaxToHost)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				_ = WriteMessage(w, reply{Error: err.Error()})
			}
			return err
		}
		if err := WriteMessage(w, h.handle(ctx, b)); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// host holds what the requests of one Serve share: the queue, opened at
// the first request that needs it.
type host struct {
	opts Options
	q    *queue.Queue
}

func (h *host) close() {
	if h.q != nil {
		_ = h.q.Close()
		h.q = nil
	}
}

func (h *host) queue() (*queue.Queue, error) {
	if h.q != nil {
		return h.q, nil
	}
	dir, err := queue.Dir(h.opts.StateDir)
	if err != nil {
		return nil, err
	}
	q, err := queue.Open(dir)
	if err != nil {
		return nil, err
	}
	h.q = q
	return q, nil
}

// handle answers one message.
func (h *host) handle(ctx context.Context, b []byte) reply {
	var req request
	if err := json.Unmarshal(b, &req); err != nil {
		return reply{Error: fmt.Sprintf("the message is not a request: %v", err)}
	}
	timeout := h.opts.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rep reply
	var err error
	switch req.Type {
	case "ping":
		rep = reply{Version: Version}
	case "add":
		rep, err = h.add(ctx, req)
	case "list":
		rep, err = h.list()
	case "":
		err = errors.New(`the request has no "type"`)
	default:
		err = fmt.Errorf("unknown request type %q (want add, list or ping)", req.Type)
	}
	rep.ID = req.ID
	if err != nil {
		rep.OK, rep.Error = false, scrub(err.Error(), req.Cookies)
		return rep
	}
	rep.OK = true
	return rep
}

// scrub removes cookie values from a text meant for the extension (an
// error): no path should put them there, and none may.
func scrub(s string, cookies []platform.Cookie) string {
	for _, c := range cookies {
		if c.Value != "" {
			s = strings.ReplaceAll(s, c.Value, "…")
		}
	}
	return s
}

// add hands req's link to the running Braid, or puts it in the queue.
func (h *host) add(ctx context.Context, req request) (reply, error) {
	if _, err := checkURL(req.URL); err != nil {
		return reply{}, err
	}
	l := platform.Link{URL: req.URL, UserAgent: req.UserAgent, Cookies: req.Cookies, Dir: h.opts.Dir}
	if req.Filename != "" {
		// The browser's suggestion may be a whole path (Windows or not).
		l.Filename = filepath.Base(strings.ReplaceAll(req.Filename, `\`, "/"))
	}
	if req.Referrer != "" {
		if r, err := url.Parse(req.Referrer); err == nil && (r.Scheme == "http" || r.Scheme == "https") {
			r.User, r.Fragment = nil, ""
			l.Referrer = r.String()
		}
	}
	if h.opts.Forward != nil {
		dir, err := queue.Dir(h.opts.StateDir)
		if err != nil {
			return reply{}, err
		}
		if l.State, err = filepath.Abs(dir); err != nil {
			return reply{}, err
		}
		// The running Braid (or the one the forward starts) owns the
		// queue; this host must not hold it open meanwhile.
		h.close()
		a, err := h.opts.Forward(ctx, l)
		if err == nil {
			return reply{Job: a.Job, Name: a.Name, Warning: sentence(a.Warning)}, nil
		}
		if !errors.Is(err, platform.ErrNotRunning) && !errors.Is(err, platform.ErrElsewhere) {
			return reply{}, err
		}
	}
	q, err := h.queue()
	if err != nil {
		return reply{}, err
	}
	hc := h.opts.HTTPClient
	if hc == nil {
		// The link is read as the window would read it: through the
		// proxy stored in its settings.
		n, _ := runner.StoredNetwork(q)
		hc = n.HTTPClient()
	}
	a, err := AddLink(ctx, q, l, AddOptions{Wake: h.opts.Wake, HTTPClient: hc})
	if err != nil {
		return reply{}, err
	}
	if h.opts.Forward != nil && a.Warning == queue.NoKeyringNote {
		// No Braid took the link, and this host's memory ends with it.
		a.Warning = NotKeptNote
	}
	return reply{Job: a.Job, Name: a.Name, Warning: sentence(a.Warning)}, nil
}

// NotKeptNote is the host's answer when it queued a link with cookies
// itself (no Braid running, none could be opened) on a system without a
// keyring: the cookies are gone when the host ends.
const NotKeptNote = "Braid is not running and this system has no keyring (Secret Service), so the login cookies could not be kept: the download waits in Braid's queue and will stop at its next start asking for them; open Braid and add the link again"

// sentence makes a note a sentence of its own, for the popup that shows
// it after "Added NAME.".
func sentence(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// AddOptions configure AddLink.
type AddOptions struct {
	// Wake is called after the job is added (not paused), so the runner
	// starts it; nil: none.
	Wake func()
	// HTTPClient's transport reads the link; nil: http.DefaultTransport.
	HTTPClient *http.Client
}

// AddLink adds a link a browser handed over to q: it reads the link as
// the browser would (its cookies, user agent and referrer) for its name
// and size, and keeps the cookies (as a Cookie header for the link's
// host) and the user agent with the job as secrets of this process and
// the system keyring, never in the database. Answer.Warning is the
// queue's note when no keyring keeps them beyond this process. Errors
// never hold the cookies' values.
func AddLink(ctx context.Context, q *queue.Queue, l platform.Link, o AddOptions) (platform.Answer, error) {
	u, err := checkURL(l.URL)
	if err != nil {
		return platform.Answer{}, err
	}
	var note string
	// A link Braid cannot read is refused: the browser then keeps the
	// download (the extension falls back to it), and lists no row here.
	d := &rpc.QueueDownloads{Queue: q, Wake: o.Wake, HTTPClient: client(o.HTTPClient, u, l.Cookies, l.UserAgent, l.Referrer),
		Note: func(n string) { note = n }, RefuseUnread: true}
	if l.Dir != "" {
		d.SetDir(l.Dir)
	}
	var headers []string
	if len(l.Cookies) > 0 {
		pairs := make([]string, 0, len(l.Cookies))
		for _, c := range l.Cookies {
			pairs = append(pairs, c.Name+"="+c.Value)
		}
		headers = append(headers, "Cookie: "+strings.Join(pairs, "; "))
	}
	id, err := d.AddURIs(ctx, []string{l.URL}, rpc.AddOptions{Out: l.Filename, Referer: l.Referrer, UserAgent: l.UserAgent, Headers: headers})
	if err != nil {
		return platform.Answer{}, errors.New(scrub(err.Error(), l.Cookies))
	}
	a := platform.Answer{Job: id, Warning: note}
	if j, err := q.Get(id); err == nil && len(j.Files) > 0 {
		a.Name = j.Files[0].Path()
	}
	return a, nil
}

// Take is AddLink for the running Braid that got l through its socket:
// it refuses (platform.ErrElsewhere, so the host adds it itself) a link
// meant for another state folder's queue, or when this process does not
// run q.
func Take(ctx context.Context, q *queue.Queue, l platform.Link, o AddOptions) (platform.Answer, error) {
	mine := filepath.Dir(q.Path())
	if l.State != "" && !sameDir(l.State, mine) {
		return platform.Answer{}, fmt.Errorf("%w: it runs the queue of %s", platform.ErrElsewhere, mine)
	}
	if !q.Owner() {
		return platform.Answer{}, fmt.Errorf("%w: another Braid runs the queue of %s", platform.ErrElsewhere, mine)
	}
	return AddLink(ctx, q, l, o)
}

// sameDir: a and b name one folder.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// checkURL takes the links Braid downloads: http, https and ftp.
func checkURL(s string) (*url.URL, error) {
	if s == "" {
		return nil, errors.New(`the request has no "url"`)
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("the link is not a URL: %w", err)
	}
	switch u.Scheme {
	case "http", "https", "ftp":
	default:
		return nil, fmt.Errorf("cannot download %s: links (http, https and ftp only)", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("the link has no host")
	}
	return u, nil
}

// client reads u as the browser would: with its cookies for u (kept in
// memory only, and sent back only where the browser would send them) and
// its user agent and referrer.
func client(hc *http.Client, u *url.URL, cookies []platform.Cookie, userAgent, referrer string) *http.Client {
	base := http.DefaultTransport
	if hc != nil && hc.Transport != nil {
		base = hc.Transport
	}
	c := &http.Client{Transport: &browserTransport{base: base, userAgent: userAgent, referrer: referrer}}
	if len(cookies) > 0 {
		jar, _ := cookiejar.New(nil) // never fails without options
		cs := make([]*http.Cookie, 0, len(cookies))
		for _, k := range cookies {
			p := k.Path
			if p == "" {
				p = "/"
			}
			cs = append(cs, &http.Cookie{Name: k.Name, Value: k.Value, Path: p, Secure: k.Secure})
		}
		jar.SetCookies(u, cs)
		c.Jar = jar
	}
	return c
}

// browserTransport sends the browser's user agent and referrer.
type browserTransport struct {
	base                http.RoundTripper
	userAgent, referrer string
}

func (t *browserTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.userAgent == "" && t.referrer == "" {
		return t.base.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	if t.userAgent != "" {
		r.Header.Set("User-Agent", t.userAgent)
	}
	if t.referrer != "" && r.Header.Get("Referer") == "" {
		r.Header.Set("Referer", t.referrer)
	}
	return t.base.RoundTrip(r)
}

// list tells the downloads that are not done, in queue order.
func (h *host) list() (reply, error) {
	q, err := h.queue()
	if err != nil {
		return reply{}, err
	}
	jobs, err := q.List()
	if err != nil {
		return reply{}, err
	}
	ds := []Download{}
	for _, j := range jobs {
		if j.State == queue.Done {
			continue
		}
		if len(ds) == maxList {
			break
		}
		ds = append(ds, downloadOf(j))
	}
	return reply{Downloads: ds}, nil
}

// downloadOf sums a job's selected files.
func downloadOf(j queue.Job) Download {
	d := Download{Job: j.ID, State: string(j.State), Error: j.Error}
	var sel []queue.File
	for _, f := range j.Files {
		if f.Selected {
			sel = append(sel, f)
		}
	}
	switch {
	case len(sel) == 1:
		d.Name = sel[0].Path()
	case len(j.Files) > 0:
		d.Name = fmt.Sprintf("%s (%d files)", j.Files[0].Path(), len(sel))
	default:
		d.Name = j.Source
	}
	for _, f := range sel {
		d.Bytes += f.DoneBytes
		if f.Size < 0 || d.Size < 0 {
			d.Size = -1
		} else {
			d.Size += f.Size
		}
	}
	return d
}

// The extension's IDs: Chromium's is pinned by the "key" in
// extension/manifest.json (for an unpacked install; a store assigns its
// own, to be added here), Firefox's is in its browser_specific_settings.
var (
	ChromeExtensionIDs = []string{"peaildmplidnbblnghpfijaccoekpnpk"}
	FirefoxExtensionID = "braid@braid-dm.github.io"
)

// Registration is the host as `braid install` registers it with the
// browsers (platform.RegisterNativeHost): exe started with args (for
// Braid, ["native-host"]) and the browser's own arguments.
func Registration(exe string, args ...string) platform.NativeHost {
	h := platform.NativeHost{
		Name:        Name,
		Description: "Braid download manager",
		Exe:         exe,
		Args:        args,
		FirefoxIDs:  []string{FirefoxExtensionID},
	}
	for _, id := range ChromeExtensionIDs {
		h.ChromeOrigins = append(h.ChromeOrigins, "chrome-extension://"+id+"/")
	}
	return h
}
