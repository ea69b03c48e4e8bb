// Package resourcesync reads ResourceSync documents (ANSI/NISO Z39.99):
// Source Descriptions, Capability Lists, Resource Lists, Change Lists,
// Resource Dumps and their manifests, and the sitemap indexes that group
// large lists. It turns their resources into Braid's model, metalink.File,
// so that selection, queue and engine need nothing new to run them, and it
// plans a sync: which resources to fetch, which are gone.
//
// Parsing, conversion and planning are pure: bytes in, model out. The
// only I/O is in fetch.go (Fetcher), which walks a source over HTTP.
package resourcesync

import (
	"time"

	"braid/engine/metalink"
)

// Namespaces of the sitemap protocol and of ResourceSync's extensions.
const (
	NSSitemap = "http://www.sitemaps.org/schemas/sitemap/0.9"
	NSRS      = "http://www.openarchives.org/rs/terms/"
)

// Capabilities a document, or an entry of a Source Description or
// Capability List, can have (the rs:md capability attribute).
const (
	CapDescription    = "description"
	CapCapabilityList = "capabilitylist"
	CapResourceList   = "resourcelist"
	CapChangeList     = "changelist"
	CapResourceDump   = "resourcedump"
	CapDumpManifest   = "resourcedump-manifest"
	CapChangeDump     = "changedump"
	CapChangeManifest = "changedump-manifest"
)

// Changes an entry of a Change List reports (the rs:md change attribute).
const (
	ChangeCreated = "created"
	ChangeUpdated = "updated"
	ChangeDeleted = "deleted"
)

// Document is one ResourceSync document: a <urlset> or, when Index is set,
// a <sitemapindex> whose entries are the documents it groups.
type Document struct {
	// Index is true for a <sitemapindex>: its Entries are other documents.
	Index bool
	// Capability is the document's own rs:md capability, "" when absent.
	Capability string
	// At, Completed (lists and dumps), From and Until (change documents)
	// are the document's rs:md times; zero when absent or unreadable.
	At, Completed, From, Until time.Time
	// Links are the document's own rs:ln links (up, index, describedby).
	Links []Link
	// Entries are the <url> (or <sitemap>) children with a <loc>, in
	// document order.
	Entries []Entry
	// Warnings are things skipped that a user may want to know about:
	// an entry without <loc>, an unknown hash type, an unreadable time.
	Warnings []string
}

// Entry is one <url> or <sitemap> child.
type Entry struct {
	Loc     string    // the resource's (or document's) URI, trimmed
	Lastmod time.Time // zero when absent or unreadable
	Line    int       // where the entry starts, for messages

	// From rs:md.
	Capability                 string          // in Source Descriptions and Capability Lists
	Change                     string          // created, updated or deleted, in Change Lists
	Hashes                     []metalink.Hash // IANA names, lower-case hex
	Length                     int64           // -1 when not given
	Type                       string          // media type
	Path                       string          // the bitstream's path inside a dump's ZIP
	At, Completed, From, Until time.Time

	Links []Link
}

// Link is one rs:ln element.
type Link struct {
	Href     string
	Rel      string // lower case
	Type     string
	Priority int // pri, 1 to metalink.LowestPriority; LowestPriority when absent
	Hashes   []metalink.Hash
	Length   int64 // -1 when not given
}

// LinkTo returns the href of the first link with relation rel, or "".
func LinkTo(links []Link, rel string) string {
	for _, l := range links {
		if l.Rel == rel {
			return l.Href
		}
	}
	return ""
}
