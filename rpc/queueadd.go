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
	"braid/queue"
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
//     for the hosts of its mirrors (queue.AddWithNet: the values stay out
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
	return nil
}

// addTorrentURI adds the .torrent link or magnet uris[0], the rest of
// uris being web seeds; the link is read with o's headers and user agent.
func (a *QueueDownloads) addTorrentURI(ctx context.Context, uris []string, dest string, o AddOptions) (int64, error) {
	first := uris[0]
	if u, err := url.Parse(first); !torrent.IsSource(first) || err != nil ||
		(u.Scheme != "magnet" && u.Scheme != "http" && u.Scheme != "https") {
		// torrent.Resolve would read anything else as a local file.
		return 0, fmt.Errorf("the .torrent %s: %w: give its http or https link, or send it with addTorrent", queue.Redact(first), ErrUnsupported)
	}
	hc := a.HTTPClient
	if len(o.Headers) > 0 || o.UserAgent != "" {
		_, ss, err := netOf(uris[:1], o)
		if err != nil {
			return 0, err
		}
		hc = ss.Client(a.HTTPClient)
	}
	spec, err := torrent.Resolve(ctx, first, hc)
	if err != nil {
		return 0, fmt.Errorf("read the torrent %s: %w", queue.Redact(first), err)
	}
	spec.WebSeeds = append(spec.WebSeeds, uris[1:]...)
	return a.addTorrent(spec, first, dest, o)
}

// AddTorrent implements Downloads.
func (a *QueueDownloads) AddTorrent(ctx context.Context, b []byte, webSeeds []string, o AddOptions) (int64, error) {
	if err := refuseTorrentHeaders(o); err != nil {
		return 0, err
	}
	dest, err := a.destination(o.Dir)
	if err != nil {
		return 0, err
	}
	spec, err := torrent.ParseMetainfo(b)
	if err != nil {
		return 0, fmt.Errorf("read the torrent: %w", err)
	}
	spec.WebSeeds = append(spec.WebSeeds, webSeeds...)
	source := "magnet:?xt=urn:btih:" + spec.InfoHash.HexString()
	if spec.Name != "" {
		source += "&dn=" + url.QueryEscape(spec.Name)
	}
	return a.addTorrent(spec, source, dest, o)
}

// addTorrent adds a torrent job and stores its torrent with it, so no run
// reads the source again.
func (a *QueueDownloads) addTorrent(spec *torrent.Spec, source, dest string, o AddOptions) (int64, error) {
	if o.Out != "" {
		return 0, fmt.Errorf("the out option for a torrent: %w (its files keep the torrent's names)", ErrUnsupported)
	}
	doc, err := torrent.Document(spec, source)
	if err != nil {
		return 0, fmt.Errorf("read the torrent: %w", err)
	}
	doc.Origin = source
	id, err := a.Queue.Add(queue.NewJob{Source: source, Dest: dest, Doc: doc, Origin: queue.Origin{Referer: o.Referer}})
	if err != nil {
		return 0, err
	}
	if err := a.Queue.SetTorrentSpec(id, spec); err != nil {
		_ = a.Queue.Remove(id)
		return 0, err
	}
	return id, a.started(id, o)
}

// AddMetalink implements Downloads: every file of the document, in one job.
func (a *QueueDownloads) AddMetalink(_ context.Context, b []byte, o AddOptions) ([]int64, error) {
	dest, err := a.destination(o.Dir)
	if err != nil {
		return nil, err
	}
	doc, err := metalink.Parse(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("read the metalink: %w", err)
	}
	if err := rename(doc, o.Out); err != nil {
		return nil, err
	}
	if o.Dir == "" {
		dest = runner.SortDoc(a.Queue, dest, doc, nil) // its category's folder, as in the window
	}
	sum := sha256.Sum256(b)
	source := "rpc://metalink/" + hex.EncodeToString(sum[:8])
	if u, err := url.Parse(doc.Origin); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		source = doc.Origin
	}
	origin := queue.Origin{Referer: o.Referer}
	if len(o.Headers) == 0 && o.UserAgent == "" {
		id, err := a.Queue.Add(queue.NewJob{Source: source, Dest: dest, Doc: doc, Origin: origin})
		if err != nil {
			return nil, err
		}
		return []int64{id}, a.started(id, o)
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
	net, _, err := netOf(links, o)
	if err != nil {
		return nil, err
	}
	id, note, err := a.Queue.AddWithNet(queue.NewJob{Source: source, Dest: dest, Doc: doc, Origin: origin, Paused: o.Pause}, net)
	if err != nil {
		return nil, err
	}
	if note != "" && a.Note != nil {
		a.Note(note)
	}
	if !o.Pause && a.Wake != nil {
		a.Wake()
	}
	return []int64{id}, nil
}

// Add first, reach later, as aria2 does and as the window's "Add links"
// does (ui/bridge AddUnread): addUri of a link that cannot be read now
// answers a GID all the same. A link whose server cannot be reached is
// a waiting job that tries again; any other failure (404, a login
// refused) is a failed job whose reason the client reads in tellStatus
// (errorCode, errorMessage) after an onDownloadError. Either way the
// download is listed, so a web front end shows a row that lasts.

// unreadDoc is the document of a plain link that could not be read: one
// file named after the link, of a size not known yet, with the link as
// its mirror (runner.UnreachedFile). A link to a metalink or a torrent
// has none (false): its file would be the document itself, so such a
// link is refused as before.
func unreadDoc(link string) (*metalink.Document, bool) {
	f, ok := runner.UnreachedFile(link)
	if !ok {
		return nil, false
	}
	return &metalink.Document{Version: 4, Files: []metalink.File{f}}, true
}

// failAdded fails new job id, added paused so that no runner took it,
// with cause, the reason its link could not be read; its own speed limit
// is kept for when the user tries it again.
func (a *QueueDownloads) failAdded(id int64, o AddOptions, cause error) (int64, error) {
	if err := a.limitNew(id, o); err != nil {
		_ = a.Queue.Remove(id)
		return 0, err
	}
	if err := a.Queue.Fail(id, cause); err != nil {
		_ = a.Queue.Remove(id)
		return 0, mapErr(err)
	}
	return id, nil
}
