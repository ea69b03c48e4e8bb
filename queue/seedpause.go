package queue

import (
	"database/sql"
	"fmt"
)

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
