package torrent

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/anacrolix/torrent/bencode"
	"github.com/anacrolix/torrent/metainfo"

	"braid/engine/metalink"
)

// ErrNoWebSeeds: a torrent's file is read by range from its web seeds
// (BEP 19), never from peers, and this torrent names none.
var ErrNoWebSeeds = errors.New("the torrent names no web seeds")

// MultiFileError: a torrent of several files where one was wanted.
type MultiFileError struct{ Files int }

func (e *MultiFileError) Error() string {
	return fmt.Sprintf("the torrent holds %d files, not one", e.Files)
}

// WebSeedFile is the one file of a one-file torrent as a metalink file:
// its name and size, its sha-1 piece hashes, and its http(s) web seeds
// as mirrors (a seed ending in a slash names the folder the file is in).
// That is how a torrent's archive is read by range, member by member. A
// spec without metadata (a magnet link's, before peers sent it) or with
// unreadable metadata wraps ErrNotTorrent; a torrent of several files is
// a *MultiFileError; one without an http(s) web seed is ErrNoWebSeeds.
func (s *Spec) WebSeedFile() (metalink.File, error) {
	if s.InfoBytes == nil {
		return metalink.File{}, fmt.Errorf("%w: its metadata is not known yet", ErrNotTorrent)
	}
	var info metainfo.Info
	if err := bencode.Unmarshal(s.InfoBytes, &info); err != nil {
		return metalink.File{}, fmt.Errorf("%w: its info dictionary does not read (%w)", ErrNotTorrent, err)
	}
	if info.IsDir() {
		return metalink.File{}, &MultiFileError{Files: len(info.Files)}
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
				return metalink.File{}, fmt.Errorf("%w: piece %d has no sha-1 hash", ErrNotTorrent, i)
			}
			p.Hashes = append(p.Hashes, hex.EncodeToString(h.Value[:]))
		}
		f.Pieces = p
	}
	for i, ws := range s.WebSeeds {
		u, err := url.Parse(strings.TrimSpace(ws))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		if strings.HasSuffix(u.Path, "/") {
			u = u.JoinPath(f.Name) // BEP 19: a folder the file is in
		}
		f.URLs = append(f.URLs, metalink.URL{URL: u.String(), Priority: i + 1})
	}
	if len(f.URLs) == 0 {
		return metalink.File{}, ErrNoWebSeeds
	}
	return f, nil
}
