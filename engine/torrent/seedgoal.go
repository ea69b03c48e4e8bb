package torrent

import "time"

// Seeded is what a torrent has seeded: bytes sent to peers (while it
// downloaded too) and time spent seeding.
type Seeded struct {
	Uploaded int64
	Time     time.Duration
}

// GoalReached reports whether s meets a seed ratio (over size bytes) or
// a seed time; both 0 means no seeding at all, reached at once.
func (s Seeded) GoalReached(ratio float64, limit time.Duration, size int64) bool {
	if ratio <= 0 && limit <= 0 {
		return true
	}
	if limit > 0 && s.Time >= limit {
		return true
	}
	return ratio > 0 && size > 0 && float64(s.Uploaded) >= ratio*float64(size)
}

// Seeded returns what the job has seeded, Request.Seeded (earlier runs)
// included. Safe for concurrent use.
func (j *Job) Seeded() Seeded {
	st := j.t.Stats()
	up := st.BytesWrittenData.Int64()
	j.mu.Lock()
	defer j.mu.Unlock()
	s := j.req.Seeded
	s.Uploaded += up
	if !j.seedFrom.IsZero() {
		end := j.seedTo
		if end.IsZero() {
			end = time.Now()
		}
		s.Time += end.Sub(j.seedFrom)
	}
	return s
}

// GoalReached reports whether the job's seeding ended because it reached
// its ratio or time (rather than being stopped). Safe for concurrent
// use.
func (j *Job) GoalReached() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.goal
}

// seeding notes that seeding begins (on) or ends (off) now.
func (j *Job) seeding(on bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if on {
		j.seedFrom = time.Now()
	} else if !j.seedFrom.IsZero() && j.seedTo.IsZero() {
		j.seedTo = time.Now()
	}
}

func (j *Job) reached() {
	j.mu.Lock()
	j.goal = true
	j.mu.Unlock()
}
