package torrent

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
	"sync"
	"time"
)

// Streams. A torrent's file is opened while it arrives through the
// library's reader: a player reads it over HTTP from a loopback server
// (Streams), each request through a reader of its own, which asks the
// swarm for the pieces at the read position first (responsive: a chunk
// is given as soon as it is there) and for streamReadahead bytes past it
// next. A player that seeks, or reads a container's index at the end,
// gets those pieces before the rest, whatever order the job downloads
// in; the job's own schedule (in order or not) fills the others.
//
// Each file is served under a random token, so that no other program or
// web page on the machine can read it by guessing the address. Once the
// job has ended (a pause, or done without seeding) its reader no longer
// reads; a file done by then is served from its final name on disk, so
// that a player still playing it goes on.

// streamReadahead is how far past a read the library asks for pieces
// before the rest: a few seconds of high-definition video.
const streamReadahead = 16 << 20

// ErrStreamEnded is the error of a file no longer served: its torrent
// stopped before the file was whole.
var ErrStreamEnded = errors.New("the torrent is not running, and the file is not whole")

// Streams serves the files of running torrents over HTTP on the loopback
// address, with Range requests. Its methods are safe for concurrent use.
type Streams struct {
	ln  net.Listener
	srv *http.Server

	mu    sync.Mutex
	files map[string]streamFile // by token
}

// streamFile is one file served.
type streamFile struct {
	j    *Job
	name string // the file's name in the job (File.Name)
}

// NewStreams starts a server on a free loopback port.
func NewStreams() (*Streams, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("serve a file to a player: %w", err)
	}
	s := &Streams{ln: ln, files: map[string]streamFile{}}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// URL serves file name of job j (a File.Name of j.Files) and returns its
// address: the file's base name is the address's last element, so that a
// player that looks at the name sees its extension.
func (s *Streams) URL(j *Job, name string) (string, error) {
	known := false
	for _, f := range j.Files() {
		known = known || f.Name == name
	}
	if !known {
		return "", fmt.Errorf("%s is not a file of this torrent, or its file list is not known yet", name)
	}
	token := rand.Text()
	s.mu.Lock()
	s.files[token] = streamFile{j: j, name: name}
	s.mu.Unlock()
	u := url.URL{Scheme: "http", Host: s.ln.Addr().String(), Path: "/" + token + "/" + path.Base(name)}
	return u.String(), nil
}

// Close stops the server, and every transfer in progress.
func (s *Streams) Close() error { return s.srv.Close() }

// ServeHTTP serves GET and HEAD of a file's address, with ranges.
func (s *Streams) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	token, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	s.mu.Lock()
	f, ok := s.files[token]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	content, err := f.j.openFile(r.Context(), f.name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusGone)
		return
	}
	defer content.Close()
	http.ServeContent(w, r, path.Base(f.name), time.Time{}, content)
}

// openFile opens file name for reading from its start: through the
// library's reader while the job runs, else from its final name once it
// is done.
func (j *Job) openFile(ctx context.Context, name string) (io.ReadSeekCloser, error) {
	j.mu.Lock()
	ts := j.ts
	j.mu.Unlock()
	select {
	case <-j.done:
	default:
		if ts != nil {
			files := j.t.Files()
			for i, sp := range ts.spans {
				if sp.pad || sp.name != name || i >= len(files) {
					continue
				}
				rd := files[i].NewReader()
				rd.SetContext(ctx)
				rd.SetResponsive()
				rd.SetReadahead(streamReadahead)
				return rd, nil
			}
		}
	}
	for _, f := range j.Files() {
		if f.Name == name && f.Done {
			root, err := os.OpenRoot(j.req.Dir)
			if err != nil {
				return nil, err
			}
			defer root.Close()
			return root.Open(name)
		}
	}
	return nil, fmt.Errorf("%s: %w", name, ErrStreamEnded)
}
