package queue

import (
	"braid/engine/metalink"
	"braid/engine/redact"
	"slices"
	"sync"
)

// Redact returns s with the credentials (user:password@) of every URL in
// it removed, for anything shown to the user or kept: a job's source and
// error, its document and its mirrors. The queue keeps no password in
// clear: credentials a link carried live only in the run that was given
// them. Safe for concurrent use. It is redact.Text, Braid's one redaction.
func Redact(s string) string { return redact.Text(s) }

// storedDoc is doc as the queue keeps it: every URL without credentials.
// doc is not changed.
func storedDoc(doc *metalink.Document) *metalink.Document {
	d := *doc
	d.Origin = Redact(d.Origin)
	d.Files = make([]metalink.File, len(doc.Files))
	for i, f := range doc.Files {
		d.Files[i] = storedFile(f)
	}
	return &d
}

// storedFile is f as the queue keeps it: its mirrors and metaurls without
// credentials.
func storedFile(f metalink.File) metalink.File {
	f.URLs = slices.Clone(f.URLs)
	for i := range f.URLs {
		f.URLs[i].URL = Redact(f.URLs[i].URL)
	}
	f.MetaURLs = slices.Clone(f.MetaURLs)
	for i := range f.MetaURLs {
		f.MetaURLs[i].URL = Redact(f.MetaURLs[i].URL)
	}
	return f
}

// sessionLogins keep, for this process only, the credentials that links
// given to the queue carried: the queue stores every URL without them, so
// a job added with http://user:pass@host/f runs in the process that was
// given the link, and after a restart asks for a login again (the server
// says so: "the server asks for a login"). Safe for concurrent use.
type sessionLogins struct {
	mu sync.Mutex
	m  map[string]string // URL as stored → URL as given
}

// keep remembers the credentials of the URLs of files.
func (l *sessionLogins) keep(files []metalink.File) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range files {
		for _, u := range f.URLs {
			if stored := Redact(u.URL); stored != u.URL {
				if l.m == nil {
					l.m = map[string]string{}
				}
				l.m[stored] = u.URL
			}
		}
	}
}

// Login returns a mirror URL as the queue stores it with the credentials a
// link gave it in this process, or as it is when none did.
func (q *Queue) Login(stored string) string {
	q.logins.mu.Lock()
	defer q.logins.mu.Unlock()
	if u, ok := q.logins.m[stored]; ok {
		return u
	}
	return stored
}
