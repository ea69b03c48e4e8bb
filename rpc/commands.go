package rpc

import (
	"context"
	"errors"

	"braid/engine/source"
)

func (s *Server) addURI(ctx context.Context, p params) (any, error) {
	uris, err := p.strs(0, "uris")
	if err != nil {
		return nil, err
	}
	if uris = remoteLinks(uris); len(uris) == 0 {
		return nil, errNoURI
	}
	a, err := p.addOptionsAt(1)
	if err != nil {
		return nil, err
	}
	id, err := s.d.AddURIs(ctx, uris, a)
	if err != nil {
		return nil, err
	}
	return s.added(id, p, 2)
}

func (s *Server) addTorrent(ctx context.Context, p params) (any, error) {
	b, err := p.document(0, "torrent")
	if err != nil {
		return nil, err
	}
	seeds, err := p.strs(1, "uris")
	if err != nil {
		return nil, err
	}
	seeds = remoteLinks(seeds)
	a, err := p.addOptionsAt(2)
	if err != nil {
		return nil, err
	}
	id, err := s.d.AddTorrent(ctx, b, seeds, a)
	if err != nil {
		return nil, err
	}
	return s.added(id, p, 3)
}

func (s *Server) addMetalink(ctx context.Context, p params) (any, error) {
	b, err := p.document(0, "metalink")
	if err != nil {
		return nil, err
	}
	a, err := p.addOptionsAt(1)
	if err != nil {
		return nil, err
	}
	ids, err := s.d.AddMetalink(ctx, b, a)
	if err != nil {
		return nil, err
	}
	gids := make([]string, 0, len(ids))
	for _, id := range ids {
		g, err := s.added(id, p, 2)
		if err != nil {
			return nil, err
		}
		gids = append(gids, g.(string))
	}
	return gids, nil
}

// errNoURI is aria2's answer to an addUri with nothing it can fetch,
// and why.
var errNoURI = failf("No URI to download. Over RPC, Braid takes http, https and ftp links and magnet links, " +
	"never a file or folder of this computer; send a .torrent or a metalink itself with addTorrent or addMetalink.")

// remoteLinks keeps of uris those an add may fetch, as aria2 drops the
// URIs it cannot use: http, https and ftp URLs with a host, and magnet
// links. A local path or a file: URL is never opened for a client, who
// may be on another machine (or a web page): it could read any file
// Braid may read, or hang on a FIFO.
func remoteLinks(uris []string) []string {
	var out []string
	for _, u := range uris {
		if remoteLink(u) {
			out = append(out, u)
		}
	}
	return out
}

func remoteLink(u string) bool { return source.Of(u).IsURL() }

// added answers an add with the new job's GID, first putting it at the
// position in the waiting queue that params[pos] asks for, if any.
func (s *Server) added(id int64, p params, pos int) (any, error) {
	j, err := s.d.Status(id, Want{})
	if err != nil {
		return nil, err
	}
	if at, ok, err := p.integer(pos, "position"); err != nil {
		return nil, err
	} else if ok {
		if _, err := s.moveInWaiting(j, at, "POS_SET"); err != nil {
			return nil, err
		}
	}
	return GID(j.ID, j.AddedAt), nil
}

// job finds the job a GID names: one in the queue, or one removed through
// the RPC whose result is kept.
func (s *Server) job(gid string, want Want) (Job, error) {
	id, mark, err := parseGID(gid)
	if err != nil {
		return Job{}, err
	}
	j, err := s.d.Status(id, want)
	if err == nil && addedMark(j.AddedAt) == mark {
		return j, nil
	}
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Job{}, err
	}
	s.mu.Lock()
	r, ok := s.removed[id]
	s.mu.Unlock()
	if ok && addedMark(r.AddedAt) == mark {
		return r, nil
	}
	return Job{}, failf("GID %s is not found", gid)
}

func (s *Server) gidParam(p params) (string, error) { return p.str(0, "gid") }

func (s *Server) remove(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	j, err := s.job(gid, Want{URIs: true})
	if err != nil {
		return nil, err
	}
	if j.State.Stopped() {
		return nil, failf("Active Download not found for GID#%s", gid)
	}
	if err := s.d.Remove(j.ID); err != nil {
		return nil, err
	}
	// A download that never started leaves no result, as in aria2.
	// aria2c 1.36 keeps none of a download it removes while it waits
	// either, progress or not; Braid keeps one of a download with bytes
	// done, so the client still lists what it removed.
	if j.State == Active || j.Completed > 0 {
		j.State, j.Speed, j.UploadSpeed, j.Connections = Removed, 0, 0, 0
		s.keepRemoved(j)
	}
	return gid, nil
}

