package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/explain"
	"braid/engine/metalink"
	"braid/engine/resolve"
	"braid/engine/signature"
	"braid/engine/torrent"
	"braid/engine/transport"
	"braid/runner"
)

// The two faces of `braid get`'s output, each a runner.Observer: text for
// a person (a progress line redrawn on a terminal, or log lines) and JSON
// lines for a script (--json; the field names are stable).

var (
	_ runner.Observer = (*textPrinter)(nil)
	_ runner.Observer = (*jsonPrinter)(nil)
)

// newPrinter is the printer of get's output: JSON lines, text on a
// terminal, or a plain log.
func newPrinter(o *getOptions) runner.Observer {
	mu := &sync.Mutex{} // stdout and stderr often share one terminal
	out, errOut := &lockedWriter{mu: mu, w: o.stdout}, &lockedWriter{mu: mu, w: o.stderr}
	if o.json {
		return &jsonPrinter{stdout: out, stderr: errOut}
	}
	p := &textPrinter{stdout: out, stderr: errOut, tty: o.tty, requireSignature: o.requireSignature,
		waiting: map[*runner.FileRun]bool{}, announced: map[*runner.FileRun]bool{}}
	return p
}

// lockedWriter writes each Write whole, for downloads side by side.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// textPrinter is get's output for a person. On a terminal one progress
// line is redrawn in place; while several downloads run it shows the
// oldest until it ends. Elsewhere (a log) each file gets a line when it
// starts, when it begins to wait for the network, and when it ends.
type textPrinter struct {
	stdout, stderr   io.Writer
	tty              bool
	requireSignature bool

	mu        sync.Mutex
	shown     []*runner.FileRun        // downloads running, oldest first (tty)
	waiting   map[*runner.FileRun]bool // a log said the download waits
	announced map[*runner.FileRun]bool // a log named the torrent's size
	parity    map[[2]string]bool       // source and file whose parity set was told
}

func (p *textPrinter) Interval() time.Duration {
	if p.tty {
		return 200 * time.Millisecond
	}
	return 500 * time.Millisecond
}

func (p *textPrinter) Start(f *runner.FileRun) {
	p.mu.Lock()
	p.shown = append(p.shown, f)
	p.mu.Unlock()
	if !p.tty && !f.Torrent {
		fmt.Fprintf(p.stdout, "%s: downloading %s from %d %s\n", f.Name, sizeOrUnknown(f.Size), f.Mirrors, plural(f.Mirrors, "mirror", "mirrors"))
	}
}

// shows reports whether f is the download the progress line shows.
func (p *textPrinter) shows(f *runner.FileRun) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.shown) > 0 && p.shown[0] == f
}

func (p *textPrinter) Progress(f *runner.FileRun, pr runner.Progress) {
	switch {
	case pr.Torrent != nil && p.tty:
		fmt.Fprint(p.stdout, "\r\033[K"+torrentLine(pr.Torrent))
	case pr.Torrent != nil:
		if pr.Torrent.Phase != torrent.PhaseMetadata && p.once(p.announced, f) {
			announceTorrent(p.stdout, pr.Torrent)
		}
	case p.tty:
		if p.shows(f) {
			fmt.Fprint(p.stdout, "\r\033[K"+progressLine(pr.Snapshot))
		}
	default:
		s := pr.Snapshot
		now := s.State == engine.StateWaiting
		p.mu.Lock()
		was := p.waiting[f]
		p.waiting[f] = now
		p.mu.Unlock()
		switch {
		case now && !was && s.Held != "":
			fmt.Fprintf(p.stdout, "%s: %s\n", s.Name, s.Held)
		case now && !was:
			fmt.Fprintf(p.stdout, "%s: waiting for the network, %s\n", s.Name, tryText(s))
		}
	}
}

// once reports whether f is not in set yet, and puts it there.
func (p *textPrinter) once(set map[*runner.FileRun]bool, f *runner.FileRun) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if set[f] {
		return false
	}
	set[f] = true
	return true
}

