package rpc

import (
	"context"
	"slices"
	"strconv"
	"time"
)

func (s *Server) tellStatus(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	keys, err := p.keys(1)
	if err != nil {
		return nil, err
	}
	j, err := s.job(gid, wantFor(keys))
	if err != nil {
		return nil, err
	}
	return status(j, keys), nil
}

func (s *Server) getURIs(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	j, err := s.job(gid, Want{URIs: true})
	if err != nil {
		return nil, err
	}
	out := []map[string]string{}
	if len(j.Files) > 0 {
		out = uris(j.Files[0])
	}
	return out, nil
}

func (s *Server) getFiles(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	j, err := s.job(gid, Want{URIs: true})
	if err != nil {
		return nil, err
	}
	return files(j), nil
}

func (s *Server) getServers(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	j, err := s.job(gid, Want{URIs: true})
	if err != nil {
		return nil, err
	}
	if j.State != Active {
		return nil, failf("No active download for GID#%s", gid)
	}
	out := []map[string]any{}
	for i, f := range j.Files {
		servers := []map[string]string{}
		for _, u := range f.URIs {
			if u.Used {
				servers = append(servers, map[string]string{"uri": u.URI, "currentUri": u.URI, "downloadSpeed": itoa(u.Speed)})
			}
		}
		out = append(out, map[string]any{"index": strconv.Itoa(i + 1), "servers": servers})
	}
	return out, nil
}

func (s *Server) tellActive(_ context.Context, p params) (any, error) {
	keys, err := p.keys(0)
	if err != nil {
		return nil, err
	}
	jobs, err := s.list(wantFor(keys), func(st State) bool { return st == Active })
	if err != nil {
		return nil, err
	}
	return statuses(jobs, keys), nil
}

func (s *Server) tellWaiting(_ context.Context, p params) (any, error) {
	return s.tellPage(p, func(st State) bool { return st == Waiting || st == Paused })
}

func (s *Server) tellStopped(_ context.Context, p params) (any, error) {
	return s.tellPage(p, State.Stopped)
}

// tellPage answers tellWaiting and tellStopped: offset, num, keys.
func (s *Server) tellPage(p params, in func(State) bool) (any, error) {
	offset, ok, err := p.integer(0, "offset")
	if err != nil || !ok {
		return nil, failf("offset must be an integer")
	}
	num, ok, err := p.integer(1, "num")
	if err != nil || !ok || num < 0 {
		return nil, failf("num must be a non-negative integer")
	}
	keys, err := p.keys(2)
	if err != nil {
		return nil, err
	}
	jobs, err := s.list(wantFor(keys), in)
	if err != nil {
		return nil, err
	}
	return statuses(page(jobs, offset, num), keys), nil
}

// page is aria2's pagination: from offset, num items; a negative offset
// counts from the end (-1 the last) and the items come last first.
func page[T any](all []T, offset, num int64) []T {
	size := int64(len(all))
	if offset < 0 {
		from := offset + size
		if from < 0 || num == 0 {
			return nil
		}
		lo := max(from-(num-1), 0)
		out := slices.Clone(all[lo : from+1])
		slices.Reverse(out)
		return out
	}
	if offset >= size {
		return nil
	}
	return all[offset:min(size, offset+num)]
}

// list is the queue's jobs in queue order whose state in accepts, with
// the jobs removed through the RPC after them (they are stopped).
func (s *Server) list(want Want, in func(State) bool) ([]Job, error) {
	jobs, err := s.read(want)
	if err != nil {
		return nil, err
	}
	n := 0
	for i := range jobs {
		if in(jobs[i].State) {
			n++
		}
	}
	out := make([]Job, 0, n) // a Job is large: copied once, not as a slice grows
	for i := range jobs {
		if in(jobs[i].State) {
			out = append(out, jobs[i])
		}
	}
	if in(Removed) {
		s.mu.Lock()
		removed := make([]Job, 0, len(s.removed))
		for _, j := range s.removed {
			removed = append(removed, j)
		}
		s.mu.Unlock()
		slices.SortFunc(removed, func(a, b Job) int { return a.AddedAt.Compare(b.AddedAt) })
		out = append(out, removed...)
	}
	return out, nil
}

