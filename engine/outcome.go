package engine

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
)

// Outcome is what can be said of a file whose download ended: one of three
// things, and nothing more than what was checked.
type Outcome uint8

const (
	// OutcomeFailed: the file is not at its name (the download failed or
	// was interrupted; see Snapshot.Err).
	OutcomeFailed Outcome = iota
	// OutcomeVerified: the file is at its name and a hash proved every byte
	// (Snapshot.VerifiedBy says which).
	OutcomeVerified
	// OutcomeNotVerified: the file is at its name, complete, but nothing was
	// published to check it against: its bytes are what the mirrors sent.
	OutcomeNotVerified
)

var outcomeNames = [...]string{"failed", "verified", "not verified"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// Outcome reports how the download ended; OutcomeFailed while it runs.
func (s *Snapshot) Outcome() Outcome {
	switch {
	case s.State != StateDone:
		return OutcomeFailed
	case s.VerifiedBy != "":
		return OutcomeVerified
	default:
		return OutcomeNotVerified
	}
}

// OutcomeText says in words what was checked: "verified (sha-256)",
// "not verified (no hash published)" or "failed". It is the one wording
// the command line, the queue and the window use.
func OutcomeText(o Outcome, verifiedBy string) string {
	switch o {
	case OutcomeVerified:
		return "verified (" + ProofWords(verifiedBy) + ")"
	case OutcomeNotVerified:
		return "not verified (no hash published)"
	}
	return "failed"
}

// Proof names, in a user's words, the hash that proved a file, from the
// engine's VerifiedBy ("sha-256", "sha-256 pieces", "sha-1 pieces of the
// torrent", "sha-1 pieces of the torrent and the metalink's hash"). It is
// the one mapping braid get, the queue list, the window's row, its Files
// tab and its Info share; the window translates each of these words.
const (
	// ByTorrent is the engine's VerifiedBy of a torrent's files.
	ByTorrent = "sha-1 pieces of the torrent"

	ProofTorrent     = "BitTorrent piece hashes"
	ProofTorrentPlus = "BitTorrent piece hashes and the published hash"
	ProofPieces      = " piece hashes" // after a hash type: "sha-256 piece hashes"
)

// ProofWords turns the engine's VerifiedBy into the words of Proof:
// "sha-256" stays, "sha-256 pieces" is "sha-256 piece hashes", a
// torrent's is ProofTorrent (or ProofTorrentPlus when a whole-file hash
// was checked too).
func ProofWords(by string) string {
	switch {
	case by == ByTorrent:
		return ProofTorrent
	case strings.HasPrefix(by, ByTorrent+" and "):
		return ProofTorrentPlus
	case strings.HasSuffix(by, " pieces"):
		return strings.TrimSuffix(by, " pieces") + ProofPieces
	}
	return by
}

// claims are the final names that downloads of this process are writing
// or about to write, as absolute paths, so that two downloads that want
// the same name at once do not share it: the second takes a free name.
var claims = struct {
	sync.Mutex
	names map[string]bool
}{names: map[string]bool{}}

func claimKey(dir, name string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return filepath.Join(abs, filepath.FromSlash(name))
}

// claim takes name in dir for this process, reporting false when another
// download has it.
func claim(dir, name string) bool {
	k := claimKey(dir, name)
	claims.Lock()
	defer claims.Unlock()
	if claims.names[k] {
		return false
	}
	claims.names[k] = true
	return true
}

func release(dir, name string) {
	k := claimKey(dir, name)
	claims.Lock()
	delete(claims.names, k)
	claims.Unlock()
}

// ErrNoFreeName: every alternative name tried was taken.
var ErrNoFreeName = errors.New("no free name left for the file")

// setVerifiedBy records, once the file checked out, which hash proved it.
func (d *download) setVerifiedBy() {
	d.mu.Lock()
	defer d.mu.Unlock()
	by := d.whole.Type
	if (by == "" || d.byPieces) && d.plan.Verifiable() {
		by = d.plan.Type + " pieces"
	}
	d.verifiedBy = by
}