func (p *textPrinter) Note(n runner.Note) {
	switch n.Kind {
	case runner.NoteWarning:
		fmt.Fprintf(p.stderr, "%s: warning: %s\n", n.Source, n.Message)
	case runner.NoteSelection:
		fmt.Fprintf(p.stderr, "%s: note: %s\n", n.Source, n.Message)
	case runner.NoteSkipped:
		if of, ok := metalink.ParityOf(n.File); ok && strings.HasPrefix(n.Message, "PAR2 parity for ") {
			// A parity set is one line, not one a volume.
			p.mu.Lock()
			told := p.parity[[2]string{n.Source, of}]
			if p.parity == nil {
				p.parity = map[[2]string]bool{}
			}
			p.parity[[2]string{n.Source, of}] = true
			p.mu.Unlock()
			if !told {
				fmt.Fprintf(p.stdout, "%s: has a PAR2 parity set, fetched only if no mirror has good bytes for it\n", of)
			}
			return
		}
		fmt.Fprintf(p.stdout, "%s: skipped (%s)\n", n.File, n.Message)
	case runner.NoteWaiting:
		fmt.Fprintf(p.stderr, "%s: waiting for the network, next try in %s (%s)\n", n.Source, waitText(n.Wait), waitReason(n.Err))
	case runner.NoteNews, runner.NoteTracker:
		fmt.Fprintf(p.stderr, "%s: %s\n", n.File, n.Message)
	case runner.NoteState:
		writeStateNote(p.stderr, n)
	}
}

// syncHint follows the error of a source that is a ResourceSync document:
// the command that keeps a folder a copy of it.
func syncHint(err error, source string) string {
	if !errors.Is(err, resolve.ErrResourceSync) {
		return ""
	}
	switch {
	case runtime.GOOS == "windows" && strings.ContainsAny(source, " \t"):
		source = `"` + source + `"`
	case runtime.GOOS != "windows" && strings.ContainsAny(source, " \t'\"\\$`"):
		source = "'" + strings.ReplaceAll(source, "'", `'\''`) + "'"
	}
	return "; braid sync " + source + " -d DIR keeps a folder a copy of it"
}

// loginHint follows the error of a source whose server asks for a login
// and was given none: the flags that give one.
func loginHint(err error) string {
	var le *transport.LoginError
	if !errors.As(err, &le) || le.Proxy || le.Refused {
		return ""
	}
	if strings.HasPrefix(le.Mirror, "ftp:") {
		return "; --ftp-user and --ftp-passwd-file give one"
	}
	return "; --http-user and --http-passwd-file give one"
}

// waitReason is why a source waits, in words: the kind of err, else
// its text.
func waitReason(err error) string {
	if c := explain.Of(err).Clause(); c != "" {
		return c
	}
	return err.Error()
}

// writeStateNote says what the state folder said or why it failed: the
// same words in both output formats, on stderr.
func writeStateNote(w io.Writer, n runner.Note) {
	switch {
	case n.Err == nil:
		fmt.Fprintf(w, "braid get: state: %s\n", n.Message)
	case n.File != "":
		fmt.Fprintf(w, "%s: state: %v\n", n.File, n.Err)
	case n.Source != "":
		fmt.Fprintf(w, "%s: state: %v\n", n.Source, n.Err)
	default:
		fmt.Fprintf(w, "braid get: state: %v\n", n.Err)
	}
}

// Check: get runs no check.
func (p *textPrinter) Check(runner.CheckEvent) {}

func (p *textPrinter) Signature(f *runner.FileRun, o signature.Outcome) {
	if o.Status == signature.Bad {
		return // the failure said it
	}
	fmt.Fprintf(p.stdout, "%s: %s\n", f.Name, o)
	if a := o.Advice(); a != "" && !p.requireSignature { // else the failure says it
		fmt.Fprintf(p.stdout, "%s: %s\n", f.Name, a)
	}
}

