package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"braid/engine/netconf"
	"braid/engine/transport"
	"braid/queue"
)

// linkExpired reports whether err, a file's download error, is its link
// refusing (403) or gone (410) after it served the job (worked: the file
// had bytes kept or fetched): a signed link that expired, not a login
// the server asks for.
func linkExpired(err error, worked bool) bool {
	if err == nil || !worked {
		return false
	}
	var login *transport.LoginError
	if errors.As(err, &login) {
		return false
	}
	code := transport.StatusOf(err)
	return code == http.StatusForbidden || code == http.StatusGone
}

// LinkExpired is the error that pauses job id whose link, which served it
// before, is now refused (403) or gone (410) (see linkExpired): the
// job's reason starts with queue.LinkExpiredPrefix and says what to do
// next. err is the download's error.
func LinkExpired(id int64, err error) error {
	return queue.PauseError(fmt.Sprintf("%s: the server now refuses the link that served this download (%s); give it a fresh link: braid queue relink %d URL",
		queue.LinkExpiredPrefix, statusIn(err), id), err)
}

// statusIn is the HTTP status an expired link answered: the transport's
// typed status when err carries one, else as the error's text says it
// (an error read back from the database).
func statusIn(err error) string {
	var se *transport.StatusError
	if errors.As(err, &se) {
		return se.Status
	}
	msg := err.Error()
	for _, s := range []string{"410 Gone", "403 Forbidden"} {
		if strings.Contains(msg, s) {
			return s
		}
	}
	if strings.Contains(msg, ": 410 ") {
		return "410"
	}
	return "403"
}

// pauseExpired puts the job of source in dest in the "link expired" state
// when its link, cause's, now refuses it and the job, queued or paused,
// has bytes kept (it served them): a get that resolves the source again
// before downloading meets the expiry there. It returns the LinkExpired
// error the job paused with, or nil when there is no such job.
func pauseExpired(q *queue.Queue, source, dest string, cause error) error {
	id, ok, err := q.JobFor(source, dest)
	if err != nil || !ok {
		return nil
	}
	j, err := q.Get(id)
	if err != nil || (j.State != queue.Queued && j.State != queue.Paused) {
		return nil
	}
	if _, _, kept, _ := j.Progress(); kept == 0 {
		return nil
	}
	e := LinkExpired(id, cause)
	reason, _ := queue.PauseReason(e)
	if err := q.Pause(id, reason); err != nil {
		return nil
	}
	return e
}

// Samples is how many ranges of the bytes kept on disk Relink compares
// with the new link, and SampleSize how long each is at most.
const (
	Samples    = 4
	SampleSize = 64 << 10
)

