package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
	"time"

	"braid/engine"
	"braid/engine/explain"
	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/engine/resolve"
	"braid/engine/transport"
	"braid/engine/ziprange"
)

// inspectArchive is the member list of an archive, read from its end
// alone: a ZIP's end record and central directory, or an eStargz blob's
// footer and table of contents.
type inspectArchive struct {
	// Format is "zip", "estargz" (a tar whose eStargz index was read), or
	// "tar" (a file named as a tar, or starting as one, with no index:
	// Error says that a member can only be had by reading the whole
	// archive).
	Format string `json:"format"`
	// Listed: the members were read. Otherwise Error says why not, in a
	// sentence, and Members is empty.
	Listed  bool            `json:"listed"`
	Error   string          `json:"error"`
	Members []inspectMember `json:"members"` // in the archive's order
	// Requests and BytesRead are what reading the list cost: range
	// requests made and bytes received.
	Requests  int   `json:"requests"`
	BytesRead int64 `json:"bytes_read"`
	// Mirrors is how many mirrors sent bytes of the list (a metalink's;
	// 1 for a plain URL), and PieceCheck the hash whole pieces of it were
	// checked against ("sha-256"), "" when none.
	Mirrors    int    `json:"mirrors"`
	PieceCheck string `json:"piece_check"`
	// TOCDigest is an eStargz blob's table of contents' digest
	// ("sha256:HEX"), which an image manifest's
	// containerd.io/snapshot/stargz/toc.digest annotation gives; "" for
	// a ZIP.
	TOCDigest string `json:"toc_digest"`
}

// inspectMember is one member of an archive. A ZIP member's type is
// "file" or "folder"; an eStargz entry's is the table of contents' own:
// "reg", "dir", "symlink", "hardlink", "char", "block" or "fifo".
type inspectMember struct {
	Path           string `json:"path"` // as stored, slash-separated
	Size           int64  `json:"size"`
	CompressedSize int64  `json:"compressed_size"` // an eStargz file's: its gzip chunks'
	Method         string `json:"method"`          // "stored", "deflate", "method 12 (bzip2)", ...; "gzip" for eStargz
	MethodID       uint16 `json:"method_id"`       // the ZIP method number; 8 (deflate, as gzip is) for eStargz
	CRC32          string `json:"crc32"`           // 8 lower-case hex digits; "" for eStargz
	Encrypted      bool   `json:"encrypted"`
	Folder         bool   `json:"folder"`
	Offset         int64  `json:"offset"` // of its local header, or an eStargz file's first chunk; -1 when unknown or none
	Type           string `json:"type"`
	Digest         string `json:"digest"`    // an eStargz file's ("sha256:HEX"); "" when none
	Chunks         int    `json:"chunks"`    // an eStargz file's gzip chunks; 0 for a ZIP
	LinkName       string `json:"link_name"` // an eStargz link's target; "" otherwise
}

// zipExtensions are the names of files that are ZIP archives inside;
// inspect lists the members of a plain URL with one of them.
var zipExtensions = []string{".zip", ".jar", ".war", ".ear", ".apk", ".aab", ".whl", ".nupkg", ".xpi", ".ipa", ".epub"}

// isZipName reports whether name ends with a ZIP archive's extension.
func isZipName(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	for _, e := range zipExtensions {
		if ext == e {
			return true
		}
	}
	return false
}

// reach is how inspect reaches a source and an archive's mirrors: the
// proxy route and the session (logins, cookies, headers) of the network
// flags.
type reach struct {
	client *engine.Client // its Network is the proxy route
	net    *netconf.Session
}

// http is the proxy route's HTTP client wearing the session.
func (r reach) http() *http.Client { return r.net.Client(r.client.HTTPClient()) }

// plain is the archive at a plain URL, read by range; origin is what its
// server said of it (nil: nothing), for its size.
func (r reach) plain(source string, origin *resolve.Origin) (*transport.HTTPSource, int64, error) {
	size := int64(-1)
	if origin != nil {
		size = origin.Size
	}
	src, err := transport.NewHTTP(source, transport.Options{Size: size, Network: r.client.Network, Session: r.net})
	return src, size, err
}

// mirrors reads the archive a metalink describes as file from all its
// mirrors at once through the engine.
func (r reach) mirrors(ctx context.Context, file metalink.File) (*engine.Ranges, error) {
	return r.client.OpenRanges(ctx, &engine.Request{File: file, RetryFor: listRetryFor, Net: r.net})
}

// zipListing reads the members of the ZIP archive at a plain URL. A list
// that cannot be read is said in Error: the source itself was inspected.
func zipListing(ctx context.Context, source string, origin *resolve.Origin, via reach) *inspectArchive {
	out := &inspectArchive{Format: "zip", Members: []inspectMember{}}
	src, size, err := via.plain(source, origin)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	a, err := ziprange.Open(ctx, src, size)
	if err != nil {
		out.Error = archiveSentence(err)
		return out
	}
	out.Listed, out.Mirrors = true, 1
	out.Requests, out.BytesRead = a.Requests(), a.BytesRead()
	out.addMembers(a)
	return out
}

// listRetryFor bounds how long inspect waits for mirrors that fail with
// temporary errors before it says the list cannot be read.
const listRetryFor = 15 * time.Second

