package rpc

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AriaVersion is the aria2 version whose RPC Braid answers like; clients
// that look at getVersion see it as "version".
const AriaVersion = "1.36.0"

// method is one aria2 method: params are after the token.
type method func(s *Server, ctx context.Context, p params) (any, error)

var methods map[string]method

// methodNames in aria2's order, for system.listMethods.
var methodNames = []string{
	"aria2.addUri", "aria2.addTorrent", "aria2.getPeers", "aria2.addMetalink", "aria2.remove", "aria2.pause",
	"aria2.forcePause", "aria2.pauseAll", "aria2.forcePauseAll", "aria2.unpause", "aria2.unpauseAll",
	"aria2.forceRemove", "aria2.changePosition", "aria2.tellStatus", "aria2.getUris", "aria2.getFiles",
	"aria2.getServers", "aria2.tellActive", "aria2.tellWaiting", "aria2.tellStopped", "aria2.getOption",
	"aria2.changeUri", "aria2.changeOption", "aria2.getGlobalOption", "aria2.changeGlobalOption",
	"aria2.purgeDownloadResult", "aria2.removeDownloadResult", "aria2.getVersion", "aria2.getSessionInfo",
	"aria2.shutdown", "aria2.forceShutdown", "aria2.getGlobalStat", "aria2.saveSession",
	"system.multicall", "system.listMethods", "system.listNotifications",
}

// notificationNames are the notifications the WebSocket carries.
var notificationNames = []string{
	"aria2.onDownloadStart", "aria2.onDownloadPause", "aria2.onDownloadStop",
	"aria2.onDownloadComplete", "aria2.onDownloadError", "aria2.onBtDownloadComplete",
}

func init() {
	methods = map[string]method{
		"aria2.addUri":               (*Server).addURI,
		"aria2.addTorrent":           (*Server).addTorrent,
		"aria2.addMetalink":          (*Server).addMetalink,
		"aria2.remove":               (*Server).remove,
		"aria2.forceRemove":          (*Server).remove,
		"aria2.pause":                (*Server).pause,
		"aria2.forcePause":           (*Server).pause,
		"aria2.pauseAll":             (*Server).pauseAll,
		"aria2.forcePauseAll":        (*Server).pauseAll,
		"aria2.unpause":              (*Server).unpause,
		"aria2.unpauseAll":           (*Server).unpauseAll,
		"aria2.tellStatus":           (*Server).tellStatus,
		"aria2.getUris":              (*Server).getURIs,
		"aria2.getFiles":             (*Server).getFiles,
		"aria2.getServers":           (*Server).getServers,
		"aria2.getPeers":             (*Server).getPeers,
		"aria2.tellActive":           (*Server).tellActive,
		"aria2.tellWaiting":          (*Server).tellWaiting,
		"aria2.tellStopped":          (*Server).tellStopped,
		"aria2.changePosition":       (*Server).changePosition,
		"aria2.changeUri":            (*Server).changeURI,
		"aria2.getOption":            (*Server).getOption,
		"aria2.changeOption":         (*Server).changeOption,
		"aria2.getGlobalOption":      (*Server).getGlobalOption,
		"aria2.changeGlobalOption":   (*Server).changeGlobalOption,
		"aria2.getGlobalStat":        (*Server).getGlobalStat,
		"aria2.purgeDownloadResult":  (*Server).purgeDownloadResult,
		"aria2.removeDownloadResult": (*Server).removeDownloadResult,
		"aria2.getVersion":           (*Server).getVersion,
		"aria2.getSessionInfo":       (*Server).getSessionInfo,
		"aria2.saveSession":          func(*Server, context.Context, params) (any, error) { return "OK", nil },
		"aria2.shutdown":             (*Server).shutdown,
		"aria2.forceShutdown":        (*Server).forceShutdown,
	}
}

