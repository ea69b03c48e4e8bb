package rpc

import "time"

// notifyLoop reads the queue while a WebSocket client is connected and
// sends aria2's notifications for the changes it sees. It reads it every
// Poll while the service has anything under way that changes the queue by
// itself (a run, a check, a torrent seeding: Options.Activity) and
// once after, and at once after a command or a change it is told of
// (Changed); an idle queue is not read at all, however many jobs it holds.
// It reads as the list calls do (read): while something is under way,
// the whole queue once every listKeep, its active downloads each time.
// Progress is pulled, as everywhere in Braid: the runner does not know
// the server exists.
func (s *Server) notifyLoop() {
	tick := time.NewTicker(s.o.Poll)
	defer tick.Stop()
	var last map[int64]Job // nil: no baseline (no client was connected)
	var began uint64       // runs and checks begun at the last reading
	read := true           // the next tick reads the queue
	for {
		var ready chan struct{} // a new client waits for the baseline
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		case <-s.poke:
			read = true
		case ready = <-s.primed:
		}
		if !s.hasClients() {
			last = nil
			if ready != nil {
				close(ready)
			}
			continue
		}
		working, b := s.activity()
		if last != nil && ready == nil && !read && !working && b == began {
			continue // nothing under way, nothing told: as last read
		}
		// Under way now: read again at the next tick, and once more
		// after it ends.
		read, began = working, b
		jobs, err := s.read(Want{})
		if err == nil {
			now := make(map[int64]Job, len(jobs))
			for _, j := range jobs {
				now[j.ID] = j
			}
			if last != nil {
				s.notifyChanges(last, now)
			}
			last = now
		} else {
			read = true // the next look tries again
		}
		if ready != nil {
			close(ready)
		}
	}
}

// activity is Options.Activity's, or always working without it.
func (s *Server) activity() (working bool, began uint64) {
	if s.o.Activity == nil {
		return true, 0
	}
	return s.o.Activity()
}

// notifyChanges sends what happened between two readings of the queue.
// A download that started and ended between them gets its start too.
func (s *Server) notifyChanges(before, now map[int64]Job) {
	for id, j := range now {
		gid := GID(j.ID, j.AddedAt)
		was, seen := before[id]
		if j.Seeding && !was.Seeding {
			// aria2 says a torrent completed when it starts to seed.
			s.broadcast("aria2.onBtDownloadComplete", gid)
		}
		if seen && was.State == j.State {
			continue
		}
		switch j.State {
		case Active:
			s.broadcast("aria2.onDownloadStart", gid)
		case Paused:
			if seen && (was.State == Active || was.State == Waiting) {
				s.broadcast("aria2.onDownloadPause", gid)
			}
		case Complete:
			if !seen || was.State != Active {
				s.broadcast("aria2.onDownloadStart", gid)
			}
			if j.InfoHash != "" && !was.Seeding {
				s.broadcast("aria2.onBtDownloadComplete", gid)
			}
			s.broadcast("aria2.onDownloadComplete", gid)
		case Error:
			// aria2 starts a download before it fails, even one whose
			// link answered 404 at once.
			if !seen || was.State != Active {
				s.broadcast("aria2.onDownloadStart", gid)
			}
			s.broadcast("aria2.onDownloadError", gid)
		}
	}
	for id, j := range before {
		if _, ok := now[id]; !ok && !j.State.Stopped() {
			s.broadcast("aria2.onDownloadStop", GID(j.ID, j.AddedAt))
		}
	}
}
