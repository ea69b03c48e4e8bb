package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"

	"braid/engine/metalink"
	"braid/engine/resolve"
	"braid/engine/stargz"
	"braid/engine/torrent"
)

// tarExtensions are the names of tar archives, compressed or not, and of
// eStargz blobs: inspect reads the end of a plain URL with one of them for
// an eStargz index.
var tarExtensions = []string{".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz", ".tbz2", ".tar.zst", ".tzst", ".tar.lz4", ".stargz", ".esgz"}

// blobName is a registry blob's name, its digest: the layers of container
// images, eStargz ones among them, are fetched by it.
var blobName = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// isTarName reports whether name is a tar archive's, by its extension, or
// a registry blob's.
func isTarName(name string) bool {
	lower := strings.ToLower(name)
	for _, e := range tarExtensions {
		if strings.HasSuffix(lower, e) {
			return true
		}
	}
	return blobName.MatchString(path.Base(name))
}

// gzipTarExtensions are the names of tars an eStargz index can be in: the
// index is a gzip member, so it is only ever at the end of a gzip stream.
var gzipTarExtensions = []string{".tar.gz", ".tgz", ".stargz", ".esgz"}

// mayHaveIndex reports whether a file of a metalink or torrent named name
// is worth asking its mirrors for an eStargz index when it is inspected: a
// gzip-compressed tar, or a registry blob. Other tars cannot have one, and
// a plain tarball in a metalink (sources, most often) should not cost its
// mirrors a request at every inspect.
func mayHaveIndex(name string) bool {
	lower := strings.ToLower(name)
	for _, e := range gzipTarExtensions {
		if strings.HasSuffix(lower, e) {
			return true
		}
	}
	return blobName.MatchString(path.Base(name))
}

// isTarURL reports whether the last segment of a URL's path is a tar's
// name, or a registry blob's (whose colon no saved file name keeps).
func isTarURL(source string) bool {
	u, err := url.Parse(source)
	return err == nil && isTarName(path.Base(u.Path))
}

// tarListing reads the eStargz index of the tar at a plain URL. A list
// that cannot be read, or a tar with no index, is said in Error.
func tarListing(ctx context.Context, source string, origin *resolve.Origin, via reach) *inspectArchive {
	out := &inspectArchive{Format: "estargz", Members: []inspectMember{}}
	src, size, err := via.plain(source, origin)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	b, err := stargz.Open(ctx, src, size)
	if err != nil {
		out.tarError(err, source, archiveSentence)
		return out
	}
	out.Listed, out.Mirrors = true, 1
	out.Requests, out.BytesRead = b.Requests(), b.BytesRead()
	out.addEntries(b)
	return out
}

// tarListingMirrors reads the eStargz index of the tar a metalink
// describes as file, from all its mirrors at once through the engine, as
// zipListingMirrors reads a ZIP's directory. source is what the user
// gave, for the sentence that suggests downloading it whole.
func tarListingMirrors(ctx context.Context, source string, file metalink.File, via reach) *inspectArchive {
	out := &inspectArchive{Format: "estargz", Members: []inspectMember{}}
	ranges, err := via.mirrors(ctx, file)
	if err != nil {
		out.Error = mirrorsSentence(err)
		return out
	}
	defer ranges.Close()
	b, err := stargz.Open(ctx, ranges, ranges.Size())
	if err != nil {
		out.tarError(err, source, mirrorsSentence)
		return out
	}
	st := ranges.Stats()
	out.Listed = true
	out.Requests, out.BytesRead, out.PieceCheck = b.Requests(), st.Bytes(), st.PieceType
	for _, m := range st.Mirrors {
		if m.Bytes > 0 {
			out.Mirrors++
		}
	}
	out.addEntries(b)
	return out
}

// torrentTarListing lists the eStargz index of the tar a torrent of one
// file holds, from its web seeds.
func torrentTarListing(ctx context.Context, source string, spec *torrent.Spec, via reach) *inspectArchive {
	f, err := webSeedArchive(spec)
	if err != nil {
		return &inspectArchive{Format: "tar", Members: []inspectMember{}, Error: err.Error()}
	}
	return tarListingMirrors(ctx, source, f, via)
}

// tarError says why a tar's members cannot be listed.
func (out *inspectArchive) tarError(err error, source string, sentence func(error) string) {
	var ni *stargz.NoIndexError
	if errors.As(err, &ni) || errors.Is(err, stargz.ErrNotStargz) {
		out.Format = "tar"
		out.Error = tarSentence(err, source)
		return
	}
	out.Error = stargzSentence(err, sentence)
}

// tarSentence is what to tell of a file named as a tar (or starting as
// one) that has no eStargz index: only the whole archive has its members.
func tarSentence(err error, source string) string {
	var ni *stargz.NoIndexError
	if errors.As(err, &ni) {
		return fmt.Sprintf("%s; braid get %s downloads it", ni.Error(), source)
	}
	return fmt.Sprintf("the file has no eStargz index at its end, and does not start as a tar or a compressed stream does: its members cannot be read one by one (braid get %s downloads the whole file)", source)
}

// stargzSentence is what to tell of an eStargz index that could not be
// read: the package's own sentence for what it knows, else sentence's.
func stargzSentence(err error, sentence func(error) string) string {
	if errors.Is(err, stargz.ErrBadIndex) || errors.Is(err, stargz.ErrTOCTooLarge) {
		return err.Error()
	}
	return sentence(err)
}

// addEntries lists b's entries.
func (out *inspectArchive) addEntries(b *stargz.Blob) {
	out.TOCDigest = b.TOCDigest
	for _, e := range b.Entries {
		out.Members = append(out.Members, inspectMember{
			Path:           e.Name,
			Size:           e.Size,
			CompressedSize: e.CompressedSize(),
			Method:         "gzip",
			MethodID:       8,
			Folder:         e.Type == stargz.TypeDir,
			Offset:         e.Offset(),
			Type:           e.Type,
			Digest:         e.Digest,
			Chunks:         len(e.Chunks),
			LinkName:       e.LinkName,
		})
	}
}

// writeStargzText prints an eStargz blob's entries for people: one line
// each but folders, with size, packed size, type, the first hex digits of
// its sha-256, and path.
func writeStargzText(pf func(string, ...any), a *inspectArchive) {
	writeArchiveSummary(pf, a, "eStargz", func(m inspectMember) bool { return m.Type == stargz.TypeFile })
	pf("%-10s table of contents %s\n", "index", inspectClean(a.TOCDigest))
	pf("    %12s %12s  %-8s %-12s  %s\n", "size", "packed", "type", "sha-256", "path")
	for _, m := range a.Members {
		if m.Folder {
			continue
		}
		typ, note := "file", ""
		switch m.Type {
		case stargz.TypeFile:
		case stargz.TypeSymlink:
			typ, note = "symlink", " -> "+inspectClean(m.LinkName)
		case stargz.TypeHardlink:
			typ, note = "link", " = "+inspectClean(m.LinkName)
		default:
			typ = m.Type
		}
		sum := strings.TrimPrefix(m.Digest, "sha256:")
		if len(sum) > 12 {
			sum = sum[:12]
		}
		pf("    %12d %12d  %-8s %-12s  %s%s\n", m.Size, m.CompressedSize, typ, inspectClean(sum), inspectClean(m.Path), note)
	}
}