// call runs one method; inMulti forbids a nested system.multicall.
func (s *Server) call(ctx context.Context, name string, raw []json.RawMessage, inMulti bool) (any, error) {
	switch name {
	case "system.listMethods":
		return methodNames, nil
	case "system.listNotifications":
		return notificationNames, nil
	case "system.multicall":
		if inMulti {
			return nil, failf("Recursive system.multicall forbidden.")
		}
		return s.multicall(ctx, raw)
	}
	m, ok := methods[name]
	if !ok {
		return nil, failf("No such method: %s", name)
	}
	raw, err := s.authorize(raw)
	if err != nil {
		return nil, err
	}
	return m(s, ctx, params(raw))
}

// multicall runs system.multicall: each call carries its own token; a
// result is wrapped in a one-element array, a failure is its error
// object.
func (s *Server) multicall(ctx context.Context, raw []json.RawMessage) (any, error) {
	var calls []struct {
		MethodName string            `json:"methodName"`
		Params     []json.RawMessage `json:"params"`
	}
	if len(raw) != 1 || json.Unmarshal(raw[0], &calls) != nil {
		return nil, failf("The parameter of system.multicall must be an array of structs.")
	}
	out := make([]any, 0, len(calls))
	for _, c := range calls {
		if c.MethodName == "" {
			out = append(out, errorObject{codeFailed, "Missing methodName."})
			continue
		}
		res, err := s.call(ctx, c.MethodName, c.Params, true)
		if err != nil {
			out = append(out, errorObject{codeFailed, errorText(err)})
			continue
		}
		out = append(out, []any{res})
	}
	return out, nil
}

// params are a method's parameters after the token.
type params []json.RawMessage

func (p params) has(i int) bool { return i < len(p) && string(p[i]) != "null" }

func (p params) str(i int, what string) (string, error) {
	if !p.has(i) {
		return "", failf("%s is required", what)
	}
	var v string
	if json.Unmarshal(p[i], &v) != nil {
		return "", failf("%s must be a string", what)
	}
	return v, nil
}

func (p params) strs(i int, what string) ([]string, error) {
	if !p.has(i) {
		return nil, nil
	}
	var v []string
	if json.Unmarshal(p[i], &v) != nil {
		return nil, failf("%s must be an array of strings", what)
	}
	return v, nil
}

// integer reads an integer, which aria2 clients send as a number or as a
// string of digits.
func (p params) integer(i int, what string) (int64, bool, error) {
	if !p.has(i) {
		return 0, false, nil
	}
	var n json.Number
	if json.Unmarshal(p[i], &n) == nil {
		v, err := n.Int64()
		if err != nil {
			return 0, false, failf("%s must be an integer", what)
		}
		return v, true, nil
	}
	var str string
	if json.Unmarshal(p[i], &str) == nil {
		if v, err := strconv.ParseInt(str, 10, 64); err == nil {
			return v, true, nil
		}
	}
	return 0, false, failf("%s must be an integer", what)
}

