package main

import (
	"context"
	"net/http"

	sourcekind "braid/engine/source"
	"braid/engine/torrent"
)

// inspectTorrent is what a BitTorrent source says of itself.
type inspectTorrent struct {
	InfoHash string `json:"info_hash"` // lower-case hex (v1)
	Name     string `json:"name"`      // "" for a magnet link without dn=
	// Metadata: the files are known. A magnet link's arrive from peers
	// (braid get fetches them); until then files is empty.
	Metadata    bool     `json:"metadata"`
	PieceLength int64    `json:"piece_length"` // 0 without metadata
	Pieces      int      `json:"pieces"`       // sha-1 piece hashes; 0 without metadata
	Private     bool     `json:"private"`      // peers only from its trackers (BEP 27)
	Trackers    []string `json:"trackers"`     // by tier, flattened
	WebSeeds    []string `json:"web_seeds"`
	Peers       []string `json:"peers"` // a magnet's x.pe
}

// torrentReport reads a .torrent (a path or an http(s) URL) or a magnet
// link into a report: the files with their sizes, all selected, and the
// torrent's own facts; and the torrent as read, for its archive's
// listing.
func torrentReport(ctx context.Context, source string, hc *http.Client) (*inspectReport, *torrent.Spec, error) {
	spec, err := torrent.Resolve(ctx, source, hc)
	if err != nil {
		return nil, nil, err
	}
	shape, known, err := spec.Shape()
	if err != nil {
		return nil, nil, err
	}
	kind := "torrent_file"
	switch s := sourcekind.Of(source); {
	case s.Kind() == sourcekind.Magnet:
		kind = "magnet"
	case s.Scheme() == "http" || s.Scheme() == "https":
		kind = "torrent_url"
	}
	r := &inspectReport{
		Version: 1,
		Source:  source,
		Kind:    kind,
		// The language, OS and location filters are a metalink's: a
		// torrent's files are all selected.
		Prefs:    inspectSelection{Languages: []string{}, OS: []string{}, Locations: []string{}},
		Files:    []inspectFile{},
		Notes:    []string{},
		Rejected: []inspectRejected{},
		Warnings: []string{},
		Torrent: &inspectTorrent{
			InfoHash:    spec.InfoHash.HexString(),
			Name:        spec.Name,
			Metadata:    known,
			PieceLength: shape.PieceLength,
			Pieces:      shape.Pieces,
			Private:     shape.Private,
			Trackers:    []string{},
			WebSeeds:    inspectList(spec.WebSeeds),
			Peers:       inspectList(spec.Peers),
		},
	}
	for _, tier := range spec.Trackers {
		r.Torrent.Trackers = append(r.Torrent.Trackers, tier...)
	}
	if !known {
		return r, spec, nil
	}
	doc, err := torrent.Document(spec, source)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range doc.Files {
		r.Files = append(r.Files, inspectFile{
			Name:      f.Name,
			Size:      f.Size,
			Languages: []string{},
			OS:        []string{},
			Hashes:    []inspectHash{},
			Selected:  true,
			Mirrors:   []inspectMirror{},
			MetaURLs:  []inspectMetaURL{},
		})
	}
	r.Selected = len(r.Files)
	return r, spec, nil
}

// writeTorrentText prints a torrent's report for people.
func (r *inspectReport) writeTorrentText(pf func(string, ...any)) {
	t := r.Torrent
	pf("%-10s %s\n", "source", inspectClean(r.Source))
	what := "BitTorrent (.torrent)"
	if r.Kind == "magnet" {
		what = "BitTorrent magnet link"
	}
	pf("%-10s %s, info hash %s\n", "format", what, t.InfoHash)
	if t.Name != "" {
		pf("%-10s %s\n", "name", inspectClean(t.Name))
	}
	list := func(label string, items []string, none string) {
		if len(items) == 0 {
			pf("%-10s %s\n", label, none)
		}
		for i, it := range items {
			if i > 0 {
				label = ""
			}
			pf("%-10s %s\n", label, inspectClean(it))
		}
	}
	list("trackers", t.Trackers, "none: peers come from the DHT and peer exchange")
	list("web seeds", t.WebSeeds, "none")
	if len(t.Peers) > 0 {
		list("peers", t.Peers, "")
	}
	if t.Private {
		pf("%-10s private: peers only from its trackers\n", "access")
	}
	if !t.Metadata {
		pf("%-10s not known yet: a magnet link's files come with its metadata from peers (braid get fetches it)\n", "files")
		return
	}
	pf("%-10s %d of %s (sha-1): every byte is checked against them\n", "pieces", t.Pieces, byteText(t.PieceLength))
	var total int64
	for _, f := range r.Files {
		total += f.Size
	}
	pf("%-10s %d, %s in all\n", "files", len(r.Files), byteText(total))
	for _, f := range r.Files {
		pf("\n[x] %s\n    %-10s %d bytes (%s)\n", inspectClean(f.Name), "size", f.Size, byteText(f.Size))
	}
}
