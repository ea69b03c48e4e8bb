package queue

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A Place is where Move puts a job in the queue order: At an index, or
// By a number of steps from where it is.
type Place struct {
	to func(from int) int
}

// At is index (0 first) of the queue order; an index past either end is
// clamped to it: At(0) is first, At(math.MaxInt) last.
func At(index int) Place { return Place{func(int) int { return index }} }

// By is steps places from where the job is: By(-1) swaps it with the one
// before it, By(1) with the one after; the first job stays first and the
// last last.
func By(steps int) Place { return Place{func(from int) int { return from + steps }} }

// Move puts a job at place p of the queue order, shifting the jobs
// between.
func (q *Queue) Move(id int64, p Place) error {
	err := q.tx(func(tx *sql.Tx) error { return move(tx, id, p.to) })
	if err != nil {
		return q.wrap(fmt.Sprintf("move job %d", id), err)
	}
	return nil
}

// move takes the job from its index to to(index), rewriting the positions
// of only the jobs in between. They reuse the positions that range held,
// so jobs outside it keep theirs.
func move(tx *sql.Tx, id int64, to func(int) int) error {
	rows, err := tx.Query(`SELECT id, position FROM jobs ORDER BY position, id`)
	if err != nil {
		return err
	}
	var ids, pos []int64
	from := -1
	for rows.Next() {
		var i, p int64
		if err := rows.Scan(&i, &p); err != nil {
			rows.Close()
			return err
		}
		if i == id {
			from = len(ids)
		}
		ids, pos = append(ids, i), append(pos, p)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if from < 0 {
		return ErrNotFound
	}
	dest := max(0, min(to(from), len(ids)-1))
	if dest == from {
		return nil
	}
	lo, hi := min(from, dest), max(from, dest)
	for k := 1; k < len(pos); k++ {
		if pos[k] <= pos[k-1] {
			// Equal positions (never written by this package, but cheap
			// to survive): number the whole queue afresh.
			lo, hi = 0, len(ids)-1
			for k := range pos {
				pos[k] = int64(k)
			}
			break
		}
	}
	moved := ids[from]
	if from < dest {
		copy(ids[from:dest], ids[from+1:dest+1])
	} else {
		copy(ids[dest+1:from+1], ids[dest:from])
	}
	ids[dest] = moved
	for k := lo; k <= hi; k++ {
		if _, err := tx.Exec(`UPDATE jobs SET position = ? WHERE id = ?`, pos[k], ids[k]); err != nil {
			return err
		}
	}
	return nil
}

// Pause stops a queued or running job; reason is "" for a user's pause, or
// why Braid paused it (destination vanished, folder read-only), shown to
// the user. A running job is stopped by its runner, which sees the state
// change within about a second. Pausing a finished job is ErrState.
func (q *Queue) Pause(id int64, reason string) error {
	return q.transition(fmt.Sprintf("pause job %d", id),
		`UPDATE jobs SET state = 'paused', error = ? WHERE id = ? AND state IN ('queued', 'running', 'paused')`,
		[]any{Redact(reason), id}, id, Queued, Running, Paused)
}

// Resume makes a paused or failed job queued again, clearing its error. A
// job already queued or running is left as it is; a done job is ErrState.
func (q *Queue) Resume(id int64) error {
	return q.transition(fmt.Sprintf("resume job %d", id),
		`UPDATE jobs SET state = 'queued', error = '', finished_at = NULL WHERE id = ? AND state IN ('paused', 'failed')`,
		[]any{id}, id, Paused, Failed, Queued, Running)
}

// Finish marks a job done (every selected file verified at its final
// name) and returns what the user asked it to do then, read in the same
// statement: an action chosen while it ran counts.
func (q *Queue) Finish(id int64) (WhenDone, error) {
	op := fmt.Sprintf("finish job %d", id)
	var w string
	err := q.db.QueryRow(`UPDATE jobs SET state = 'done', error = '', finished_at = ? WHERE id = ? RETURNING when_done`,
		time.Now().UnixMilli(), id).Scan(&w)
	if errors.Is(err, sql.ErrNoRows) {
		return WhenDone{}, fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	if err != nil {
		return WhenDone{}, q.wrap(op, err)
	}
	done, _ := parseWhenDone(w, "")
	return done, nil
}

// Fail marks a job failed with the error that stopped it (URL
// credentials in its text removed, see Redact).
func (q *Queue) Fail(id int64, cause error) error {
	msg := "failed"
	if cause != nil {
		msg = Redact(cause.Error())
	}
	return q.transition(fmt.Sprintf("fail job %d", id),
		`UPDATE jobs SET state = 'failed', error = ?, finished_at = ? WHERE id = ?`,
		[]any{msg, time.Now().UnixMilli(), id}, id)
}

// SetState puts a job in any state, for callers that manage the life of a
// job themselves; Pause, Resume, Finish and Fail say more.
func (q *Queue) SetState(id int64, s State) error {
	switch s {
	case Queued, Running, Paused:
		return q.transition(fmt.Sprintf("set job %d %s", id, s),
			`UPDATE jobs SET state = ?, finished_at = NULL WHERE id = ?`, []any{string(s), id}, id)
	case Done, Failed:
		return q.transition(fmt.Sprintf("set job %d %s", id, s),
			`UPDATE jobs SET state = ?, finished_at = ? WHERE id = ?`, []any{string(s), time.Now().UnixMilli(), id}, id)
	}
	return fmt.Errorf("set job %d: unknown state %q", id, s)
}

// Requeue puts a running job back in the queue, its progress kept: its
// runner stopped it for now (see runner.ErrYield). A job not running is
// left as it is.
func (q *Queue) Requeue(id int64) error {
	if _, err := q.db.Exec(`UPDATE jobs SET state = 'queued', next_try = 0 WHERE id = ? AND state = 'running'`, id); err != nil {
		return q.wrap(fmt.Sprintf("requeue job %d", id), err)
	}
	return nil
}

// Claim takes a queued job for running; false when it is no longer queued
// (paused or removed meanwhile). from, when given, are the states it may
// be taken from instead (a face running the jobs it just added or found,
// whatever state they rest in). Only the runner calls it.
func (q *Queue) Claim(id int64, from ...State) (bool, error) {
	if len(from) == 0 {
		from = []State{Queued}
	}
	marks, args := make([]string, len(from)), []any{id}
	for i, s := range from {
		marks[i] = "?"
		args = append(args, string(s))
	}
	res, err := q.db.Exec(`UPDATE jobs SET state = 'running', error = '', next_try = 0, finished_at = NULL
		WHERE id = ? AND state IN (`+strings.Join(marks, ", ")+`)`, args...)
	if err != nil {
		return false, q.wrap(fmt.Sprintf("start job %d", id), err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// StateOf reads a job's state.
func (q *Queue) StateOf(id int64) (State, error) {
	var s string
	err := q.db.QueryRow(`SELECT state FROM jobs WHERE id = ?`, id).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return "", q.wrap(fmt.Sprintf("job %d", id), err)
	}
	return State(s), nil
}

// transition runs an UPDATE of one job; when it changes nothing, the job
// is missing (ErrNotFound), or in a state listed in noop (fine), or in a
// state that forbids it (ErrState).
func (q *Queue) transition(op, query string, args []any, id int64, noop ...State) error {
	res, err := q.db.Exec(query, args...)
	if err != nil {
		return q.wrap(op, err)
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	s, err := q.StateOf(id)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	for _, ok := range noop {
		if s == ok {
			return nil
		}
	}
	return fmt.Errorf("%s: %w: it is %s", op, ErrState, s)
}

// NextQueued returns the first queued job, in queue order, that is not in skip.
func (q *Queue) NextQueued(skip map[int64]bool) (int64, bool, error) {
	rows, err := q.db.Query(`SELECT id FROM jobs WHERE state = 'queued' ORDER BY position, id LIMIT ?`, len(skip)+1)
	if err != nil {
		return 0, false, q.wrap("find the next job", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return 0, false, q.wrap("find the next job", err)
		}
		if !skip[id] {
			return id, true, nil
		}
	}
	if err := rows.Err(); err != nil {
		return 0, false, q.wrap("find the next job", err)
	}
	return 0, false, nil
}

// SetWaiting records that running job id's downloads wait for the network
// until next (see Job.NextTry), and why (reason, kept as the job's Error
// while it waits; "" when the live download tells); a zero next says they
// go on. A job that is not running is left as it is.
func (q *Queue) SetWaiting(id int64, next time.Time, reason string) error {
	var ms int64
	if !next.IsZero() {
		ms = max(next.UnixMilli(), 1)
	} else {
		reason = ""
	}
	if _, err := q.db.Exec(`UPDATE jobs SET next_try = ?, error = ? WHERE id = ? AND state = 'running'`, ms, Redact(reason), id); err != nil {
		return q.wrap(fmt.Sprintf("job %d: record its next try", id), err)
	}
	return nil
}
