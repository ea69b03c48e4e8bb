package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"braid/engine"
	"braid/engine/metalink"
)

// errNotVerified is the error of a file that was downloaded but that no
// published hash could check, under --require-hash.
var errNotVerified = errors.New("not verified: no hash is published for it (--require-hash)")

// jsonResult is the --json line for how one file (or a source that yielded
// none) ended; field names are stable for scripts. Outcome is "verified",
// "not verified" or "failed"; VerifiedBy names the hash.
type jsonResult struct {
	Type       string  `json:"type"` // "result"
	Source     string  `json:"source"`
	File       string  `json:"file"`
	SavedAs    string  `json:"saved_as,omitempty"`
	OK         bool    `json:"ok"`
	Outcome    string  `json:"outcome"`
	VerifiedBy string  `json:"verified_by,omitempty"`
	Note       string  `json:"note,omitempty"`
	Error      string  `json:"error,omitempty"`
	Bytes      int64   `json:"bytes"`
	Fetched    int64   `json:"fetched"`
	Seconds    float64 `json:"seconds"`
}

// fail reports a source or file that ended before its download started.
func (o *getOptions) fail(source, file string, err error) {
	if o.json {
		writeJSON(o.stdout, jsonResult{Type: "result", Source: source, File: file, Outcome: engine.OutcomeFailed.String(), Error: err.Error()})
		return
	}
	fmt.Fprintf(o.stderr, "braid get: %v\n", err)
}

// finished reports how one file's download ended, saying exactly what was
// checked, and returns the file's error: the download's, or errNotVerified
// for a file no hash could check when --require-hash asks for one.
func (o *getOptions) finished(source string, s *engine.Snapshot, err error) error {
	out := s.Outcome()
	if err == nil && out == engine.OutcomeNotVerified && o.requireHash {
		err = fmt.Errorf("%s: %w", s.Name, errNotVerified)
	}
	fetched := fetchedBytes(s)
	if o.json {
		r := jsonResult{Type: "result", Source: source, File: s.Name, SavedAs: s.SavedAs, OK: err == nil,
			Outcome: out.String(), VerifiedBy: s.VerifiedBy, Note: s.Note, Bytes: s.Bytes, Fetched: fetched, Seconds: s.Elapsed.Seconds()}
		if err != nil {
			r.Error = err.Error()
		}
		writeJSON(o.stdout, r)
		return err
	}
	if s.Note != "" {
		fmt.Fprintf(o.stdout, "%s: %s\n", s.Name, s.Note)
	}
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(o.stderr, "braid get: %s: interrupted at %s of %s; run the same braid get again (same -d and --state) to resume it\n",
			s.Name, byteText(s.Bytes), sizeOrUnknown(s.Size))
	case err != nil && out != engine.OutcomeFailed:
		fmt.Fprintf(o.stderr, "braid get: %v (%s is at %s)\n", err, s.Name, s.SavedAs)
	case err != nil:
		fmt.Fprintf(o.stderr, "braid get: %v\n", err)
	default:
		fmt.Fprintf(o.stdout, "%s: done, %s%s (%s)\n", s.Name, engine.OutcomeText(out, s.VerifiedBy), savedAsText(s), transferText(s, fetched))
	}
	return err
}

// savedAsText names the file on disk when it is not the file's name.
func savedAsText(s *engine.Snapshot) string {
	if s.SavedAs == "" || s.SavedAs == s.Name {
		return ""
	}
	return ", saved as " + s.SavedAs
}

// transferText says what this run fetched and how fast: the speed is over
// the bytes fetched now, not those a resume or a file already there
// supplied.
func transferText(s *engine.Snapshot, fetched int64) string {
	if !s.Created {
		return "already there, nothing fetched"
	}
	took := s.Elapsed
	text := fmt.Sprintf("%s fetched in %s", byteText(fetched), durationText(took))
	if took > 0 && fetched > 0 {
		text += fmt.Sprintf(", %s/s", byteText(int64(float64(fetched)/took.Seconds())))
	}
	if kept := s.Bytes - usefulBytes(s); kept > 0 {
		text += fmt.Sprintf("; %s were on disk from before", byteText(kept))
	}
	return text
}

// fetchedBytes is what the mirrors delivered in this run.
func fetchedBytes(s *engine.Snapshot) int64 {
	var n int64
	for _, m := range s.Mirrors {
		n += m.Bytes
	}
	return n
}

// usefulBytes is what of this run's delivery the file kept.
func usefulBytes(s *engine.Snapshot) int64 {
	var n int64
	for _, m := range s.Mirrors {
		n += m.Useful
	}
	return n
}

// givenPrefs are the --lang and --os the user gave on the command line,
// a nil list for a flag not given (see metalink.Select), an empty one for
// a flag given empty ("any").
func givenPrefs(fs *flag.FlagSet, lang, osList string) metalink.Prefs {
	var p metalink.Prefs
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "lang":
			p.Languages = append([]string{}, commaList(lang)...)
		case "os":
			p.OS = append([]string{}, commaList(osList)...)
		}
	})
	return p
}
