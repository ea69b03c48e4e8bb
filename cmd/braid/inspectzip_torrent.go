package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/anacrolix/torrent/bencode"
	"github.com/anacrolix/torrent/metainfo"

	"braid/engine/metalink"
	"braid/engine/torrent"
)

// errTorrentNoWebSeeds: a torrent's archive is read by range from its web
// seeds; peers send whole pieces to a swarm client, not ranges to a reader.
var errTorrentNoWebSeeds = errors.New("the torrent names no web seeds (HTTP mirrors): Braid reads a torrent's archive members by range from its web seeds, not from peers; download the whole torrent instead")

// torrentArchive describes the one file of the torrent at source (a
// .torrent path or http(s) URL) as a metalink file whose mirrors are its
// web seeds (BEP 19) and whose pieces are the torrent's sha-1 pieces, so
// that engine.Ranges reads its members from every web seed at once, each
// piece checked. A magnet link, a torrent of several files and one with no
// web seed are refused in a sentence. hc, when not nil, fetches a
// .torrent URL.
func torrentArchive(ctx context.Context, source string, hc *http.Client) (metalink.File, error) {
	if strings.HasPrefix(strings.ToLower(source), "magnet:") {
		return metalink.File{}, errors.New("a magnet link's files are known only once peers send its metadata: give the .torrent, or download the whole torrent")
	}
	spec, err := torrent.Resolve(ctx, source, hc)
	if err != nil {
		return metalink.File{}, err
	}
	var info metainfo.Info
	if err := bencode.Unmarshal(spec.InfoBytes, &info); err != nil {
		return metalink.File{}, fmt.Errorf("%w: its info dictionary does not read (%w)", torrent.ErrNotTorrent, err)
	}
	if info.IsDir() {
		return metalink.File{}, fmt.Errorf("the torrent holds %d files: --member reads the members of a torrent of one archive (a ZIP, or a tar with an eStargz index)", len(info.Files))
	}
	f := metalink.File{Name: info.BestName(), Size: info.Length}
	if err := metalink.SafeName(f.Name); err != nil {
		return metalink.File{}, fmt.Errorf("%s: %w", f.Name, err)
	}
	if n := info.NumPieces(); n > 0 && info.PieceLength > 0 {
		p := &metalink.Pieces{Type: "sha-1", Length: info.PieceLength, Hashes: make([]string, 0, n)}
		for i := range n {
			h := info.Piece(i).V1Hash()
			if !h.Ok {
				return metalink.File{}, fmt.Errorf("%w: piece %d has no sha-1 hash", torrent.ErrNotTorrent, i)
			}
			p.Hashes = append(p.Hashes, hex.EncodeToString(h.Value[:]))
		}
		f.Pieces = p
	}
	for i, ws := range spec.WebSeeds {
		u, err := url.Parse(strings.TrimSpace(ws))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		// BEP 19: a URL ending in a slash names a folder the file is in.
		if strings.HasSuffix(u.Path, "/") {
			u = u.JoinPath(f.Name)
		}
		f.URLs = append(f.URLs, metalink.URL{URL: u.String(), Priority: i + 1})
	}
	if len(f.URLs) == 0 {
		return metalink.File{}, errTorrentNoWebSeeds
	}
	return f, nil
}

// torrentZipListing lists the members of the ZIP archive a torrent of one
// file holds, from its web seeds, by whole pieces checked against the
// torrent's sha-1 hashes.
func torrentZipListing(ctx context.Context, source string, hc *http.Client) *inspectArchive {
	f, err := torrentArchive(ctx, source, hc)
	if err != nil {
		return &inspectArchive{Format: "zip", Members: []inspectMember{}, Error: err.Error()}
	}
	return zipListingMirrors(ctx, f, hc)
}
