package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	sourcekind "braid/engine/source"
	"braid/engine/stargz"
	"braid/engine/transport"
	"braid/engine/ziprange"
	"braid/runner"
)

// memberList is the repeatable --member flag.
type memberList []string

func (m *memberList) String() string { return fmt.Sprint(len(*m), " members") }

func (m *memberList) Set(v string) error {
	if v == "" {
		return errors.New("give the member's path inside the archive, as braid inspect lists it")
	}
	*m = append(*m, v)
	return nil
}

// memberCheck names the check every extracted ZIP member passes.
const memberCheck = "CRC-32"

// getMembers fetches the members o names out of the archive SOURCE into
// -d, by range, each checked, and returns get's exit status. The archive
// is a ZIP (its directory from its end, then each member's local header
// and compressed bytes, inflated as they arrive and checked against the
// CRC-32 the directory gives), or a tar with an eStargz index (its footer
// and table of contents from its end, then each file's own gzip chunks,
// checked against the sha-256 digests the table gives). A tar without an
// index gets a sentence: only the whole archive has its members.
//
// A plain http(s) URL is read from that one URL (its redirects followed).
// A metalink (a .meta4 or .metalink path or URL) of one file, or a
// .torrent of one file with web seeds, is read through the engine from
// all its mirrors at once (engine.Ranges): where it has piece hashes
// (a torrent always does), the pieces that cover the index and the
// member are fetched whole and checked too, and a mirror that sends a bad
// piece is struck and dropped as in a download. Either way get's proxy,
// logins, cookies and headers apply.
//
// A member is fetched whole or not at all; it is not a queue job, so an
// interrupted run starts it again.
func getMembers(ctx context.Context, o *getOptions) int {
	source := o.sources[0]
	fail := func(format string, args ...any) int {
		msg := fmt.Sprintf(format, args...)
		if o.json {
			writeJSON(o.stdout, jsonResult{Type: "result", Source: source, Outcome: engine.OutcomeFailed.String(), Error: msg})
		} else {
			fmt.Fprintf(o.stderr, "braid get: %s\n", msg)
		}
		return 1
	}
	var src transport.Source
	var ranges *engine.Ranges
	var name string // the archive's file name, which says what it should be
	size := int64(-1)
	sentence := archiveSentence
	// A document (a metalink or torrent, or any local file, read as a
	// metalink) names the archive's mirrors; a plain link is the archive.
	if k := sourcekind.Of(source).Kind(); k != sourcekind.Link && k != sourcekind.None {
		req, err := memberRequest(ctx, o, source)
		if err != nil {
			return fail("%v", err)
		}
		ranges, err = o.client.OpenRanges(ctx, req)
		if err != nil {
			return fail("%s: %s", source, mirrorsSentence(err))
		}
		defer ranges.Close()
		src, size, name, sentence = ranges, ranges.Size(), req.File.Name, mirrorsSentence
	} else {
		h, err := transport.NewHTTP(source, transport.Options{Size: -1, Network: o.client.Network, Session: o.net})
		if errors.Is(err, transport.ErrUnsupportedScheme) {
			return fail("%s: --member reads an archive (a ZIP, or a tar with an eStargz index) from its http or https URL, or from a metalink of one", source)
		}
		if err != nil {
			return fail("%v", err)
		}
		src = h
		if u, err := url.Parse(source); err == nil {
			name = path.Base(u.Path)
		}
	}
	// The name says which to read first: a ZIP's directory, or a tar's
	// eStargz index (both at the end). A file named as neither is read
	// as a ZIP, as --member always did, then as a tar.
	var ar memberArchive
	var zipErr error
	if !isTarName(name) {
		a, err := ziprange.Open(ctx, src, size)
		if err == nil {
			ar = zipMembers{a: a}
		} else if isZipName(name) || !errors.Is(err, ziprange.ErrNotZip) {
			return fail("%s: %s", source, sentence(err))
		}
		zipErr = err
	}
	if ar == nil {
		b, err := stargz.Open(ctx, src, size)
		var ni *stargz.NoIndexError
		switch {
		case err == nil:
			ar = stargzMembers{b: b}
		case errors.As(err, &ni) && (ni.Format == "tar" || ni.Format == "tar.gz" || isTarName(name)),
			errors.Is(err, stargz.ErrNotStargz) && isTarName(name):
			return fail("%s: %s", source, tarSentence(err, source))
		case zipErr != nil && (errors.As(err, &ni) || errors.Is(err, stargz.ErrNotStargz)):
			return fail("%s: %s", source, sentence(zipErr))
		default:
			return fail("%s: %s", source, stargzSentence(err, sentence))
		}
	}
	code := 0
	for _, name := range o.members {
		if !getMember(ctx, o, ar, ranges, source, name) {
			code = 1
		}
		if ctx.Err() != nil {
			return 1
		}
	}
	if ranges != nil && !o.json {
		tellStruck(o.stderr, ranges.Stats())
	}
	return code
}

