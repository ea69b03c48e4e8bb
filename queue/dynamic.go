package queue

import "time"

// RefreshAfter is how long a dynamic job (its document says its origin
// may hold a newer one) goes without asking that origin: a job that
// resumes later than this fetches its document again first.
var RefreshAfter = time.Hour

// RefreshDue reports whether the job's document was last fetched from its
// origin (or, never, the job added) more than RefreshAfter ago: whether a
// dynamic job that resumes now should ask its origin first.
func (j Job) RefreshDue() bool { return time.Since(j.RefreshedAt) >= RefreshAfter }