// zipListingMirrors reads the members of the ZIP archive a metalink
// describes as file, from all its mirrors at once through the engine:
// where the metalink has piece hashes, the pieces holding the archive's
// end and directory are fetched whole and checked.
func zipListingMirrors(ctx context.Context, file metalink.File, via reach) *inspectArchive {
	out := &inspectArchive{Format: "zip", Members: []inspectMember{}}
	ranges, err := via.mirrors(ctx, file)
	if err != nil {
		out.Error = mirrorsSentence(err)
		return out
	}
	defer ranges.Close()
	a, err := ziprange.Open(ctx, ranges, ranges.Size())
	if err != nil {
		out.Error = mirrorsSentence(err)
		return out
	}
	st := ranges.Stats()
	out.Listed = true
	out.Requests, out.BytesRead, out.PieceCheck = a.Requests(), st.Bytes(), st.PieceType
	for _, m := range st.Mirrors {
		if m.Bytes > 0 {
			out.Mirrors++
		}
	}
	out.addMembers(a)
	return out
}

// addMembers lists a's members.
func (out *inspectArchive) addMembers(a *ziprange.Archive) {
	for _, m := range a.Members {
		typ := "file"
		if m.Dir {
			typ = "folder"
		}
		out.Members = append(out.Members, inspectMember{
			Path:           m.Name,
			Size:           m.Size,
			CompressedSize: m.CompressedSize,
			Method:         ziprange.MethodName(m.Method),
			MethodID:       m.Method,
			CRC32:          fmt.Sprintf("%08x", m.CRC32),
			Encrypted:      m.Encrypted,
			Folder:         m.Dir,
			Offset:         m.HeaderOffset,
			Type:           typ,
		})
	}
}

// archiveSentence is what to tell a user about an archive that could not
// be read: ziprange's sentence alone for what it knows, with the
// technical detail after it otherwise.
func archiveSentence(err error) string {
	for _, known := range []error{ziprange.ErrNoRanges, ziprange.ErrUnknownSize, ziprange.ErrDirectoryTooLarge} {
		if errors.Is(err, known) {
			return known.Error()
		}
	}
	if errors.Is(err, ziprange.ErrNotZip) {
		return ziprange.ErrNotZip.Error()
	}
	var login *transport.LoginError
	if errors.As(err, &login) {
		return "the archive's list cannot be read: " + login.Error()
	}
	if clause := explain.Of(err).Clause(); clause != "" {
		return fmt.Sprintf("the archive's list cannot be read: %s (%v)", clause, err)
	}
	return "the archive's list cannot be read: " + err.Error()
}

// errMirrorsNoRanges and errMirrorsUnknownSize are ziprange's sentences
// for an archive read from a metalink's mirrors.
var (
	errMirrorsNoRanges    = errors.New("no mirror of the archive sends parts of files (byte ranges): reading an archive's list or one member needs them, so the whole archive must be downloaded")
	errMirrorsUnknownSize = errors.New("neither the metalink nor any mirror tells the archive's size, so its list at the end cannot be found")
)

// mirrorsSentence is archiveSentence for an archive read from a
// metalink's mirrors.
func mirrorsSentence(err error) string {
	switch {
	case errors.Is(err, ziprange.ErrNoRanges):
		return errMirrorsNoRanges.Error()
	case errors.Is(err, engine.ErrUnknownSize):
		return errMirrorsUnknownSize.Error()
	}
	return archiveSentence(err)
}

// writeArchiveText prints an archive's members for people: one line each,
// size, compressed size, method, CRC-32 and path.
func writeArchiveText(pf func(string, ...any), a *inspectArchive) {
	pf("\n")
	if !a.Listed {
		pf("%-10s cannot be listed: %s\n", "members", inspectClean(a.Error))
		return
	}
	if a.Format == "estargz" {
		writeStargzText(pf, a)
		return
	}
	writeArchiveSummary(pf, a, "ZIP", func(m inspectMember) bool { return !m.Folder })
	pf("    %12s %12s  %-8s %-8s  %s\n", "size", "packed", "method", "crc-32", "path")
	for _, m := range a.Members {
		if m.Folder {
			continue
		}
		note := ""
		if m.Encrypted {
			note = "  (encrypted)"
		}
		pf("    %12d %12d  %-8s %-8s  %s%s\n", m.Size, m.CompressedSize, inspectClean(m.Method), m.CRC32, inspectClean(m.Path), note)
	}
}

// writeArchiveSummary prints the line above a listing of kind ("ZIP",
// "eStargz"): how many members isFile counts, their sizes unpacked and
// packed, and what reading the list cost, from how many mirrors.
func writeArchiveSummary(pf func(string, ...any), a *inspectArchive, kind string, isFile func(inspectMember) bool) {
	var size, packed int64
	files := 0
	for _, m := range a.Members {
		if isFile(m) {
			files++
			size += m.Size
			packed += m.CompressedSize
		}
	}
	from := ""
	if a.Mirrors > 1 {
		from = fmt.Sprintf(" from %d mirrors", a.Mirrors)
	}
	if a.PieceCheck != "" {
		from += fmt.Sprintf(" (whole pieces, checked against their %s hashes)", a.PieceCheck)
	}
	pf("%-10s %d %s in the %s archive, %s (%s packed); reading the list took %d %s, %s%s\n",
		"members", files, plural(files, "file", "files"), kind, byteText(size), byteText(packed),
		a.Requests, plural(a.Requests, "range request", "range requests"), byteText(a.BytesRead), from)
}
