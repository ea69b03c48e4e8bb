// Package rstest serves a ResourceSync source on loopback for tests: a
// Source Description at /.well-known/resourcesync, a Capability List, a
// Resource List (optionally split under a Resource List Index) and an open
// Change List that records every Put and Delete, and the resources
// themselves with real Range semantics (http.ServeContent).
package rstest

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Source is a ResourceSync source serving files from memory.
type Source struct {
	srv     *httptest.Server
	served  atomic.Int64 // body bytes of resources (not documents) written
	mu      sync.Mutex
	files   map[string]*file
	from    time.Time
	changes []change
	// PartSize, when > 0, splits the Resource List into lists of this many
	// entries under a Resource List Index. Set it before the first request.
	PartSize int
	// Extra are raw <url> elements added to the Resource List as written:
	// foreign hosts, hostile paths, mirrors.
	Extra []string
	// NoChangeList leaves the Change List out of the Capability List.
	NoChangeList bool
	// BareChanges writes Change List entries with no hash and length, as
	// the specification's examples do.
	BareChanges bool
	// OnlyVia, when set, answers 403 to every request whose Via header
	// does not contain it: a source that only a proxy's requests reach
	// (tinyproxy's Via names it), for the tests of a proxy setting.
	OnlyVia string
	// User and Password, when User is set, are the Basic login every
	// request must carry (401 without it).
	User, Password string
}

type file struct {
	data    []byte
	lastmod time.Time
	hash    string // the listed hash attribute; "" lists sum
	sum     string // Hash(data), computed once: lists of 100,000 are served
}

type change struct {
	path, kind string
	at         time.Time
}

// New starts a source and registers its Close with t.Cleanup.
func New(t testing.TB) *Source {
	t.Helper()
	s := &Source{files: map[string]*file{}, from: time.Now().UTC()}
	// Unstarted, then started: serve reads s.srv, which must be set
	// before the first request can arrive.
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the source's base URL, ending in "/".
func (s *Source) URL() string { return s.srv.URL + "/" }

// Host is the source's host:port.
func (s *Source) Host() string { return strings.TrimPrefix(s.srv.URL, "http://") }

// BytesServed is the number of resource body bytes sent so far.
func (s *Source) BytesServed() int64 { return s.served.Load() }

// Put creates or updates the resource at path (which starts with "/") and
// records the change.
func (s *Source) Put(path string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kind := "created"
	if _, ok := s.files[path]; ok {
		kind = "updated"
	}
	now := s.now()
	s.files[path] = &file{data: data, lastmod: now, sum: Hash(data)}
	s.changes = append(s.changes, change{path, kind, now})
}

// Lie makes the Resource List state hash for path instead of the real one.
func (s *Source) Lie(path, hash string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path].hash = hash
}

// Rotate drops the recorded changes: the Change List now begins at the
// next change, as a source's does when it retires old lists, leaving a gap
// for any destination that synced before.
func (s *Source) Rotate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.from = s.now()
	s.changes = nil
}

// Delete removes the resource at path and records the change.
func (s *Source) Delete(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.files, path)
	s.changes = append(s.changes, change{path, "deleted", s.now()})
}

// now is a time after every change so far, so that changes keep their
// order when the clock is coarse.
func (s *Source) now() time.Time {
	t := time.Now().UTC()
	if n := len(s.changes); n > 0 && !t.After(s.changes[n-1].at) {
		t = s.changes[n-1].at.Add(time.Millisecond)
	}
	return t
}

const head = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
`

func (s *Source) serve(w http.ResponseWriter, r *http.Request) {
	if s.OnlyVia != "" && !strings.Contains(r.Header.Get("Via"), s.OnlyVia) {
		http.Error(w, "only through the proxy", http.StatusForbidden)
		return
	}
	if u, p, _ := r.BasicAuth(); s.User != "" && (u != s.User || p != s.Password) {
		w.Header().Set("WWW-Authenticate", `Basic realm="rstest"`)
		http.Error(w, "log in", http.StatusUnauthorized)
		return
	}
	base := s.srv.URL
	var doc string
	switch r.URL.Path {
	case "/.well-known/resourcesync":
		doc = head + `<rs:md capability="description"/>
