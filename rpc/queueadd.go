package rpc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"

	"braid/engine/metalink"
	"braid/engine/torrent"
	"braid/runner"
)

// addTorrent, addMetalink and a .torrent or magnet given to addUri take
// aria2's per-download options as far as they mean something for them:
//
//   - dir, pause and referer, for both (the referer is kept as the job's
//     origin; a metalink's HTTP mirrors are sent it);
//   - out, for a metalink of one file (a torrent's files keep the
//     torrent's names);
//   - header and user-agent: a metalink's job keeps them, like addUri's,
//     for the hosts of its mirrors (queue.NewJob.Net: the values stay out
//     of state.db). A .torrent link is read with them (a tracker's site
//     behind a login), and they are not kept: peers need no cookie. Given
//     with a .torrent's bytes they are refused, since Braid's one
//     BitTorrent client sends no per-download headers to web seeds.

// refuseTorrentHeaders refuses headers and a user agent that a torrent
// job would drop: taking them and dropping them would fetch a login page
// from a web seed instead of the file.
func refuseTorrentHeaders(o AddOptions) error {
	if len(o.Headers) > 0 {
		return fmt.Errorf("the header option for a torrent: %w (its web seeds get no headers of their own; a .torrent link given to addUri is read with them)", ErrUnsupported)
	}
	if o.UserAgent != "" {
		return fmt.Errorf("the user-agent option for a torrent: %w (its web seeds get Braid's; a .torrent link given to addUri is read with it)", ErrUnsupported)
	}
	if o.AllProxy != "" {
		return errTorrentProxy
	}
	if o.HTTPUser != "" || o.FTPUser != "" {
		return fmt.Errorf("a login (http-user, ftp-user) for a torrent: %w (its web seeds get none; a .torrent link given to addUri is read with it)", ErrUnsupported)
	}
	return nil
}

// errTorrentProxy refuses aria2's all-proxy for a torrent: Braid's one
// BitTorrent client reaches peers and web seeds through Braid's own proxy
// setting, and a download the client meant for a proxy must not go past it.
var errTorrentProxy = fmt.Errorf("the all-proxy option for a torrent: %w (its peers and web seeds go through the proxy set in Braid's settings)", ErrUnsupported)

// AddTorrent implements Downloads.
func (a *QueueDownloads) AddTorrent(ctx context.Context, b []byte, webSeeds []string, o AddOptions) (int64, error) {
	if err := refuseTorrentHeaders(o); err != nil {
		return 0, err
	}
	if o.Out != "" {
		return 0, errTorrentOut
	}
	dest, err := a.destination(o.Dir)
	if err != nil {
		return 0, err
	}
	spec, err := torrent.ParseMetainfo(b)
	if err != nil {
		return 0, fmt.Errorf("read the torrent: %w", err)
	}
	source := "magnet:?xt=urn:btih:" + spec.InfoHash.HexString()
	if spec.Name != "" {
		source += "&dn=" + url.QueryEscape(spec.Name)
	}
	return a.add(ctx, source, dest, o, runner.AddOptions{Spec: spec, Mirrors: webSeeds})
}

// AddMetalink implements Downloads: every file of the document, in one job.
func (a *QueueDownloads) AddMetalink(ctx context.Context, b []byte, o AddOptions) ([]int64, error) {
	dest, err := a.destination(o.Dir)
	if err != nil {
		return nil, err
	}
	doc, err := metalink.Parse(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("read the metalink: %w", err)
	}
	sum := sha256.Sum256(b)
	source := "rpc://metalink/" + hex.EncodeToString(sum[:8])
	if u, err := url.Parse(doc.Origin); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		source = doc.Origin
	}
	// The headers go to the hosts of the document's mirrors (and of
	// its origin, which a dynamic metalink is read from again).
	var links []string
	if source == doc.Origin {
		links = append(links, source)
	}
	for _, f := range doc.Files {
		for _, u := range f.URLs {
			links = append(links, u.URL)
		}
	}
	id, err := a.add(ctx, source, dest, o, runner.AddOptions{Doc: doc, Net: netOf(links, o)})
	if err != nil {
		return nil, err
	}
	return []int64{id}, nil
}