// memberArchive is an archive get reads members of: a ZIP, or an
// eStargz blob.
type memberArchive interface {
	// bytesRead is what the archive's requests have read so far.
	bytesRead() int64
	// extract writes the member name into dir; errNoMember when the
	// archive has none of that name.
	extract(ctx context.Context, name, dir string) (memberGot, error)
	// refusal is the sentence for an error of the archive's own kinds.
	refusal(err error) (string, bool)
}

// memberGot is what extract wrote.
type memberGot struct {
	name     string // where, relative to the folder: the member's or a numbered alternative
	size     int64
	existing bool   // a file with the member's bytes was there already
	check    string // what checked it: "CRC-32", "sha-256"
}

// errNoMember: the archive has no member of the name asked for.
var errNoMember = errors.New("the archive has no member of that name (braid inspect lists them)")

// zipMembers reads a ZIP archive's members.
type zipMembers struct{ a *ziprange.Archive }

func (z zipMembers) bytesRead() int64 { return z.a.BytesRead() }

func (z zipMembers) extract(ctx context.Context, name, dir string) (memberGot, error) {
	m := z.a.Member(name)
	if m == nil {
		return memberGot{}, errNoMember
	}
	got, err := z.a.Extract(ctx, m, dir)
	return memberGot{name: got.Name, size: m.Size, existing: got.Existing, check: memberCheck}, err
}

func (z zipMembers) refusal(err error) (string, bool) {
	var me *ziprange.MethodError
	switch {
	case errors.Is(err, ziprange.ErrEncrypted), errors.Is(err, ziprange.ErrFolder), errors.As(err, &me):
		return err.Error(), true
	case errors.Is(err, ziprange.ErrChecksum):
		return fmt.Sprintf("failed: %v; nothing is kept", err), true
	}
	return "", false
}

// stargzMembers reads an eStargz blob's files.
type stargzMembers struct{ b *stargz.Blob }

func (s stargzMembers) bytesRead() int64 { return s.b.BytesRead() }

func (s stargzMembers) extract(ctx context.Context, name, dir string) (memberGot, error) {
	e := s.b.Entry(name)
	if e == nil {
		return memberGot{}, errNoMember
	}
	got, err := s.b.Extract(ctx, e, dir)
	return memberGot{name: got.Name, size: got.Size, existing: got.Existing, check: stargzCheck(s.b, e)}, err
}

func (s stargzMembers) refusal(err error) (string, bool) {
	var nf *stargz.NotFileError
	var de *stargz.DigestError
	switch {
	case errors.Is(err, stargz.ErrFolder), errors.As(err, &nf), errors.As(err, &de), errors.Is(err, stargz.ErrNoDigest), errors.Is(err, stargz.ErrBadIndex):
		return err.Error(), true
	case errors.Is(err, stargz.ErrDigest):
		return fmt.Sprintf("failed: %v; nothing is kept", err), true
	}
	return "", false
}

// stargzCheck names what checks an eStargz file's bytes: the digest the
// table of contents gives for the whole file ("sha-256"), or for each of
// its chunks when it gives none for the whole.
func stargzCheck(b *stargz.Blob, e *stargz.Entry) string {
	if e.Type == stargz.TypeHardlink {
		if t := b.Entry(e.LinkName); t != nil {
			e = t
		}
	}
	d := e.Digest
	if d == "" && len(e.Chunks) > 0 {
		return digestName(e.Chunks[0].Digest) + " of each chunk"
	}
	return digestName(d)
}

// digestName names a digest's algorithm as metalinks do: "sha-256".
func digestName(d string) string {
	alg, _, _ := strings.Cut(d, ":")
	switch alg {
	case "sha256":
		return "sha-256"
	case "sha512":
		return "sha-512"
	case "":
		return "sha-256" // an empty file: nothing to check but its size
	}
	return alg
}

// memberRequest is the engine request for the archive a metalink of one
// file, or a torrent of one file with web seeds, describes.
func memberRequest(ctx context.Context, o *getOptions, source string) (*engine.Request, error) {
	ro := runner.ReadThrough(&o.client, o.net)
	req := &engine.Request{Net: o.net, Locations: o.prefs.Locations, RetryFor: o.retryFor}
	if sourcekind.Of(source).IsTorrent() {
		f, err := torrentArchive(ctx, source, ro.HTTPClient)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		req.File = f
		return req, nil
	}
	doc, origin, err := runner.ResolveSource(ctx, source, ro)
	if err != nil {
		return nil, err
	}
	if len(doc.Files) != 1 {
		return nil, fmt.Errorf("%s lists %d files: --member reads the members of a metalink of one archive (a ZIP, or a tar with an eStargz index)", source, len(doc.Files))
	}
	req.File, req.OriginETag, req.Referer = doc.Files[0], origin.ETag, origin.Referer
	return req, nil
}

