package runner

// inOrder reports whether job id downloads in order (queue.InOrder),
// for the engine's and the torrent's requests. A job the queue cannot
// tell about downloads as usual: order is a preference, and a read that
// fails must not stop the download.
func (r *Runner) inOrder(id int64) bool {
	on, err := r.Queue.InOrder(id)
	return err == nil && on
}
