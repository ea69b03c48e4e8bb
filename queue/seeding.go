package queue

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Seeded is what a torrent job has seeded over all its runs.
type Seeded struct {
	// Uploaded is the bytes sent to peers, Time the time spent seeding.
	Uploaded int64
	Time     time.Duration
	// Active: the job was seeding when Braid stopped, its goal not
	// reached: it seeds on at the next start.
	Active bool
}

// Seeded returns what job id has seeded; zero when nothing is recorded.
func (q *Queue) Seeded(id int64) (Seeded, error) {
	var s Seeded
	var ms int64
	err := q.db.QueryRow(`SELECT uploaded, seeded, active FROM torrent_seeding WHERE job = ?`, id).Scan(&s.Uploaded, &ms, &s.Active)
	if errors.Is(err, sql.ErrNoRows) {
		return Seeded{}, nil
	}
	if err != nil {
		return Seeded{}, q.wrap(fmt.Sprintf("job %d: read what it seeded", id), err)
	}
	s.Time = time.Duration(ms) * time.Millisecond
	return s, nil
}

// SetSeeded records what job id has seeded. A job removed meanwhile
// records nothing.
func (q *Queue) SetSeeded(id int64, s Seeded) error {
	err := q.tx(func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO torrent_seeding (job, uploaded, seeded, active)
			SELECT id, ?, ?, ? FROM jobs WHERE id = ?
			ON CONFLICT (job) DO UPDATE SET uploaded = excluded.uploaded, seeded = excluded.seeded, active = excluded.active`,
			s.Uploaded, s.Time.Milliseconds(), s.Active, id)
		return err
	})
	if err != nil {
		return q.wrap(fmt.Sprintf("job %d: record what it seeded", id), err)
	}
	return nil
}

// SeedingOn returns the done jobs that were seeding when Braid stopped,
// their goal not reached, and whose seeding the user has not paused: the
// jobs to seed again at a start.
func (q *Queue) SeedingOn() ([]int64, error) {
	rows, err := q.db.Query(`SELECT s.job FROM torrent_seeding s JOIN jobs j ON j.id = s.job
		WHERE s.active AND j.state = 'done' AND s.job NOT IN (SELECT job FROM seed_paused)
		ORDER BY j.position, j.id`)
	if err != nil {
		return nil, q.wrap("read the torrents seeding when Braid stopped", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
