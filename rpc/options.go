package rpc

import (
	"context"
	"path/filepath"
	"strconv"
)

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