// tellStruck tells of the mirrors whose pieces failed their hash.
func tellStruck(w io.Writer, st engine.RangeStats) {
	for _, m := range st.Mirrors {
		if m.Strikes == 0 {
			continue
		}
		fate := "the pieces came from another mirror"
		if m.Dropped != "" {
			fate += "; it was dropped"
		}
		fmt.Fprintf(w, "braid get: %s: %s; %s\n", m.URL, failedPieces(m.Strikes, st.PieceType+" hash"), fate)
	}
}

// rangeChecks names what checked a member read through ranges: its own
// check, and the piece hashes when the metalink has them.
func rangeChecks(check string, ranges *engine.Ranges) string {
	if ranges == nil {
		return check
	}
	if t := ranges.Stats().PieceType; t != "" {
		return check + " and " + t + " pieces"
	}
	return check
}

// wireBytes is what the archive's mirrors have sent so far: the bytes the
// engine received, or the one source's.
func wireBytes(a memberArchive, ranges *engine.Ranges) int64 {
	if ranges != nil {
		return ranges.Stats().Bytes()
	}
	return a.bytesRead()
}

// mirrorsSince counts the mirrors that delivered good pieces since before.
func mirrorsSince(before, after engine.RangeStats) int {
	n := 0
	for i, m := range after.Mirrors {
		if i < len(before.Mirrors) && m.Pieces > before.Mirrors[i].Pieces {
			n++
		}
	}
	return n
}

// getMember fetches one member and prints its outcome; it reports
// whether the member is done.
func getMember(ctx context.Context, o *getOptions, a memberArchive, ranges *engine.Ranges, source, name string) bool {
	res := jsonResult{Type: "result", Source: source, File: name}
	failed := func(msg string) bool {
		res.Outcome, res.Error = engine.OutcomeFailed.String(), msg
		if o.json {
			writeJSON(o.stdout, res)
		} else {
			fmt.Fprintf(o.stderr, "braid get: %s: %s\n", name, msg)
		}
		return false
	}
	var before engine.RangeStats
	if ranges != nil {
		before = ranges.Stats()
	}
	start, read := time.Now(), wireBytes(a, ranges)
	got, err := a.extract(ctx, name, o.dir)
	res.Bytes, res.Fetched, res.Seconds = got.size, wireBytes(a, ranges)-read, time.Since(start).Seconds()
	check := rangeChecks(got.check, ranges)
	var ne *metalink.NameError
	refusal, refused := a.refusal(err)
	switch {
	case errors.Is(err, errNoMember):
		return failed(err.Error())
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return failed("interrupted; run the same braid get again to fetch it")
	case errors.Is(err, ziprange.ErrNoRanges) && ranges != nil:
		return failed(errMirrorsNoRanges.Error())
	case errors.Is(err, ziprange.ErrNoRanges):
		return failed(err.Error())
	case errors.As(err, &ne):
		return failed("its name is refused, and nothing is written for it: " + ne.Rule)
	case refused:
		return failed(refusal)
	case err != nil:
		return failed(fmt.Sprintf("it could not be fetched: %v", err))
	}
	res.OK, res.Outcome, res.VerifiedBy = true, "verified", check
	if got.name != name {
		res.SavedAs = got.name
	}
	if got.existing {
		res.Note = fmt.Sprintf("already there with the member's %s; nothing fetched", got.check)
	}
	if o.json {
		writeJSON(o.stdout, res)
		return true
	}
	where := ""
	if res.SavedAs != "" {
		where = ", saved as " + filepath.Join(o.dir, filepath.FromSlash(got.name)) + " (another file has its name)"
	}
	if got.existing {
		fmt.Fprintf(o.stdout, "%s: done, verified (%s): %s\n", name, check, res.Note)
		return true
	}
	from := ""
	if ranges != nil {
		n := mirrorsSince(before, ranges.Stats())
		from = fmt.Sprintf(" from %d %s", n, plural(n, "mirror", "mirrors"))
	}
	cost := fmt.Sprintf("%s from %s of the archive%s in %s", byteText(got.size), byteText(res.Fetched), from, durationText(time.Since(start)))
	switch {
	case got.size == 0:
		cost = "empty: nothing to fetch"
	case res.Fetched == 0:
		cost = byteText(got.size) + ", read with the archive's list"
	}
	fmt.Fprintf(o.stdout, "%s: done, verified (%s)%s (%s)\n", name, check, where, cost)
	return true
}
