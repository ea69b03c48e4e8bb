package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/transport"
	"braid/engine/ziprange"
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

// getMembers fetches the members o names out of the ZIP archive at the
// one SOURCE into -d: the archive's directory from its end, then each
// member's local header and compressed bytes by range, inflated as they
// arrive and checked against the CRC-32 the directory gives. It reads
// from the one URL given (its redirects followed), through get's proxy,
// logins, cookies and headers. It returns get's exit status.
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
	src, err := transport.NewHTTP(source, transport.Options{Size: -1, Network: o.client.Network, Session: o.net})
	if errors.Is(err, transport.ErrUnsupportedScheme) {
		return fail("%s: --member reads a ZIP archive from its http or https URL", source)
	}
	if err != nil {
		return fail("%v", err)
	}
	a, err := ziprange.Open(ctx, src, -1)
	if err != nil {
		return fail("%s: %s", source, archiveSentence(err))
	}
	code := 0
	for _, name := range o.members {
		if !getMember(ctx, o, a, source, name) {
			code = 1
		}
		if ctx.Err() != nil {
			return 1
		}
	}
	return code
}

// getMember fetches one member and prints its outcome; it reports
// whether the member is done.
func getMember(ctx context.Context, o *getOptions, a *ziprange.Archive, source, name string) bool {
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
	start, read := time.Now(), a.BytesRead()
	got, err := a.Extract(ctx, m, o.dir)
	res.Bytes, res.Fetched, res.Seconds = m.Size, a.BytesRead()-read, time.Since(start).Seconds()
	var me *ziprange.MethodError
	var ne *metalink.NameError
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return failed("interrupted; run the same braid get again to fetch it")
	case errors.Is(err, ziprange.ErrEncrypted), errors.Is(err, ziprange.ErrFolder), errors.As(err, &me), errors.Is(err, ziprange.ErrNoRanges):
		return failed(err.Error())
	case errors.As(err, &ne):
		return failed("its name is refused, and nothing is written for it: " + ne.Rule)
	case errors.Is(err, ziprange.ErrChecksum):
		return failed(fmt.Sprintf("failed: %v; nothing is kept", err))
	case err != nil:
		return failed(fmt.Sprintf("it could not be fetched: %v", err))
	}
	res.OK, res.Outcome, res.VerifiedBy = true, "verified", memberCheck
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
		fmt.Fprintf(o.stdout, "%s: done, verified (%s): %s\n", name, memberCheck, res.Note)
		return true
	}
	cost := fmt.Sprintf("%s from %s of the archive in %s", byteText(m.Size), byteText(res.Fetched), durationText(time.Since(start)))
	if res.Fetched == 0 {
		cost = byteText(m.Size) + ", read with the archive's list"
	}
	fmt.Fprintf(o.stdout, "%s: done, verified (%s)%s (%s)\n", name, memberCheck, where, cost)
	return true
}