func (p *textPrinter) Result(r runner.Result) {
	s := r.Snapshot
	if s == nil {
		fmt.Fprintf(p.stderr, "braid get: %v%s%s\n", r.Err, loginHint(r.Err), syncHint(r.Err, r.Source))
		return
	}
	p.mu.Lock()
	p.shown = slices.DeleteFunc(p.shown, func(f *runner.FileRun) bool { return f == r.Run })
	p.mu.Unlock()
	if p.tty {
		fmt.Fprint(p.stdout, "\r\033[K")
	} else if r.Torrent != nil && r.Torrent.Name != "" && r.Torrent.Size >= 0 && p.once(p.announced, r.Run) {
		announceTorrent(p.stdout, r.Torrent)
	}
	out := s.Outcome()
	if s.Note != "" {
		fmt.Fprintf(p.stdout, "%s: %s\n", s.Name, s.Note)
	}
	err := r.Err
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(p.stderr, "braid get: %s: interrupted at %s of %s; run the same braid get again (same -d and --state) to resume it\n",
			s.Name, byteText(s.Bytes), sizeOrUnknown(s.Size))
	case err != nil && out != engine.OutcomeFailed:
		fmt.Fprintf(p.stderr, "braid get: %v (%s is at %s)\n", err, s.Name, s.SavedAs)
	case err != nil:
		fmt.Fprintf(p.stderr, "braid get: %v\n", err)
	default:
		fmt.Fprintf(p.stdout, "%s: done, %s%s%s (%s)\n", s.Name, engine.OutcomeText(out, s.VerifiedBy), parityText(s), savedAsText(s), transferText(s, fetchedBytes(s)))
	}
	tellStrikes(p.stderr, s.Name, s, err == nil)
}

// tellStrikes names, after who, each mirror of s that sent pieces failing
// their hash, which the file did not keep (done: every piece was fetched
// again right), and whether it was dropped for it.
func tellStrikes(w io.Writer, who string, s *engine.Snapshot, done bool) {
	for _, m := range s.Mirrors {
		if m.Strikes == 0 {
			continue
		}
		fate := ""
		if done {
			fate = " and " + plural(m.Strikes, "was", "were") + " fetched again"
		}
		if m.State == engine.MirrorDropped {
			fate += "; it was dropped"
		}
		fmt.Fprintf(w, "%s: %s: %s%s\n", who, m.URL, failedPieces(m.Strikes, "hash"), fate)
	}
}

// failedPieces says that a mirror sent n pieces failing their hash (the
// words naming it): "2 pieces it sent failed their sha-256 hash".
func failedPieces(n int, hash string) string {
	return fmt.Sprintf("%d %s failed %s %s", n, plural(n, "piece it sent", "pieces it sent"), plural(n, "its", "their"), hash)
}

// announceTorrent is the line a log gets when a torrent's file list is
// known.
func announceTorrent(w io.Writer, s *torrent.Snapshot) {
	from := "the swarm"
	if seeds := len(s.Mirrors) - 1; seeds > 0 {
		from += fmt.Sprintf(" and %d %s", seeds, plural(seeds, "web seed", "web seeds"))
	}
	fmt.Fprintf(w, "%s: downloading %s from %s\n", s.Name, sizeOrUnknown(s.Size), from)
}

// progressLine is the one-line progress of a terminal.
func progressLine(s *engine.Snapshot) string {
	pct, what := 0.0, s.State.String()
	switch {
	case s.State == engine.StateVerifying && s.Size > 0:
		pct = float64(s.Hashed) / float64(s.Size) * 100
	case s.Size > 0:
		pct = float64(s.Bytes) / float64(s.Size) * 100
	}
	active, usable := 0, 0
	for _, m := range s.Mirrors {
		if m.State == engine.MirrorActive {
			active++
		}
		if m.State != engine.MirrorDropped {
			usable++
		}
	}
	eta := "--:--"
	if s.ETA >= 0 {
		eta = durationText(s.ETA)
	}
	name := shortName(s.Name)
	switch {
	case s.Rebuilding > 0:
		return fmt.Sprintf("%s  no mirror has good bytes: rebuilding %d %s from parity  %5.1f%%", name, s.Rebuilding, plural(s.Rebuilding, "piece", "pieces"), pct)
	case s.State == engine.StateWaiting && s.Held != "":
		return fmt.Sprintf("%s  %s  %s so far", name, s.Held, byteText(s.Bytes))
	case s.State == engine.StateWaiting:
		return fmt.Sprintf("%s  waiting for the network, %s  %s so far  mirrors %d/%d",
			name, tryText(s), byteText(s.Bytes), active, usable)
	case s.Size < 0:
		return fmt.Sprintf("%s  %s %s (size unknown)  %s/s  mirrors %d/%d",
			name, s.State, byteText(s.Bytes), byteText(s.Speed), active, usable)
	}
	if s.Skipping > 0 {
		what += fmt.Sprintf(" (passing %s already on disk: the server cannot resume)", byteText(s.Skipping))
	}
	return fmt.Sprintf("%s  %s %5.1f%%  %s/s  ETA %s  mirrors %d/%d", name, what, pct, byteText(s.Speed), eta, active, usable)
}

