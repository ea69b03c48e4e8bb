package main

import "braid/engine/torrent"

// TorrentPieces gives BitTorrent downloads the queue's piece completion
// for dir, so get on the same torrent resumes it after a stop or a crash.
func (s *queueState) TorrentPieces(dir string) (torrent.Completion, error) {
	q, err := s.queue()
	if err != nil {
		return nil, err
	}
	return q.TorrentPieces(dir)
}
