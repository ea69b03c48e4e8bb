package torrent

import (
	"context"
	"errors"
	"fmt"

	"github.com/anacrolix/torrent"
	"github.com/anacrolix/torrent/bencode"
	"github.com/anacrolix/torrent/metainfo"
	"github.com/anacrolix/torrent/storage"
)

// FetchMetadata fetches a magnet link's metadata (its info dictionary)
// from the peers and trackers spec names, or those discovery finds, and
// returns a copy of spec with InfoBytes and Name set: what a picker needs
// to show the torrent's files before anything is downloaded. It waits
// until the metadata arrives or ctx ends. Nothing is written to disk: the
// torrent is added with a storage that holds no data, and dropped again.
// A spec that has its metadata already is returned as a copy.
func (c *Client) FetchMetadata(ctx context.Context, spec *Spec) (*Spec, error) {
	out := *spec
	if spec.InfoBytes != nil {
		return &out, nil
	}
	name := nameOr(spec.Name, spec)
	for {
		// Asked again each time round: the client may have closed.
		cl, err := c.client()
		if err != nil {
			return nil, err
		}
		ts := &torrent.TorrentSpec{
			Trackers:    spec.Trackers,
			DisplayName: spec.Name,
			PeerAddrs:   spec.Peers,
			Sources:     spec.Sources,
		}
		ts.InfoHash = spec.InfoHash
		ts.Storage = metadataOnly{}
		// The storage holds nothing: there is nothing to check.
		ts.DisableInitialPieceCheck = true
		t, isNew, err := cl.AddTorrentSpec(ts)
		if err != nil {
			return nil, fmt.Errorf("%s: fetch metadata: %w", name, err)
		}
		b, err := waitInfo(ctx, t, isNew)
		if errors.Is(err, errDroppedElsewhere) {
			// A job of the same torrent that was fetching its metadata
			// ended first: add it again, for ourselves this time.
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: fetch metadata: %w", name, err)
		}
		got, err := checkMetadata(b, spec.InfoHash)
		if err != nil {
			return nil, fmt.Errorf("%s: metadata from peers: %w", name, err)
		}
		out.InfoBytes, out.Name = b, got
		return &out, nil
	}
}

// errDroppedElsewhere: a torrent FetchMetadata did not add was dropped
// before its metadata arrived.
var errDroppedElsewhere = errors.New("the torrent was dropped by its job")

// waitInfo waits for t's metadata and returns its bytes. A torrent this
// call added (isNew) is dropped on return; one that was there already
// (a job running the same torrent) is left to its owner.
func waitInfo(ctx context.Context, t *torrent.Torrent, isNew bool) ([]byte, error) {
	if isNew {
		defer t.Drop()
	}
	select {
	case <-t.GotInfo():
		return t.Metainfo().InfoBytes, nil
	case <-t.Closed():
		if !isNew {
			return nil, errDroppedElsewhere
		}
		return nil, errors.New("the BitTorrent client closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// checkMetadata checks metadata from peers as a .torrent is checked (size,
// v1 hashes, safe paths) and against the info hash the link asked for,
// which anacrolix/torrent v1.59.1 does not do for a v1 magnet: it accepts
// an info dictionary of any hash. It returns the torrent's name.
func checkMetadata(b []byte, want metainfo.Hash) (string, error) {
	if len(b) == 0 {
		return "", errors.New("empty info dictionary")
	}
	if len(b) > MaxMetainfoSize {
		return "", fmt.Errorf("the metadata is larger than %d MiB", MaxMetainfoSize>>20)
	}
	if got := metainfo.HashBytes(b); got != want {
		return "", fmt.Errorf("the info dictionary's hash is %s, not the link's", got.HexString())
	}
	var info metainfo.Info
	if err := bencode.Unmarshal(b, &info); err != nil {
		return "", fmt.Errorf("%w: its info dictionary does not read (%w)", ErrNotTorrent, err)
	}
	if !info.HasV1() {
		return "", errors.New("a BitTorrent v2-only torrent is not supported (it needs v1 piece hashes)")
	}
	if _, err := layout(&info); err != nil {
		return "", err
	}
	return info.BestName(), nil
}

// metadataOnly is the storage of a torrent added only for its metadata:
// it holds no data, so its pieces are known to be missing (nothing to
// hash), reading one fails and writing one is refused.
type metadataOnly struct{}

func (metadataOnly) OpenTorrent(context.Context, *metainfo.Info, metainfo.Hash) (storage.TorrentImpl, error) {
	return storage.TorrentImpl{
		Piece: func(metainfo.Piece) storage.PieceImpl { return noPiece{} },
		Close: func() error { return nil },
	}, nil
}

// errNoData is what a metadata-only torrent's pieces answer.
var errNoData = errors.New("this torrent was added for its metadata only")

type noPiece struct{}

func (noPiece) ReadAt([]byte, int64) (int, error)  { return 0, errNoData }
func (noPiece) WriteAt([]byte, int64) (int, error) { return 0, errNoData }
func (noPiece) MarkComplete() error                { return errNoData }
func (noPiece) MarkNotComplete() error             { return nil }
func (noPiece) Completion() storage.Completion {
	return storage.Completion{Ok: true, Complete: false}
}

// Spec returns the job's spec with its metadata once the job has it (for
// a magnet link, once a peer sent it): nil before. Metadata from peers is
// checked as FetchMetadata checks it; an error says it is not the link's
// torrent (anacrolix/torrent v1.59.1 takes any for a v1 link), and the
// job should be stopped.
func (j *Job) Spec() (*Spec, error) {
	select {
	case <-j.t.GotInfo():
	default:
		return nil, nil
	}
	s := *j.req.Spec
	if s.InfoBytes != nil {
		return &s, nil
	}
	b := j.t.Metainfo().InfoBytes
	name, err := checkMetadata(b, s.InfoHash)
	if err != nil {
		return nil, fmt.Errorf("%s: metadata from peers: %w", nameOr(s.Name, &s), err)
	}
	s.InfoBytes, s.Name = b, name
	return &s, nil
}
