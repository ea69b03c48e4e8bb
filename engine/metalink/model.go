// Package metalink reads and writes Metalink documents: Metalink 4 (RFC 5854,
// .meta4), Metalink 3.0 (.metalink) and the Metalink/HTTP headers of RFC 6249,
// all into one model. It is pure: bytes in, model out, no I/O beyond the
// reader it is given.
package metalink

import "time"

// LowestPriority is the priority of a URL that states none (RFC 5854 §4.2.16.1).
const LowestPriority = 999999

// MaxConnLimit is the largest connection limit the model holds (File and
// URL MaxConnections): one client address has no more TCP ports than
// this. Parse reads a larger one as not given, with a warning.
const MaxConnLimit = 65535

// MaxMirrorDepth is the largest Metalink/HTTP depth the model holds
// (URL.Depth, Link.Depth): a URL with more path segments than this is
// longer than the 8 KB that HTTP servers accept. Readers take a larger
// one as not given.
const MaxMirrorDepth = 4096

// Document is one Metalink document, whatever its version.
type Document struct {
	Version   int       // 3 or 4: the version the document was written in
	Generator string    `json:",omitzero"` // the program that wrote it, if it says
	Origin    string    `json:",omitzero"` // where a fresh copy of the document lives
	Dynamic   bool      `json:",omitzero"` // the origin may hold a newer document
	Published time.Time `json:",omitzero"`
	Updated   time.Time `json:",omitzero"`

	// Files are the files that passed every safety check, in document order.
	Files []File
	// Rejected are files refused for safety (an unsafe or duplicate name);
	// the rest of the document still works.
	Rejected []Rejected `json:",omitzero"`
	// Warnings are things skipped or repaired that a user may want to know
	// about: pieces that do not fit the size, unknown hash types, and so on.
	Warnings []string `json:",omitzero"`
}

// Rejected is a file of the document that Braid refuses to download.
type Rejected struct {
	Name   string // the name as the document spells it
	Reason string // why, in words a user understands
}

// File is one file of a document and everything known about it.
type File struct {
	// Name is a relative, slash-separated path that passed SafeName: no
	// absolute path, drive letter, "..", backslash or control character.
	Name string
	// Size is the file's length in bytes, or -1 when the document does not say.
	Size int64
	// MaxConnections is the most connections to all mirrors together for
	// this file (Metalink 3 <resources maxconnections>, where 1 turns off
	// segmented downloading), 1 to MaxConnLimit; 0 means the document does
	// not say. A limit for all mirrors together is also one for each, so Parse
	// caps every URL's MaxConnections at it; keeping the total is the
	// engine's job.
	MaxConnections int `json:",omitzero"`

	Identity    string `json:",omitzero"`
	Version     string `json:",omitzero"`
	Description string `json:",omitzero"`
	Copyright   string `json:",omitzero"`
	Logo        string `json:",omitzero"`
	Publisher   Party  `json:",omitzero"`
	License     Party  `json:",omitzero"`

	Languages []string `json:",omitzero"` // BCP 47 tags as written; empty: any language
	OS        []string `json:",omitzero"` // operating systems as written; empty: any OS

	// Hashes are whole-file hashes. Type is the IANA name in lower case
	// (sha-256, sha-1, md5, ...), Value is lower-case hex.
	Hashes    []Hash     `json:",omitzero"`
	Pieces    *Pieces    `json:",omitzero"` // nil when the document has no usable piece hashes
	Signature *Signature `json:",omitzero"` // nil when unsigned

	// URLs are the mirrors, ordered by Priority (lowest first; ties keep
	// document order).
	URLs []URL
	// MetaURLs point at metadata (a .torrent, a magnet link) describing the file.
	MetaURLs []MetaURL `json:",omitzero"`
}

// Party is a publisher or a licence: a name and where to read more.
type Party struct {
	Name string
	URL  string
}

// Hash is a digest of a whole file or of one piece.
type Hash struct {
	Type  string // IANA hash name, lower case: sha-256, sha-1, md5, ...
	Value string // lower-case hex
}

// Pieces are the hashes of consecutive, equal-length pieces of a file (the
// last may be shorter).
type Pieces struct {
	Type   string   // IANA hash name, lower case
	Length int64    // bytes per piece
	Hashes []string // lower-case hex, one per piece, in order
}

// Signature is a detached signature of the file, kept as data.
type Signature struct {
	MediaType string // e.g. application/pgp-signature
	Value     string
}

// URL is one mirror of a file.
type URL struct {
	URL string
	// Location is an ISO 3166-1 alpha-2 country code in upper case, or "".
	Location string `json:",omitzero"`
	// Priority orders mirrors: lower first, 1 to LowestPriority. Metalink 3
	// preference p (1 to 100, higher first) becomes 101-p.
	Priority int
	// MaxConnections is the most connections to this mirror for this
	// file, 1 to MaxConnLimit; 0 means the document does not say. Where
	// the file has a MaxConnections, Parse lowers this to it, and sets it
	// where the mirror says nothing.
	MaxConnections int `json:",omitzero"`
	// Pref marks a preferred mirror from Metalink/HTTP (RFC 6249 "pref"):
	// its ETag must match the origin's.
	Pref bool `json:",omitzero"`
	// Depth is the Metalink/HTTP "depth" (how many path segments closer
	// to the host the mirror also holds, RFC 6249 §3.4), 0 to
	// MaxMirrorDepth; 0 when not given.
	Depth int `json:",omitzero"`
}

// MediaTorrent is the media type of a metaurl that is a torrent.
const MediaTorrent = "torrent"

// MetaURL points at a metadata document for the file, such as a .torrent.
type MetaURL struct {
	URL       string
	MediaType string // MediaTorrent, or another media type as written
	Name      string // the file's path inside the torrent, checked like File.Name
	Priority  int
}

// Link is one value of a Metalink/HTTP Link header (RFC 6249).
type Link struct {
	URL      string
	Rel      string // "duplicate", "describedby", ... in lower case
	Type     string // media type of the target, for describedby
	Priority int    // "pri", 1 to LowestPriority; LowestPriority when absent
	Geo      string // "geo", upper case ISO 3166-1 alpha-2, or ""
	Pref     bool   // "pref": a preferred mirror
	Depth    int    // "depth", 0 to MaxMirrorDepth; 0 when absent or beyond
}
