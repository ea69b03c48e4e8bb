package queue

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A FileChange is one thing kept of a job's file that SetFile records:
// what a check found of its bytes (Unverified, Mismatched, VerifiedBy),
// its priority (High), what its signature check found (Signed).
type FileChange struct {
	what string // what is recorded, for the error
	set  string // the SQL assignment
	args []any
}

// SetFile records changes of file name of job id in one statement;
// ErrNotFound when the job has no such file.
func (q *Queue) SetFile(id int64, name string, changes ...FileChange) error {
	if len(changes) == 0 {
		return nil
	}
	var what, set []string
	var args []any
	for _, c := range changes {
		what, set, args = append(what, c.what), append(set, c.set), append(args, c.args...)
	}
	return q.exec(fmt.Sprintf("job %d file %s: %s", id, name, strings.Join(what, ", ")),
		`UPDATE files SET `+strings.Join(set, ", ")+` WHERE job = ? AND name = ?`, append(args, id, name)...)
}

// What a check (a download's end, a verify, a repair) found of a file's
// bytes at its name. A file verified or unverified no longer has a
// mismatch, and a mismatched one is not verified.
var (
	// Unverified: nothing is proven of the file, and it is not known bad
	// either (verified once, but gone since: it is fetched again).
	Unverified = FileChange{what: "mark not verified", set: "verified = 0, mismatch = 0, verified_by = ''"}
	// Mismatched: its bytes did not match its whole-file hash; it needs a
	// repair (Job.Mismatch, File.Mismatch).
	Mismatched = FileChange{what: "mark checksum mismatch", set: "verified = 0, mismatch = 1"}
)

// SavedAs records the name a file's download is saved under (its .part
// beside it while it downloads), when another file had its name: the
// next run resumes it there.
func SavedAs(name string) FileChange {
	return FileChange{what: "record name on disk", set: "saved_as = ?", args: []any{name}}
}

// VerifiedBy: the file is proven at its name by the hash by ("sha-256",
// "sha-1 pieces", as engine.RepairResult.VerifiedBy names it; "" when
// none was published).
func VerifiedBy(by string) FileChange {
	return FileChange{what: "mark verified", set: "verified = 1, mismatch = 0, verified_by = ?", args: []any{by}}
}

// High marks a torrent's file as fetched before the job's other files
// (on) or like them (off), for the job's runs from now on (File.High).
func High(on bool) FileChange {
	return FileChange{what: "priority", set: "high = ?", args: []any{on}}
}

// Signed records what checking the file's signature found, for `braid
// queue list` and the window (File.Signature); a zero Signature clears
// it.
func Signed(s Signature) FileChange {
	val := ""
	if s != (Signature{}) {
		b, _ := json.Marshal(s) // strings only: it always marshals
		val = string(b)
	}
	return FileChange{what: "record the signature", set: "signature = ?", args: []any{val}}
}
