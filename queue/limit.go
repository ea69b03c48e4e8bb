package queue

// A job's own speed limit holds on top of the global one (Settings'
// SpeedLimit, or the schedule's alternative): its downloads, HTTP, FTP or
// BitTorrent, get no more than the lower of the two. It is kept with the
// job, across restarts, and a runner follows a change while the job runs.

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
