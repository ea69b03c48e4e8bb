package queue

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A JobChange is one thing kept with a job, besides its state and files,
// that SetJob records: its own speed limit, whether it downloads in
// order, a notice for the user, what it does when done and how that
// went, when its document was last fetched.
type JobChange struct {
	what string // what is recorded, for the error
	set  string // the SQL assignment
	args []any
	err  error // a change that cannot be recorded
}

// SetJob records changes of job id in one statement; ErrNotFound when
// there is no such job. A change that cannot be recorded (a command
// that cannot be read) records none of them.
func (q *Queue) SetJob(id int64, changes ...JobChange) error {
	if len(changes) == 0 {
		return nil
	}
	var what, set []string
	var args []any
	for _, c := range changes {
		if c.err != nil {
			return fmt.Errorf("job %d: set %s: %w", id, c.what, c.err)
		}
		what, set, args = append(what, c.what), append(set, c.set), append(args, c.args...)
	}
	return q.exec(fmt.Sprintf("job %d: set %s", id, strings.Join(what, ", ")),
		`UPDATE jobs SET `+strings.Join(set, ", ")+` WHERE id = ?`, append(args, id)...)
}

// Limit is job id's own download limit in bytes per second, on top of the
// global one (Settings' SpeedLimit, or the schedule's alternative): its
// downloads, HTTP, FTP or BitTorrent, get no more than the lower of the
// two. 0 (or less) removes it. It is kept across restarts (Job.Limit),
// and a runner follows a change while the job runs (Limits).
func Limit(bytesPerSec int64) JobChange {
	return JobChange{what: "speed limit", set: "speed_limit = ?", args: []any{max(bytesPerSec, 0)}}
}

// InOrder sets whether the job has its files fetched from the front
// (engine.Request's and torrent.Request's InOrder), to be watched or read
// while they arrive (Job.InOrder). A change reaches a running job when it
// next starts a file (or is paused and resumed).
func InOrder(on bool) JobChange {
	return JobChange{what: "download in order", set: "in_order = ?", args: []any{on}}
}

// Notice is something the user should hear about the job (a new version
// found at its origin), shown by `braid queue list` and the window until
// the next notice (Job.Notice).
func Notice(text string) JobChange {
	return JobChange{what: "notice", set: "notice = ?", args: []any{text}}
}

// Refreshed records that the job's document was fetched from its origin
// just now (see Job.RefreshDue).
func Refreshed() JobChange {
	return JobChange{what: "time of refresh", set: "refreshed_at = ?", args: []any{time.Now().UnixMilli()}}
}

// DoWhenDone sets what the job does once done (Job.WhenDone), checked
// (WhenDone.Check), and forgets how the last action went.
func DoWhenDone(w WhenDone) JobChange {
	c := JobChange{what: "action when done", set: "when_done = ?, when_done_note = ''", args: []any{""}, err: w.Check()}
	if w.Action != ActionNone {
		c.args = []any{jsonText(w)}
	}
	return c
}

// WhenDoneWent records how the job's action when done went (ActionNone
// Kind: forget it), URL credentials in its Detail removed.
func WhenDoneWent(n WhenDoneNote) JobChange {
	c := JobChange{what: "how its action when done went", set: "when_done_note = ?", args: []any{""}}
	if n.Kind != ActionNone {
		n.Detail = Redact(n.Detail)
		c.args = []any{jsonText(n)}
	}
	return c
}

// InOrder reports whether job id downloads in order.
func (q *Queue) InOrder(id int64) (bool, error) {
	var on bool
	err := q.db.QueryRow(`SELECT in_order FROM jobs WHERE id = ?`, id).Scan(&on)
	if errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return false, q.wrap(fmt.Sprintf("read whether job %d downloads in order", id), err)
	}
	return on, nil
}

// Limits are the jobs that have a limit of their own, by ID, in bytes
// per second.
func (q *Queue) Limits() (map[int64]int64, error) {
	const op = "read the jobs' speed limits"
	rows, err := q.db.Query(`SELECT id, speed_limit FROM jobs WHERE speed_limit > 0`)
	if err != nil {
		return nil, q.wrap(op, err)
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var id, bps int64
		if err := rows.Scan(&id, &bps); err != nil {
			return nil, q.wrap(op, err)
		}
		out[id] = bps
	}
	if err := rows.Err(); err != nil {
		return nil, q.wrap(op, err)
	}
	return out, nil
}

// RefreshAfter is how long a dynamic job (its document says its origin
// may hold a newer one) goes without asking that origin: a job that
// resumes later than this fetches its document again first.
var RefreshAfter = time.Hour

// RefreshDue reports whether the job's document was last fetched from its
// origin (or, never, the job added) more than RefreshAfter ago: whether a
// dynamic job that resumes now should ask its origin first.
func (j Job) RefreshDue() bool { return time.Since(j.RefreshedAt) >= RefreshAfter }