// options reads aria2's options struct: string values, or arrays of
// strings for options that repeat (header).
func (p params) options(i int) (map[string][]string, error) {
	if !p.has(i) {
		return map[string][]string{}, nil
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(p[i], &raw) != nil {
		return nil, failf("options must be a struct")
	}
	out := make(map[string][]string, len(raw))
	for k, v := range raw {
		var one string
		if json.Unmarshal(v, &one) == nil {
			out[k] = []string{one}
			continue
		}
		var many []string
		if json.Unmarshal(v, &many) == nil {
			out[k] = many
			continue
		}
		out[k] = []string{string(v)} // a number or a boolean, as aria2 reads it
	}
	return out, nil
}

func (p params) keys(i int) ([]string, error) { return p.strs(i, "keys") }

// addOptions takes aria2's options of a new download; options Braid does
// not know are ignored, as clients send their whole settings.
func addOptions(o map[string][]string) (AddOptions, error) {
	first := func(k string) string {
		if v := o[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	a := AddOptions{Dir: first("dir"), Out: first("out"), Referer: first("referer"), UserAgent: first("user-agent"), Headers: o["header"]}
	switch v := first("pause"); v {
	case "", "false":
	case "true":
		a.Pause = true
	default:
		return a, failf("pause must be true or false, not %q", v)
	}
	return a, nil
}

func (s *Server) addURI(ctx context.Context, p params) (any, error) {
	uris, err := p.strs(0, "uris")
	if err != nil {
		return nil, err
	}
	if len(uris) == 0 {
		return nil, failf("No URI to download.")
	}
	opts, err := p.options(1)
	if err != nil {
		return nil, err
	}
	a, err := addOptions(opts)
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
	enc, err := p.str(0, "torrent")
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, failf("The torrent is not base64: %v", err)
	}
	seeds, err := p.strs(1, "uris")
	if err != nil {
		return nil, err
	}
	opts, err := p.options(2)
	if err != nil {
		return nil, err
	}
	a, err := addOptions(opts)
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
	enc, err := p.str(0, "metalink")
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, failf("The metalink is not base64: %v", err)
	}
	opts, err := p.options(1)
	if err != nil {
		return nil, err
	}
	a, err := addOptions(opts)
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

// added answers an add with the new job's GID, first putting it at the
// position in the waiting queue that params[pos] asks for, if any.
func (s *Server) added(id int64, p params, pos int) (any, error) {
	j, err := s.d.Status(id, Want{})
	if err != nil {
		return nil, err
	}
	s.pokeNotify()
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
	// As in aria2, a download that never started leaves no result.
	if j.State == Active || j.Completed > 0 {
		j.State, j.Speed, j.UploadSpeed, j.Connections = Removed, 0, 0, 0
		s.keepRemoved(j)
	}
	s.pokeNotify()
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
	s.pokeNotify()
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
	s.pokeNotify()
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
	s.pokeNotify()
	return "OK", nil
}

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

// getPeers answers an empty list: the queue does not show a torrent's
// peers yet.
func (s *Server) getPeers(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	if _, err := s.job(gid, Want{}); err != nil {
		return nil, err
	}
	return []any{}, nil
}

func (s *Server) changeURI(context.Context, params) (any, error) {
	return nil, failf("changeUri: %v: change a download's mirrors in Braid's window", ErrUnsupported)
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
	jobs, err := s.d.List(want)
	if err != nil {
		return nil, err
	}
	var out []Job
	for _, j := range jobs {
		if in(j.State) {
			out = append(out, j)
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

func (s *Server) getOption(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	j, err := s.job(gid, Want{})
	if err != nil {
		return nil, err
	}
	o := map[string]string{"dir": j.Dir}
	if len(j.Files) == 1 {
		if rel, err := filepath.Rel(j.Dir, j.Files[0].Path); err == nil {
			o["out"] = filepath.ToSlash(rel)
		}
	}
	if j.State != Removed {
		jo, err := s.d.JobOptions(j.ID)
		if err != nil {
			return nil, err
		}
		o["max-download-limit"] = itoa(jo.MaxDownloadLimit)
	}
	return o, nil
}

func (s *Server) changeOption(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	opts, err := p.options(1)
	if err != nil {
		return nil, err
	}
	j, err := s.job(gid, Want{})
	if err != nil {
		return nil, err
	}
	v, ok := opts["max-download-limit"]
	if !ok || len(v) == 0 {
		return "OK", nil
	}
	n, err := parseSize(v[0])
	if err != nil {
		return nil, failf("max-download-limit: %v", err)
	}
	if err := s.d.SetJobOptions(j.ID, JobOptions{MaxDownloadLimit: n}); err != nil {
		return nil, err
	}
	return "OK", nil
}

func (s *Server) getGlobalOption(context.Context, params) (any, error) {
	g, err := s.d.GlobalOptions()
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"dir":                        g.Dir,
		"max-concurrent-downloads":   strconv.Itoa(g.MaxConcurrent),
		"max-overall-download-limit": itoa(g.MaxOverallDownload),
		"max-overall-upload-limit":   itoa(g.MaxOverallUpload),
		"max-connection-per-server":  strconv.Itoa(g.MaxConnectionsPerSrv),
	}, nil
}

func (s *Server) changeGlobalOption(_ context.Context, p params) (any, error) {
	opts, err := p.options(0)
	if err != nil {
		return nil, err
	}
	g, err := s.d.GlobalOptions()
	if err != nil {
		return nil, err
	}
	for k, v := range opts {
		if len(v) == 0 {
			continue
		}
		var err error
		switch k {
		case "dir":
			g.Dir = v[0]
		case "max-concurrent-downloads":
			g.MaxConcurrent, err = positive(v[0])
		case "max-overall-download-limit":
			g.MaxOverallDownload, err = parseSize(v[0])
		case "max-overall-upload-limit":
			g.MaxOverallUpload, err = parseSize(v[0])
		case "max-connection-per-server":
			g.MaxConnectionsPerSrv, err = positive(v[0])
		}
		if err != nil {
			return nil, failf("%s: %v", k, err)
		}
	}
	if err := s.d.SetGlobalOptions(g); err != nil {
		return nil, err
	}
	return "OK", nil
}

func positive(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, failf("%q is not a positive integer", v)
	}
	return n, nil
}

// parseSize reads aria2's sizes: bytes, or with K or M (1024, 1048576).
func parseSize(v string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "K"), strings.HasSuffix(v, "k"):
		mult, v = 1<<10, v[:len(v)-1]
	case strings.HasSuffix(v, "M"), strings.HasSuffix(v, "m"):
		mult, v = 1<<20, v[:len(v)-1]
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, failf("%q is not a size (bytes, or a number with K or M)", v)
	}
	return n * mult, nil
}

func (s *Server) getGlobalStat(context.Context, params) (any, error) {
	jobs, err := s.list(Want{}, func(State) bool { return true })
	if err != nil {
		return nil, err
	}
	var down, up int64
	var active, waiting, stopped int
	for _, j := range jobs {
		down += j.Speed
		up += j.UploadSpeed
		switch {
		case j.State == Active:
			active++
		case j.State == Waiting || j.State == Paused:
			waiting++
		default:
			stopped++
		}
	}
	return map[string]string{
		"downloadSpeed": itoa(down), "uploadSpeed": itoa(up),
		"numActive": strconv.Itoa(active), "numWaiting": strconv.Itoa(waiting),
		"numStopped": strconv.Itoa(stopped), "numStoppedTotal": strconv.Itoa(stopped),
	}, nil
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

func (s *Server) getVersion(context.Context, params) (any, error) {
	return map[string]any{
		"version":         AriaVersion,
		"enabledFeatures": []string{"BitTorrent", "HTTPS", "Message Digest", "Metalink"},
		"braidVersion":    s.o.Version,
	}, nil
}

func (s *Server) getSessionInfo(context.Context, params) (any, error) {
	return map[string]string{"sessionId": s.session}, nil
}

func (s *Server) shutdown(context.Context, params) (any, error) { return s.stop(false) }

func (s *Server) forceShutdown(context.Context, params) (any, error) { return s.stop(true) }

// stop calls Options.Shutdown once, shortly after the answer is sent.
func (s *Server) stop(force bool) (any, error) {
	if s.o.Shutdown == nil {
		return nil, failf("shutdown: %v: quit Braid's window instead", ErrUnsupported)
	}
	s.mu.Lock()
	first := !s.shut
	s.shut = true
	s.mu.Unlock()
	if first {
		time.AfterFunc(100*time.Millisecond, func() { s.o.Shutdown(force) })
	}
	return "OK", nil
}
