package rpc

import (
	"context"
	"encoding/hex"
	"strconv"
	"strings"

	"braid/engine/torrent"
)

// PeerLister is an optional power of a Downloads: the peers of the
// torrent a download runs or seeds now, for aria2.getPeers.
// QueueDownloads has it when its Live has TorrentPeers (the runner).
type PeerLister interface {
	// Peers returns the peers of download id's torrent now; false when
	// it runs no torrent now.
	Peers(id int64) ([]torrent.Peer, bool)
}

// TorrentPeers is an optional power of a LiveDownloads: the peers of the
// torrent a job runs now; runner.Runner has it.
type TorrentPeers interface {
	TorrentPeers(id int64) ([]torrent.Peer, bool)
}

// Peers is PeerLister over the runner that runs the queue.
func (d *QueueDownloads) Peers(id int64) ([]torrent.Peer, bool) {
	if tp, ok := d.Live.(TorrentPeers); ok {
		return tp.TorrentPeers(id)
	}
	return nil, false
}

// getPeers answers aria2.getPeers: the peers of a BitTorrent download
// that runs or seeds now, in aria2's shape (every value a string); an
// empty list for any other download, as aria2 answers. Braid adds what
// aria2 does not say: the peer's program, how it was found, and whether
// the choke flags were read (anacrolix/torrent gives them only in its
// status text; when it did not name the peer they are reported as the
// protocol's starting state, choked both ways, with braidFlagsKnown
// "false").
func (s *Server) getPeers(_ context.Context, p params) (any, error) {
	gid, err := s.gidParam(p)
	if err != nil {
		return nil, err
	}
	if _, err := s.job(gid, Want{}); err != nil {
		return nil, err
	}
	out := []map[string]string{}
	pl, ok := s.d.(PeerLister)
	if !ok {
		return out, nil
	}
	id, _, err := parseGID(gid)
	if err != nil {
		return nil, err
	}
	peers, _ := pl.Peers(id)
	for _, pe := range peers {
		amChoking, peerChoking := pe.AmChoking, pe.PeerChoking
		if !pe.Flags {
			amChoking, peerChoking = true, true
		}
		out = append(out, map[string]string{
			"peerId":          percentEncode(pe.ID[:]),
			"ip":              pe.IP,
			"port":            strconv.Itoa(pe.Port),
			"bitfield":        hex.EncodeToString(pe.Bitfield),
			"amChoking":       strconv.FormatBool(amChoking),
			"peerChoking":     strconv.FormatBool(peerChoking),
			"downloadSpeed":   itoa(int64(pe.DownRate)),
			"uploadSpeed":     itoa(int64(pe.UpRate)),
			"seeder":          strconv.FormatBool(pe.Seeder),
			"braidClient":     pe.Client,
			"braidSource":     pe.Source,
			"braidFlagsKnown": strconv.FormatBool(pe.Flags),
		})
	}
	return out, nil
}

// percentEncode writes b as aria2 writes a peer ID: every byte outside
// RFC 3986's unreserved characters as %XX (upper-case hex).
func percentEncode(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			sb.WriteByte(c)
			continue
		}
		sb.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
	}
	return sb.String()
}
