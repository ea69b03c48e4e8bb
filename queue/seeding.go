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

// SetSeedPaused records that the user paused (on) or resumed or stopped
// (off) the seeding of done torrent job id, so a restart keeps it paused
// rather than forgetting it seeded.
func (q *Queue) SetSeedPaused(id int64, on bool) error {
	err := q.tx(func(tx *sql.Tx) error {
		var err error
		if on {
			_, err = tx.Exec(`INSERT INTO seed_paused (job) VALUES (?) ON CONFLICT (job) DO NOTHING`, id)
		} else {
			_, err = tx.Exec(`DELETE FROM seed_paused WHERE job = ?`, id)
		}
		return err
	})
	if err != nil {
		return q.wrap(fmt.Sprintf("job %d: record its seeding paused", id), err)
	}
	return nil
}

// SeedPaused returns the jobs whose seeding the user paused, as
// SetSeedPaused recorded them (removed jobs drop out).
func (q *Queue) SeedPaused() (map[int64]bool, error) {
	rows, err := q.db.Query(`SELECT job FROM seed_paused`)
	if err != nil {
		return nil, q.wrap("read the torrents whose seeding is paused", err)
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// ResumeSeeding seeds again a done torrent job whose seeding the user
// paused (SetSeedPaused): in one step the pause is forgotten and the job
// is queued, so its runner adds the torrent again over the files it has,
// checks them and seeds. It reports false, changing nothing, when job id
// is not a done job with its seeding paused; Resume is then the one to
// ask. The window and `braid queue resume` both call it, so a pause made
// in one is resumed from the other.
func (q *Queue) ResumeSeeding(id int64) (bool, error) {
	resumed := false
	err := q.tx(func(tx *sql.Tx) error {
		res, err := tx.Exec(`DELETE FROM seed_paused WHERE job = ?
			AND EXISTS (SELECT 1 FROM jobs WHERE id = ? AND state = 'done')`, id, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		_, err = tx.Exec(`UPDATE jobs SET state = 'queued', error = '', finished_at = NULL WHERE id = ?`, id)
		resumed = err == nil
		return err
	})
	if err != nil {
		return false, q.wrap(fmt.Sprintf("job %d: resume its seeding", id), err)
	}
	return resumed, nil
}

// PauseSeeding records that the user paused the seeding of done torrent
// job id, as the window's Pause does, for a process that does not seed it
// itself (braid queue pause): the Braid that seeds it stops once woken,
// and no start seeds it on. It reports false, changing nothing, when job
// id is not a done torrent that seeds or is to seed on (Seeded.Active);
// Pause is then the one to ask. A seeding paused already stays so.
func (q *Queue) PauseSeeding(id int64) (bool, error) {
	paused := false
	err := q.tx(func(tx *sql.Tx) error {
		if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM seed_paused WHERE job = ?)`, id).Scan(&paused); err != nil || paused {
			return err
		}
		res, err := tx.Exec(`INSERT INTO seed_paused (job)
			SELECT j.id FROM jobs j JOIN torrent_seeding s ON s.job = j.id
			WHERE j.id = ? AND j.state = 'done' AND s.active`, id)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		paused = n > 0
		return err
	})
	if err != nil {
		return false, q.wrap(fmt.Sprintf("job %d: pause its seeding", id), err)
	}
	return paused, nil
}
