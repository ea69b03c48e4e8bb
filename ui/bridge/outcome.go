package bridge

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2/lang"

	"braid/engine/piece"
	"braid/queue"
)

// The window says what proved a file in the queue's words
// (queue.ProofWords, queue.Job.Checked), each translated: the row, the
// Files tab, the details header and Info all take them from here, and in
// English they are the very words of `braid queue list`.

// proofText is one of queue.ProofWords's results in the user's language.
func proofText(w string) string {
	switch w {
	case queue.ProofTorrent:
		return lang.L("BitTorrent piece hashes")
	case queue.ProofTorrentPlus:
		return lang.L("BitTorrent piece hashes and the published hash")
	}
	if t, ok := strings.CutSuffix(w, queue.ProofPieces); ok {
		return fmt.Sprintf(lang.L("%s piece hashes"), t)
	}
	return w
}

// verifiedText is "verified (sha-256)" for the proofs given, translated.
func verifiedText(proofs ...string) string {
	words := make([]string, len(proofs))
	for i, p := range proofs {
		words[i] = proofText(p)
	}
	return fmt.Sprintf(lang.L("verified (%s)"), strings.Join(words, ", "))
}

// notVerifiedText is the outcome of a complete file nothing was published
// to check.
func notVerifiedText() string { return lang.L("not verified (no hash published)") }

// checkedText is queue.Job.Checked in the user's language, and whether it
// says the job is not verified.
func checkedText(j queue.Job) (text string, unverified bool) {
	proofs, unchecked, done := j.Proofs()
	switch {
	case !done:
		return "", false
	case unchecked:
		return notVerifiedText(), true
	case len(proofs) == 0:
		return "", false
	}
	return verifiedText(proofs...), false
}

// fileOutcome is queue.File.Outcome in the user's language, for a done
// file; a file the queue marked verified before it recorded by which hash
// shows its strongest hash.
func fileOutcome(f queue.File) (text string, unverified bool) {
	switch {
	case !f.Verified:
		return "", false
	case f.VerifiedBy != "":
		return verifiedText(queue.ProofWords(f.VerifiedBy)), false
	}
	if h, ok := piece.Strongest(f.Hashes); ok {
		return verifiedText(h.Type), false
	}
	return notVerifiedText(), true
}
