package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"braid/engine/metalink"
	sourcekind "braid/engine/source"
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
	if sourcekind.Of(source).Kind() == sourcekind.Magnet {
		return metalink.File{}, errors.New("a magnet link's files are known only once peers send its metadata: give the .torrent, or download the whole torrent")
	}
	spec, err := torrent.Resolve(ctx, source, hc)
	if err != nil {
		return metalink.File{}, err
	}
	return webSeedArchive(spec)
}

// webSeedArchive is torrentArchive of a torrent already read.
func webSeedArchive(spec *torrent.Spec) (metalink.File, error) {
	f, err := spec.WebSeedFile()
	var multi *torrent.MultiFileError
	switch {
	case errors.As(err, &multi):
		return metalink.File{}, fmt.Errorf("the torrent holds %d files: --member reads the members of a torrent of one archive (a ZIP, or a tar with an eStargz index)", multi.Files)
	case errors.Is(err, torrent.ErrNoWebSeeds):
		return metalink.File{}, errTorrentNoWebSeeds
	}
	return f, err
}

// torrentZipListing lists the members of the ZIP archive a torrent of one
// file holds, from its web seeds, by whole pieces checked against the
// torrent's sha-1 hashes.
func torrentZipListing(ctx context.Context, spec *torrent.Spec, via reach) *inspectArchive {
	f, err := webSeedArchive(spec)
	if err != nil {
		return &inspectArchive{Format: "zip", Members: []inspectMember{}, Error: err.Error()}
	}
	return zipListingMirrors(ctx, f, via)
}