// torrentLine is progressLine with the phase's own words ("fetching
// metadata", "seeding") and the swarm's numbers.
func torrentLine(s *torrent.Snapshot) string {
	pct := 0.0
	if s.Size > 0 {
		pct = float64(s.Bytes) / float64(s.Size) * 100
	}
	eta := "--:--"
	if s.ETA >= 0 {
		eta = durationText(s.ETA)
	}
	return fmt.Sprintf("%s  %s %5.1f%%  %s/s  ETA %s  peers %d, seeds %d  up %s  ratio %.2f",
		shortName(s.Name), s.Phase, pct, byteText(s.Speed), eta, s.Peers, s.Seeds, byteText(s.Uploaded), s.Ratio)
}

// shortName keeps the end of a long name for the progress line.
func shortName(name string) string {
	if len(name) > 40 {
		return "…" + name[len(name)-39:]
	}
	return name
}

// nextTryIn is the time until the next try of a waiting download, 0 when
// it is not waiting.
func nextTryIn(s *engine.Snapshot) time.Duration {
	if s.State != engine.StateWaiting || s.NextTry.IsZero() {
		return 0
	}
	return max(time.Until(s.NextTry), 0)
}

// tryText says when a waiting download tries again: "next try in 20 s",
// or "trying again now" while its tries are under way (connections
// open, no answer yet).
func tryText(s *engine.Snapshot) string {
	if d := nextTryIn(s); d > 0 {
		return "next try in " + waitText(d)
	}
	return "trying again now"
}

// waitText says a short wait in whole seconds, rounded up ("20 s"): a
// try due in 0.3 s is "1 s" away, not "0 s".
func waitText(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%d s", int((d+time.Second-1)/time.Second))
	}
	return durationText(d)
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
	if kept := s.Bytes - usefulBytes(s) - rebuiltBytes(s); kept > 0 {
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

// jsonPrinter is get's output for a script: one JSON object a line.
type jsonPrinter struct {
	stdout, stderr io.Writer
}

// jsonMirror and jsonProgress are the --json progress line.
type jsonMirror struct {
	URL     string `json:"url"`
	State   string `json:"state"`
	Reason  string `json:"reason,omitempty"`
	Bytes   int64  `json:"bytes"`
	Speed   int64  `json:"speed"`
	Strikes int    `json:"strikes"`
}

type jsonProgress struct {
	Type     string  `json:"type"` // "progress"
	File     string  `json:"file"`
	State    string  `json:"state"`
	Size     int64   `json:"size"`
	Bytes    int64   `json:"bytes"`
	Pieces   int     `json:"pieces"`
	Verified int     `json:"verified"`
	Speed    int64   `json:"speed"`
	ETA      float64 `json:"eta_seconds"` // -1: unknown
	// NextTry is the seconds until the next try in state "waiting".
	NextTry float64 `json:"next_try_seconds,omitempty"`
	// Held, in state "waiting", says that another program holds the file
	// open, so Braid cannot give it its name yet (Windows).
	Held string `json:"held,omitempty"`
	// Skipping is the bytes already on disk that a server which cannot
	// resume sends again before the ones the file needs.
	Skipping int64        `json:"skipping,omitempty"`
	Mirrors  []jsonMirror `json:"mirrors"`
}

// jsonTorrent is the --json progress line of a torrent: the fields of an
// HTTP download's (state in the same vocabulary, plus "fetching metadata"
// and "seeding"), then the swarm's.
type jsonTorrent struct {
	jsonProgress
	Peers    int     `json:"peers"`
	Seeds    int     `json:"seeds"`
	Uploaded int64   `json:"uploaded"`
	Ratio    float64 `json:"ratio"`
}

// jsonResult is the --json line for how one file (or a source that
// yielded none) ended. Outcome is "verified", "not verified" or
// "failed"; VerifiedBy names the hash.
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
	// Rebuilt is the pieces no mirror could send good that were rebuilt
	// from the file's PAR2 parity set.
	Rebuilt int `json:"rebuilt_from_parity,omitempty"`
}

