package queue

import (
	"braid/engine/metalink"
	"braid/engine/redact"
	"slices"
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