<url><loc>` + base + `/capabilitylist.xml</loc><rs:md capability="capabilitylist"/></url>
</urlset>`
	case "/capabilitylist.xml":
		doc = head + `<rs:ln rel="up" href="` + base + `/.well-known/resourcesync"/>
<rs:md capability="capabilitylist"/>
<url><loc>` + base + `/resourcelist.xml</loc><rs:md capability="resourcelist"/></url>
`
		if !s.NoChangeList {
			doc += `<url><loc>` + base + `/changelist.xml</loc><rs:md capability="changelist"/></url>
`
		}
		doc += `</urlset>`
	case "/resourcelist.xml":
		doc = s.resourceList(-1)
	case "/changelist.xml":
		doc = s.changeList()
	default:
		var part int
		if n, _ := fmt.Sscanf(r.URL.Path, "/resourcelist-%d.xml", &part); n == 1 {
			doc = s.resourceList(part)
			break
		}
		s.mu.Lock()
		f := s.files[r.URL.Path]
		s.mu.Unlock()
		if f == nil {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(&counter{ResponseWriter: w, n: &s.served}, r, "", f.lastmod, bytes.NewReader(f.data))
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	fmt.Fprint(w, doc)
}

// resourceList is the whole list (part < 0, or an index when PartSize is
// set) or one part of it.
func (s *Source) resourceList(part int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.now().Format(time.RFC3339Nano)
	paths := make([]string, 0, len(s.files))
	for p := range s.files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var b strings.Builder
	if part < 0 && s.PartSize > 0 {
		b.WriteString(strings.Replace(head, "urlset", "sitemapindex", 1))
		fmt.Fprintf(&b, "<rs:ln rel=\"up\" href=\"%s/capabilitylist.xml\"/>\n", s.srv.URL)
		fmt.Fprintf(&b, "<rs:md capability=\"resourcelist\" at=\"%s\"/>\n", at)
		for i := 0; i*s.PartSize < len(paths)+len(s.Extra) || i == 0; i++ {
			fmt.Fprintf(&b, "<sitemap><loc>%s/resourcelist-%d.xml</loc></sitemap>\n", s.srv.URL, i)
		}
		b.WriteString("</sitemapindex>\n")
		return b.String()
	}
	b.WriteString(head)
	fmt.Fprintf(&b, "<rs:ln rel=\"up\" href=\"%s/capabilitylist.xml\"/>\n", s.srv.URL)
	fmt.Fprintf(&b, "<rs:md capability=\"resourcelist\" at=\"%s\"/>\n", at)
	for i, p := range paths {
		if part >= 0 && i/s.PartSize != part {
			continue
		}
		f := s.files[p]
		hash := f.hash
		if hash == "" {
			hash = f.sum
		}
		fmt.Fprintf(&b, "<url>\n  <loc>%s%s</loc>\n  <lastmod>%s</lastmod>\n  <rs:md hash=\"%s\"\n    length=\"%d\"/>\n</url>\n",
			s.srv.URL, p, f.lastmod.Format(time.RFC3339Nano), hash, len(f.data))
	}
	if part <= 0 {
		for _, x := range s.Extra {
			b.WriteString(x + "\n")
		}
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

func (s *Source) changeList() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	b.WriteString(head)
	fmt.Fprintf(&b, "<rs:md capability=\"changelist\" from=\"%s\"/>\n", s.from.Format(time.RFC3339Nano))
	for _, c := range s.changes {
		md := fmt.Sprintf("change=%q", c.kind)
		if f := s.files[c.path]; f != nil && c.kind != "deleted" && f.lastmod.Equal(c.at) && !s.BareChanges {
			md += fmt.Sprintf(" hash=%q length=\"%d\"", f.sum, len(f.data))
		}
		fmt.Fprintf(&b, "<url><loc>%s%s</loc><lastmod>%s</lastmod><rs:md %s/></url>\n", s.srv.URL, c.path, c.at.Format(time.RFC3339Nano), md)
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

// Hash is the rs:md hash attribute of data: md5 and sha-256.
func Hash(data []byte) string {
	return fmt.Sprintf("md5:%x sha-256:%x", md5.Sum(data), sha256.Sum256(data))
}

type counter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(n))
	return n, err
}