func (p *jsonPrinter) Interval() time.Duration { return 500 * time.Millisecond }

func (p *jsonPrinter) Start(*runner.FileRun) {}

func (p *jsonPrinter) Progress(_ *runner.FileRun, pr runner.Progress) {
	if t := pr.Torrent; t != nil {
		j := jsonTorrent{jsonProgress: progressOf(&t.Snapshot), Peers: t.Peers, Seeds: t.Seeds, Uploaded: t.Uploaded, Ratio: t.Ratio}
		j.State = t.Phase.String()
		writeJSON(p.stdout, j)
		return
	}
	writeJSON(p.stdout, progressOf(pr.Snapshot))
}

// progressOf is a snapshot's --json progress line.
func progressOf(s *engine.Snapshot) jsonProgress {
	p := jsonProgress{
		Type: "progress", File: s.Name, State: s.State.String(), Size: s.Size, Bytes: s.Bytes,
		Pieces: len(s.Pieces), Verified: s.Verified, Speed: s.Speed, ETA: -1, Skipping: s.Skipping,
	}
	if s.ETA >= 0 {
		p.ETA = s.ETA.Seconds()
	}
	p.NextTry = nextTryIn(s).Seconds()
	p.Held = s.Held
	for _, m := range s.Mirrors {
		p.Mirrors = append(p.Mirrors, jsonMirror{URL: m.URL, State: m.State.String(), Reason: m.Reason, Bytes: m.Bytes, Speed: m.Speed, Strikes: m.Strikes})
	}
	return p
}

func (p *jsonPrinter) Note(n runner.Note) {
	switch n.Kind {
	case runner.NoteWaiting:
		writeJSON(p.stdout, map[string]any{"type": "waiting", "source": n.Source, "next_try_seconds": n.Wait.Seconds(), "reason": n.Err.Error()})
	case runner.NoteNews, runner.NoteTracker:
		writeJSON(p.stdout, struct {
			Type    string `json:"type"` // "notice"
			File    string `json:"file"`
			Message string `json:"message"`
		}{"notice", n.File, n.Message})
	case runner.NoteState:
		if n.Err == nil || (n.File == "" && n.Source == "") {
			writeStateNote(p.stderr, n) // the state folder's own words, as in text
		}
	}
}

// Check: get runs no check.
func (p *jsonPrinter) Check(runner.CheckEvent) {}

func (p *jsonPrinter) Signature(f *runner.FileRun, o signature.Outcome) {
	writeJSON(p.stdout, jsonSignature{Type: "signature", File: f.Name, Status: o.Status.String(),
		Fingerprint: o.Fingerprint, Signer: o.Signer, Message: o.String()})
}

func (p *jsonPrinter) Result(r runner.Result) {
	s := r.Snapshot
	if s == nil {
		writeJSON(p.stdout, jsonResult{Type: "result", Source: r.Source, File: r.File, Outcome: engine.OutcomeFailed.String(), Error: r.Err.Error()})
		return
	}
	j := jsonResult{Type: "result", Source: r.Source, File: s.Name, SavedAs: s.SavedAs, OK: r.Err == nil,
		Outcome: s.Outcome().String(), VerifiedBy: s.VerifiedBy, Note: s.Note, Bytes: s.Bytes, Fetched: fetchedBytes(s), Seconds: s.Elapsed.Seconds(), Rebuilt: s.Rebuilt}
	if r.Err != nil {
		j.Error = r.Err.Error()
	}
	writeJSON(p.stdout, j)
}

// parityText follows a file's outcome when pieces of it were rebuilt
// from its parity set: ", 3 pieces rebuilt from parity".
func parityText(s *engine.Snapshot) string {
	if s.Rebuilt == 0 {
		return ""
	}
	return fmt.Sprintf(", %d %s rebuilt from parity", s.Rebuilt, plural(s.Rebuilt, "piece", "pieces"))
}

// rebuiltBytes is the bytes of the pieces rebuilt from parity in this run.
func rebuiltBytes(s *engine.Snapshot) int64 {
	var n int64
	for i, f := range s.Filler {
		if f == engine.FilledByParity && i < len(s.Pieces) && s.Pieces[i] == engine.PieceDone {
			n += min(s.PieceLength, s.Size-int64(i)*s.PieceLength)
		}
	}
	return n
}