// Relink gives job id the link newURL in place of the one it has (a
// signed link that expired), keeping the bytes on disk when the new link
// serves the same file: the same size, no published whole-file hash that
// disagrees, and Samples ranges of what is on disk equal to the new
// link's. Otherwise it refuses with a sentence (wrapping
// queue.ErrRelink) and the job is left as it was. hc reads the new link
// (nil: http.DefaultClient), wearing the job's logins, cookies and
// headers. It returns what was checked, in a sentence. A job that was
// paused because its link expired is queued again; the window's runner or
// `braid queue run` goes on with it.
func Relink(ctx context.Context, q *queue.Queue, hc *http.Client, id int64, newURL string) (string, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	j, err := q.Get(id)
	if err != nil {
		return "", err
	}
	if _, ok := torrentSource(j); ok {
		return "", fmt.Errorf("job %d: %w: a torrent has no link to change", id, queue.ErrRelink)
	}
	var sel []queue.File
	for _, f := range j.Files {
		if f.Selected {
			sel = append(sel, f)
		}
	}
	if len(sel) != 1 {
		return "", fmt.Errorf("job %d: %w: a link names one file, and this job downloads %d", id, queue.ErrRelink, len(sel))
	}
	f := sel[0]
	if f.Verified {
		return "", fmt.Errorf("job %d: %w: %s is done", id, queue.ErrRelink, f.Name)
	}
	var ss *netconf.Session // the job's logins, for an ftp link
	if s, ok, _, err := q.Net(id); err != nil {
		return "", err
	} else if ok {
		s.Links = append(s.Links, newURL)
		if ss, err = s.Open(); err != nil {
			return "", fmt.Errorf("job %d: %w", id, err)
		}
	}
	ro := ResolveOptions{HTTPClient: hc}.Wearing(ss)
	hc = ro.HTTPClient // for the samples too
	refuse := func(format string, a ...any) (string, error) {
		return "", fmt.Errorf("job %d: %w: %s; the job is left as it was", id, queue.ErrRelink, fmt.Sprintf(format, a...))
	}
	doc, origin, err := ResolveSource(ctx, newURL, ro)
	if err != nil {
		return refuse("the new link does not answer as a download (%v)", err)
	}
	if len(doc.Files) != 1 {
		return refuse("the new link lists %d files, not one", len(doc.Files))
	}
	nf := doc.Files[0]
	checked := []string{}
	switch {
	case f.Size >= 0 && nf.Size < 0:
		return refuse("the new link does not say how long its file is, so it cannot be matched to the %d bytes of %s", f.Size, f.Name)
	case f.Size >= 0 && nf.Size != f.Size:
		return refuse("the new link serves %d bytes and %s is %d bytes: it is a different file", nf.Size, f.Name, f.Size)
	case f.Size >= 0:
		checked = append(checked, "the same size")
	}
	for _, h := range f.Hashes {
		for _, nh := range nf.Hashes {
			if !strings.EqualFold(h.Type, nh.Type) {
				continue
			}
			if !strings.EqualFold(h.Value, nh.Value) {
				return refuse("the new link publishes a %s that is not %s's: it is a different file", h.Type, f.Name)
			}
			checked = append(checked, "its "+h.Type+" agrees")
		}
	}
	n, err := compareKept(ctx, q, hc, j, f, newURL)
	if err != nil {
		if errors.Is(err, queue.ErrRelink) {
			return refuse("%v", err)
		}
		return "", err
	}
	if n > 0 {
		checked = append(checked, fmt.Sprintf("%d ranges of the bytes on disk agree", n))
	}
	old := ""
	stored := queue.Redact(j.Source)
	for _, m := range f.Mirrors {
		if m.URL == stored || len(f.Mirrors) == 1 {
			old = m.URL
		}
	}
	if err := q.Relink(id, f.Name, old, newURL, origin.ETag); err != nil {
		return "", err
	}
	if len(checked) == 0 {
		return "nothing was kept on disk, so nothing needed to match", nil
	}
	return strings.Join(checked, ", "), nil
}

// compareKept compares up to Samples ranges of the pieces of f kept in
// its .part with the same ranges of newURL, and returns how many agreed;
// queue.ErrRelink when one does not (or the link cannot serve ranges).
func compareKept(ctx context.Context, q *queue.Queue, hc *http.Client, j queue.Job, f queue.File, newURL string) (int, error) {
	b, l, err := q.Pieces(j.ID, f.Name)
	if err != nil {
		return 0, err
	}
	var done []int
	for i := range b.Len() {
		if b.Has(i) {
			done = append(done, i)
		}
	}
	if len(done) == 0 {
		return 0, nil
	}
	root, err := os.OpenRoot(j.Dest)
	if err != nil {
		return 0, destProblem(j.Dest, err)
	}
	defer root.Close()
	part, err := root.Open(filepath.FromSlash(f.Path() + ".part"))
	if err != nil {
		return 0, fmt.Errorf("%s: the kept bytes cannot be read: %w", f.Name, err)
	}
	defer part.Close()
	picks := []int{}
	for k := range min(Samples, len(done)) {
		picks = append(picks, done[k*len(done)/min(Samples, len(done))])
	}
	for _, p := range picks {
		off := int64(p) * l.Length
		n := min(int64(SampleSize), l.Length, l.Size-off)
		want := make([]byte, n)
		if _, err := part.ReadAt(want, off); err != nil {
			return 0, fmt.Errorf("%s: read the kept bytes at %d: %w", f.Name, off, err)
		}
		got, err := fetchRange(ctx, hc, newURL, off, n)
		if err != nil {
			return 0, err
		}
		if !bytes.Equal(got, want) {
			return 0, fmt.Errorf("%w: bytes %d to %d of the new link differ from those kept on disk: it serves a different file", queue.ErrRelink, off, off+n-1)
		}
	}
	return len(picks), nil
}

// fetchRange reads n bytes at off from u.
func fetchRange(ctx context.Context, hc *http.Client, u string, off, n int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", queue.ErrRelink, err)
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: the new link did not answer (%s)", queue.ErrRelink, queue.Redact(err.Error()))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent {
		return nil, fmt.Errorf("%w: the new link answered %s to a range request, so what is on disk cannot be compared", queue.ErrRelink, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, n))
}