// listing is one reading of the queue's list, with what was under way
// and what had changed when it began.
type listing struct {
	jobs           []Job
	at             time.Time
	working        bool
	began, changes uint64
}

// listKeep is how long a list read is kept: over an idle queue as it
// was read, while something is under way with its active downloads read
// afresh at each call.
const listKeep = 2 * time.Second

// read is the queue's list. While the service has nothing under way
// (Options.Activity), the queue changes only by a command: one of this
// server's, or one it is told of (Changed). A list read then is kept for
// listKeep, until a run or a check begins or such a command is counted:
// a web UI that lists an idle queue every second, in three or four
// calls, reads it once every two seconds. A change the server is not
// told of (a move in the window) shows within listKeep.
//
// While something is under way, a list is kept on the same terms, and
// its active downloads are read again at each call (a few, however long
// the queue): a web UI's calls and the notifications read the whole
// queue once every two seconds, the progress as fresh as ever. A
// download that ends or pauses shows at once; one that leaves its wait
// for the network, within listKeep.
func (s *Server) read(want Want) ([]Job, error) {
	working, began := s.activity()
	changes := s.changes.Load()
	var kept []Job
	found := false
	s.listMu.Lock()
	for w, l := range s.listed {
		// A list read with more than want (mirrors, pieces) serves too:
		// getGlobalStat's comes with a web UI's lists of every field.
		if covers(w, want) && l.working == working && l.began == began && l.changes == changes && time.Since(l.at) < s.keep {
			kept, found = l.jobs, true
			break
		}
	}
	s.listMu.Unlock()
	switch {
	case found && !working:
		return kept, nil
	case found && active(kept) <= max(len(kept)/8, 64):
		return s.freshen(kept, want), nil
	}
	// Nothing kept, or much of the queue active (torrents seeding): one
	// reading of the whole costs less than one of each.
	at := time.Now()
	jobs, err := s.d.List(want)
	if err != nil {
		return nil, err
	}
	s.listMu.Lock()
	if s.listed == nil {
		s.listed = map[Want]listing{}
	}
	s.listed[want] = listing{jobs: jobs, at: at, working: working, began: began, changes: changes}
	s.listMu.Unlock()
	return jobs, nil
}

// active counts the active downloads of jobs.
func active(jobs []Job) int {
	n := 0
	for _, j := range jobs {
		if j.State == Active {
			n++
		}
	}
	return n
}

// freshen is a kept list with its active downloads read again (Status);
// the kept list itself is left as it was, for other calls.
func (s *Server) freshen(kept []Job, want Want) []Job {
	out := slices.Clone(kept)
	for i, j := range out {
		if j.State != Active {
			continue
		}
		if now, err := s.d.Status(j.ID, want); err == nil {
			out[i] = now
		}
	}
	return out
}

// covers reports whether a list read with have holds what want asks for.
func covers(have, want Want) bool {
	return (have.URIs || !want.URIs) && (have.Bitfield || !want.Bitfield)
}

func (s *Server) getGlobalStat(context.Context, params) (any, error) {
	jobs, err := s.read(Want{})
	if err != nil {
		return nil, err
	}
	var down, up int64
	var active, waiting int
	for i := range jobs {
		j := &jobs[i]
		down += j.Speed
		up += j.UploadSpeed
		switch {
		case j.State == Active:
			active++
		case j.State == Waiting || j.State == Paused:
			waiting++
		}
	}
	s.mu.Lock()
	stopped := len(jobs) - active - waiting + len(s.removed) // the removed ones are stopped too
	s.mu.Unlock()
	return map[string]string{
		"downloadSpeed": itoa(down), "uploadSpeed": itoa(up),
		"numActive": strconv.Itoa(active), "numWaiting": strconv.Itoa(waiting),
		"numStopped": strconv.Itoa(stopped), "numStoppedTotal": strconv.Itoa(stopped),
	}, nil
}
