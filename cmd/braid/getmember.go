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
	"braid/engine/torrent"
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

// memberCheck names the check every extracted member passes.
const memberCheck = "CRC-32"

// getMembers fetches the members o names out of the ZIP archive SOURCE
// into -d: the archive's directory from its end, then each member's local
// header and compressed bytes by range, inflated as they arrive and
// checked against the CRC-32 the directory gives. It returns get's exit
// status.
//
// A plain http(s) URL is read from that one URL (its redirects followed).
// A metalink (a .meta4 or .metalink path or URL) of one file, or a
// .torrent of one file with web seeds, is read through the engine from
// all its mirrors at once (engine.Ranges): where it has piece hashes
// (a torrent always does), the pieces that cover the directory and the
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
	var a *ziprange.Archive
	var ranges *engine.Ranges
	if isMetalinkSource(source) || torrent.IsSource(source) {
		req, err := memberRequest(ctx, o, source)
		if err != nil {
			return fail("%v", err)
		}
		ranges, err = o.client.OpenRanges(ctx, req)
		if err != nil {
			return fail("%s: %s", source, mirrorsSentence(err))
		}
		defer ranges.Close()
		if a, err = ziprange.Open(ctx, ranges, ranges.Size()); err != nil {
			return fail("%s: %s", source, mirrorsSentence(err))
		}
	} else {
		src, err := transport.NewHTTP(source, transport.Options{Size: -1, Network: o.client.Network, Session: o.net})
		if errors.Is(err, transport.ErrUnsupportedScheme) {
			return fail("%s: --member reads a ZIP archive from its http or https URL, or from a metalink of one", source)
		}
		if err != nil {
			return fail("%v", err)
		}
		if a, err = ziprange.Open(ctx, src, -1); err != nil {
			return fail("%s: %s", source, archiveSentence(err))
		}
	}
	code := 0
	for _, name := range o.members {
		if !getMember(ctx, o, a, ranges, source, name) {
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

// memberRequest is the engine request for the archive a metalink of one
// file, or a torrent of one file with web seeds, describes.
func memberRequest(ctx context.Context, o *getOptions, source string) (*engine.Request, error) {
	hc := o.client.HTTPClient()
	if o.net != nil {
		hc = o.net.Client(hc)
	}
	req := &engine.Request{Net: o.net, Locations: o.prefs.Locations, RetryFor: o.retryFor}
	if torrent.IsSource(source) {
		f, err := torrentArchive(ctx, source, hc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		req.File = f
		return req, nil
	}
	doc, origin, err := runner.ResolveSource(ctx, source, hc)
	if err != nil {
		return nil, err
	}
	if len(doc.Files) != 1 {
		return nil, fmt.Errorf("%s lists %d files: --member reads the members of a metalink of one ZIP archive", source, len(doc.Files))
	}
	req.File, req.OriginETag, req.Referer = doc.Files[0], origin.ETag, origin.Referer
	return req, nil
}

// isMetalinkSource reports whether source names a metalink: a local path
// or file: URL (a torrent's excepted), or an http(s) URL of a .meta4 or
// .metalink file.
func isMetalinkSource(source string) bool {
	if torrent.IsSource(source) {
		return false
	}
	u, err := url.Parse(source)
	if err != nil || len(u.Scheme) <= 1 || strings.EqualFold(u.Scheme, "file") {
		return true // a path, or a drive letter
	}
	ext := strings.ToLower(path.Ext(u.Path))
	return ext == ".meta4" || ext == ".metalink"
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
		fmt.Fprintf(w, "braid get: %s: %d %s failed %s %s hash; %s\n", m.URL, m.Strikes,
			plural(m.Strikes, "piece it sent", "pieces it sent"), plural(m.Strikes, "its", "their"), st.PieceType, fate)
	}
}

// rangeChecks names what checked a member read through ranges: its
// CRC-32, and the piece hashes when the metalink has them.
func rangeChecks(ranges *engine.Ranges) string {
	if ranges == nil {
		return memberCheck
	}
	if t := ranges.Stats().PieceType; t != "" {
		return memberCheck + " and " + t + " pieces"
	}
	return memberCheck
}

// wireBytes is what the archive's mirrors have sent so far: the bytes the
// engine received, or the one source's.
func wireBytes(a *ziprange.Archive, ranges *engine.Ranges) int64 {
	if ranges != nil {
		return ranges.Stats().Bytes()
	}
	return a.BytesRead()
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
func getMember(ctx context.Context, o *getOptions, a *ziprange.Archive, ranges *engine.Ranges, source, name string) bool {
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
	m := a.Member(name)
	if m == nil {
		return failed("the archive has no member of that name (braid inspect lists them)")
	}
	var before engine.RangeStats
	if ranges != nil {
		before = ranges.Stats()
	}
	start, read := time.Now(), wireBytes(a, ranges)
	got, err := a.Extract(ctx, m, o.dir)
	res.Bytes, res.Fetched, res.Seconds = m.Size, wireBytes(a, ranges)-read, time.Since(start).Seconds()
	check := rangeChecks(ranges)
	var me *ziprange.MethodError
	var ne *metalink.NameError
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return failed("interrupted; run the same braid get again to fetch it")
	case errors.Is(err, ziprange.ErrNoRanges) && ranges != nil:
		return failed(errMirrorsNoRanges.Error())
	case errors.Is(err, ziprange.ErrEncrypted), errors.Is(err, ziprange.ErrFolder), errors.As(err, &me), errors.Is(err, ziprange.ErrNoRanges):
		return failed(err.Error())
	case errors.As(err, &ne):
		return failed("its name is refused, and nothing is written for it: " + ne.Rule)
	case errors.Is(err, ziprange.ErrChecksum):
		return failed(fmt.Sprintf("failed: %v; nothing is kept", err))
	case err != nil:
		return failed(fmt.Sprintf("it could not be fetched: %v", err))
	}
	res.OK, res.Outcome, res.VerifiedBy = true, "verified", check
	if got.Name != name {
		res.SavedAs = got.Name
	}
	if got.Existing {
		res.Note = "already there with the member's CRC-32; nothing fetched"
	}
	if o.json {
		writeJSON(o.stdout, res)
		return true
	}
	where := ""
	if res.SavedAs != "" {
		where = ", saved as " + filepath.Join(o.dir, filepath.FromSlash(got.Name)) + " (another file has its name)"
	}
	if got.Existing {
		fmt.Fprintf(o.stdout, "%s: done, verified (%s): %s\n", name, check, res.Note)
		return true
	}
	from := ""
	if ranges != nil {
		n := mirrorsSince(before, ranges.Stats())
		from = fmt.Sprintf(" from %d %s", n, plural(n, "mirror", "mirrors"))
	}
	cost := fmt.Sprintf("%s from %s of the archive%s in %s", byteText(m.Size), byteText(res.Fetched), from, durationText(time.Since(start)))
	if res.Fetched == 0 {
		cost = byteText(m.Size) + ", read with the archive's list"
	}
	fmt.Fprintf(o.stdout, "%s: done, verified (%s)%s (%s)\n", name, check, where, cost)
	return true
}
