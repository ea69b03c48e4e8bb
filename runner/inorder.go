package runner

import "braid/queue"

// inOrder reports whether job id downloads in order (queue.InOrder),
// for the engine's and the torrent's requests. A job the queue cannot
// tell about downloads as usual: order is a preference, and a read that
// fails must not stop the download.
func (r *Runner) inOrder(id int64) bool {
	on, err := r.Queue.InOrder(id)
	return err == nil && on
}

// keepInOrder keeps get's --in-order with job id (on), so that the job
// is still in order when the window or braid queue run resumes it, and
// reports whether the job downloads in order: on, or kept so from
// before (the window's "Download in order" on a job get resumes). A
// failure to keep it is said, not returned: the files download all the
// same, in order this time.
func (s *queueState) keepInOrder(q *queue.Queue, id int64, on bool) bool {
	if !on {
		kept, err := q.InOrder(id)
		return err == nil && kept
	}
	if err := q.SetJob(id, queue.InOrder(true)); err != nil && s.said != nil {
		s.said(err.Error())
	}
	return true
}