// maxRemoved is how many removed downloads' results are kept, as aria2's
// --max-download-result; the oldest go first.
const maxRemoved = 1000

func (s *Server) keepRemoved(j Job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.removed[j.ID] = j
	for len(s.removed) > maxRemoved {
		var oldest Job
		for _, r := range s.removed {
			if oldest.ID == 0 || r.AddedAt.Before(oldest.AddedAt) {
				oldest = r
			}
		}
		delete(s.removed, oldest.ID)
	}
}

func (s *Server) pause(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	j, err := s.job(gid, Want{})
	if err != nil {
		return nil, err
	}
	if j.State != Active && j.State != Waiting {
		return nil, failf("GID#%s cannot be paused now", gid)
	}
	if err := s.d.Pause(j.ID); err != nil {
		return nil, err
	}
	return gid, nil
}

func (s *Server) unpause(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	j, err := s.job(gid, Want{})
	if err != nil {
		return nil, err
	}
	if j.State != Paused {
		return nil, failf("GID#%s cannot be unpaused now", gid)
	}
	if err := s.d.Unpause(j.ID); err != nil {
		return nil, err
	}
	return gid, nil
}

func (s *Server) pauseAll(context.Context, params) (any, error) {
	return s.each(func(j Job) error {
		if j.State == Active || j.State == Waiting {
			return s.d.Pause(j.ID)
		}
		return nil
	})
}

func (s *Server) unpauseAll(context.Context, params) (any, error) {
	return s.each(func(j Job) error {
		if j.State == Paused {
			return s.d.Unpause(j.ID)
		}
		return nil
	})
}

// each runs do on every job; a job that changed meanwhile (ErrState,
// ErrNotFound) is skipped.
func (s *Server) each(do func(Job) error) (any, error) {
	jobs, err := s.d.List(Want{})
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		if err := do(j); err != nil && !errors.Is(err, ErrState) && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	return "OK", nil
}

func (s *Server) changeURI(context.Context, params) (any, error) {
	return nil, failf("changeUri: %v: change a download's mirrors in Braid's window", ErrUnsupported)
}

func (s *Server) changePosition(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	pos, ok, err := p.integer(1, "pos")
	if err != nil || !ok {
		return nil, failf("pos must be an integer")
	}
	how, err := p.str(2, "how")
	if err != nil {
		return nil, err
	}
	j, err := s.job(gid, Want{})
	if err != nil {
		return nil, err
	}
	return s.moveInWaiting(j, pos, how)
}

// moveInWaiting moves j within the waiting queue (waiting and paused
// jobs, in queue order) as aria2's changePosition does and returns its
// new place there.
func (s *Server) moveInWaiting(j Job, pos int64, how string) (int, error) {
	all, err := s.d.List(Want{})
	if err != nil {
		return 0, err
	}
	var waiting []int // indexes into all
	cur := -1
	for i, w := range all {
		if w.State == Waiting || w.State == Paused {
			if w.ID == j.ID {
				cur = len(waiting)
			}
			waiting = append(waiting, i)
		}
	}
	if cur < 0 {
		return 0, failf("GID#%s not found in the waiting queue.", GID(j.ID, j.AddedAt))
	}
	var to int64
	switch how {
	case "POS_SET":
		to = pos
	case "POS_CUR":
		to = int64(cur) + pos
	case "POS_END":
		to = int64(len(waiting)-1) + pos
	default:
		return 0, failf("Illegal argument: how must be POS_SET, POS_CUR or POS_END")
	}
	t := int(max(0, min(to, int64(len(waiting)-1))))
	if t == cur {
		return t, nil
	}
	if err := s.d.Move(j.ID, waiting[t]); err != nil {
		return 0, err
	}
	return t, nil
}

// purgeDownloadResult forgets every finished, failed and removed
// download: finished and failed jobs leave the queue (their files stay).
func (s *Server) purgeDownloadResult(context.Context, params) (any, error) {
	jobs, err := s.d.List(Want{})
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		if j.State.Stopped() {
			if err := s.d.Remove(j.ID); err != nil && !errors.Is(err, ErrNotFound) {
				return nil, err
			}
		}
	}
	s.mu.Lock()
	clear(s.removed)
	s.mu.Unlock()
	return "OK", nil
}

func (s *Server) removeDownloadResult(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	j, err := s.job(gid, Want{})
	if err != nil {
		return nil, err
	}
	if !j.State.Stopped() {
		return nil, failf("Could not remove download result of GID#%s", gid)
	}
	if j.State != Removed {
		if err := s.d.Remove(j.ID); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	delete(s.removed, j.ID)
	s.mu.Unlock()
	return "OK", nil
}
