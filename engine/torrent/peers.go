package torrent

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/anacrolix/torrent"
)

// Peer is one peer connection of a torrent at one moment, as a peers
// list shows it. It is a copy the caller owns.
type Peer struct {
	Addr string // host:port as connected
	IP   string
	Port int
	// ID is the peer's BitTorrent peer ID (20 bytes, often not text).
	ID [20]byte
	// Client is the peer's program: the name it gave in its extended
	// handshake, else read from its peer ID's prefix; "" when unknown.
	Client string
	// Source says how the peer was found: "tracker", "incoming", "DHT",
	// "PEX", "direct" (given by the link or the caller), or "".
	Source string
	// Flags tells whether the choke and interest flags below were read:
	// anacrolix/torrent v1.59.1 exports them only in its status text
	// (Client.WriteStatus), which Peers reads; false when that text did
	// not name this peer (it connected or closed in between).
	Flags bool
	// AmInterested: we want pieces it has; AmChoking: we refuse its
	// requests. PeerInterested and PeerChoking are the same from its side.
	AmInterested, AmChoking     bool
	PeerInterested, PeerChoking bool
	// Encrypted: the connection uses MSE/PE (header or full RC4);
	// UTP: it runs over uTP rather than TCP. Read with Flags.
	Encrypted, UTP bool
	// DownRate and UpRate are bytes per second over the last five
	// seconds, measured with the torrent's Snapshot.Speed and UpSpeed
	// (rates.go): the peers' rates add up to the torrent's.
	DownRate, UpRate float64
	// Downloaded and Uploaded are the piece bytes received (useful ones)
	// and sent on this connection.
	Downloaded, Uploaded int64
	// Pieces is how many pieces the peer says it has, of NumPieces;
	// Bitfield is which, as BEP 3 sends it (first piece in the high bit
	// of the first byte); nil before the torrent's metadata is known.
	Pieces, NumPieces int
	Bitfield          []byte
	Seeder            bool // it has every piece
}

// Progress is the share of the torrent the peer has, in [0, 1].
func (p Peer) Progress() float64 {
	if p.NumPieces <= 0 {
		return 0
	}
	return min(1, float64(p.Pieces)/float64(p.NumPieces))
}

// Peers returns the torrent's peer connections now, ordered by address.
// It is built when called (nothing is gathered in between), so a torrent
// nobody looks at costs nothing more; a call costs one pass over the
// client's status text.
func (j *Job) Peers() []Peer {
	conns := j.t.PeerConns()
	if len(conns) == 0 {
		return nil
	}
	r := j.rates()
	status := j.status()
	n := 0
	if info := j.t.Info(); info != nil {
		n = info.NumPieces()
	}
	// The library keeps its interest once it has shown it (requesting.go
	// :339), so a seeding torrent's peers still read "interested"; a
	// torrent that wants nothing more is not.
	j.mu.Lock()
	wants := j.phase != PhaseSeeding && j.phase != PhaseDone
	j.mu.Unlock()
	out := make([]Peer, 0, len(conns))
	for _, pc := range conns {
		st := pc.Stats()
		p := Peer{
			ID:         pc.PeerID,
			Source:     sourceName(pc.Discovery),
			Downloaded: st.BytesReadUsefulData.Int64(),
			Uploaded:   st.BytesWrittenData.Int64(),
			Pieces:     st.RemotePieceCount,
			NumPieces:  n,
		}
		if pc.RemoteAddr != nil {
			p.Addr = pc.RemoteAddr.String()
			if host, port, err := net.SplitHostPort(p.Addr); err == nil {
				p.IP = host
				p.Port, _ = strconv.Atoi(port)
			}
		}
		if v, ok := pc.PeerClientName.Load().(string); ok && v != "" {
			p.Client = v
		} else {
			p.Client = ClientFromPeerID(p.ID)
		}
		// The torrent's one measurement: a peer connected since the
		// last sample shows no rate until the next.
		rate := r.conns[&pc.Peer]
		p.DownRate, p.UpRate = rate.down, rate.up
		if n > 0 {
			p.Bitfield = make([]byte, (n+7)/8)
			it := pc.PeerPieces().Iterator()
			for it.HasNext() {
				i := int(it.Next())
				if i >= n {
					break
				}
				p.Bitfield[i/8] |= 0x80 >> (i % 8)
			}
			p.Seeder = p.Pieces >= n
		}
		if f, ok := status.peers[peerIDText(p.ID)]; ok {
			p.Flags = true
			p.AmInterested = wants && strings.Contains(f.ours, "i")
			p.AmChoking = strings.Contains(f.ours, "c")
			p.PeerInterested = strings.Contains(f.theirs, "i")
			p.PeerChoking = strings.Contains(f.theirs, "c")
			for _, c := range strings.Split(f.conn, ",") {
				switch c {
				case "E", "e":
					p.Encrypted = true
				case "U":
					p.UTP = true
				}
			}
		}
		out = append(out, p)
	}
	sortPeers(out)
	return out
}

func sortPeers(ps []Peer) {
	for i := 1; i < len(ps); i++ {
		for k := i; k > 0 && ps[k].Addr < ps[k-1].Addr; k-- {
			ps[k], ps[k-1] = ps[k-1], ps[k]
		}
	}
}

// How a peer was found (Peer.Source).
const (
	SourceTracker  = "tracker"
	SourceIncoming = "incoming" // it connected to us
	SourceDHT      = "DHT"
	SourcePEX      = "PEX"
	SourceDirect   = "direct" // given by the link or the caller
)

// sourceName says in a word how a peer was found.
func sourceName(s torrent.PeerSource) string {
	switch s {
	case torrent.PeerSourceTracker:
		return SourceTracker
	case torrent.PeerSourceIncoming:
		return SourceIncoming
	case torrent.PeerSourceDhtGetPeers, torrent.PeerSourceDhtAnnouncePeer:
		return SourceDHT
	case torrent.PeerSourcePex:
		return SourcePEX
	case torrent.PeerSourceDirect:
		return SourceDirect
	}
	return ""
}

// TrackerStatus is where a tracker of a torrent stands.
type TrackerStatus uint8

const (
	// TrackerNotContacted: no announce has finished yet.
	TrackerNotContacted TrackerStatus = iota
	// TrackerWorking: the last announce was answered.
	TrackerWorking
	// TrackerFailed: the last announce failed; Tracker.Err says why.
	TrackerFailed
	// TrackerDisabled: trackers are off (Braid's peer discovery
	// setting), so this one is never asked.
	TrackerDisabled
	// TrackerUnknown: the library keeps no status for this kind of
	// tracker (WebSocket trackers), or the torrent has stopped.
	TrackerUnknown
)

var trackerStatusNames = [...]string{"not contacted", "working", "failed", "disabled", "unknown"}

func (s TrackerStatus) String() string {
	if int(s) < len(trackerStatusNames) {
		return trackerStatusNames[s]
	}
	return "unknown"
}

// Tracker is one tracker of a torrent at one moment. anacrolix/torrent
// v1.59.1 keeps, per tracker, only the last announce's error, its number
// of peers, when it finished and the interval: seeders and leechers
// (complete, incomplete) are read from the answer and dropped, so
// Tracker has no such counts.
type Tracker struct {
	URL  string
	Tier int // 0 first, as the torrent's announce-list orders them
	// Status and Err (for TrackerFailed, the library's words).
	Status TrackerStatus
	Err    string
	// Peers is how many peers its last answer gave; -1 when not known.
	Peers int
	// NextAnnounce is how long until the next announce; 0 any time now;
	// -1 when not known.
	NextAnnounce time.Duration
}

// Trackers returns the torrent's trackers, in the announce-list's order,
// with what the library knows of each. Like Peers it is built only when
// called.
func (j *Job) Trackers() []Tracker {
	var out []Tracker
	have := map[string]bool{}
	for tier, urls := range j.req.Spec.Trackers {
		for _, u := range urls {
			if u == "" || have[u] {
				continue
			}
			have[u] = true
			out = append(out, Tracker{URL: u, Tier: tier, Peers: -1, NextAnnounce: -1})
		}
	}
	if len(out) == 0 {
		return nil
	}
	if !j.c.cfg.Trackers {
		for i := range out {
			out[i].Status = TrackerDisabled
		}
		return out
	}
	select {
	case <-j.done:
		for i := range out {
			out[i].Status = TrackerUnknown
		}
		return out
	default:
	}
	status := j.status()
	for i := range out {
		tr := &out[i]
		line, ok := status.trackers[tr.URL]
		if !ok {
			tr.Status = TrackerUnknown
			continue
		}
		switch {
		case line.next == "anytime":
			tr.NextAnnounce = 0
		default:
			if d, err := time.ParseDuration(line.next); err == nil {
				tr.NextAnnounce = d
			}
		}
		switch last := line.last; {
		case last == "never":
			tr.Status = TrackerNotContacted
		case peersAnswer.MatchString(last):
			tr.Status = TrackerWorking
			tr.Peers, _ = strconv.Atoi(peersAnswer.FindStringSubmatch(last)[1])
		default:
			tr.Status, tr.Err = TrackerFailed, last
		}
	}
	return out
}

var peersAnswer = regexp.MustCompile(`^(\d+) peers$`)

// torrentStatus is what the library's status text says of one torrent:
// each peer's flags by its quoted peer ID, each tracker's status line by
// its URL.
type torrentStatus struct {
	peers    map[string]peerFlags
	trackers map[string]trackerLine
}

type peerFlags struct{ ours, conn, theirs string }

type trackerLine struct{ next, last string }

var (
	trackerRow = regexp.MustCompile(`^\s+("(?:[^"\\]|\\.)*")\s+next ann: ([^,]*), last ann: (.*)$`)
	flagsRow   = regexp.MustCompile(`flags: ([a-z]*):([^:]*):([a-z]*)\s*$`)
)

// status reads the client's status text for this torrent. It is the one
// place anacrolix/torrent v1.59.1 says which peers are choked or
// interested and how its trackers' announces went; the text is made
// under the client's read lock, once per call.
func (j *Job) status() torrentStatus {
	s := torrentStatus{peers: map[string]peerFlags{}, trackers: map[string]trackerLine{}}
	j.c.mu.Lock()
	cl := j.c.cl
	j.c.mu.Unlock()
	if cl == nil {
		return s
	}
	var buf bytes.Buffer
	cl.WriteStatus(&buf)
	parseStatus(buf.Bytes(), j.t.InfoHash().HexString(), &s)
	return s
}

// parseStatus picks the section of the torrent with infohash (hex) out
// of Client.WriteStatus's text.
func parseStatus(text []byte, infohash string, s *torrentStatus) {
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	in, trackers := false, false
	peerID := ""
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "Infohash: "); ok {
			in = rest == infohash
			trackers, peerID = false, ""
			continue
		}
		if !in {
			continue
		}
		switch {
		case line == "Enabled trackers:":
			trackers = true
			continue
		case strings.HasPrefix(line, "DHT Announces:"):
			trackers = false
			continue
		}
		if trackers {
			if m := trackerRow.FindStringSubmatch(line); m != nil {
				if u, err := strconv.Unquote(m[1]); err == nil {
					s.trackers[u] = trackerLine{next: m[2], last: m[3]}
				}
			}
			continue
		}
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "peer id: "); ok {
			peerID = rest
			continue
		}
		if peerID != "" && strings.Contains(line, "reqq: ") {
			if m := flagsRow.FindStringSubmatch(line); m != nil {
				s.peers[peerID] = peerFlags{ours: m[1], conn: m[2], theirs: m[3]}
			}
			peerID = ""
		}
	}
}

// peerIDText is a peer ID as the status text quotes it.
func peerIDText(id [20]byte) string { return fmt.Sprintf("%+q", torrent.PeerID(id)) }

// azureus names the programs of Azureus-style peer IDs ("-TR3000-").
var azureus = map[string]string{
	"AZ": "Vuze", "BC": "BitComet", "BT": "BitTorrent", "DE": "Deluge",
	"FD": "Free Download Manager", "GT": "anacrolix/torrent", "KT": "KTorrent",
	"LT": "libtorrent", "lt": "libtorrent (Rakshasa)", "qB": "qBittorrent",
	"TR": "Transmission", "UT": "µTorrent", "UM": "µTorrent Mac", "UW": "µTorrent Web",
	"WW": "WebTorrent", "BI": "BiglyBT", "TX": "Tixati", "FW": "FrostWire",
	"XL": "Xunlei", "SD": "Thunder", "PI": "PicoTorrent", "BR": "BitRocket",
}

// ClientFromPeerID names the program a peer ID's prefix stands for, with
// its version where the prefix gives one; "" when it is not one Braid
// knows.
func ClientFromPeerID(id [20]byte) string {
	if id[0] == '-' && id[7] == '-' {
		name, ok := azureus[string(id[1:3])]
		if !ok {
			return ""
		}
		v := id[3:7]
		for _, c := range v {
			if !isVersionChar(c) {
				return name
			}
		}
		return name + " " + azureusVersion(string(id[1:3]), string(v))
	}
	if bytes.HasPrefix(id[:], []byte("A2-")) {
		// aria2: "A2-1-37-0-"
		parts := strings.SplitN(string(id[3:]), "-", 4)
		if len(parts) >= 3 {
			return "aria2 " + parts[0] + "." + parts[1] + "." + parts[2]
		}
		return "aria2"
	}
	if id[0] == 'M' && id[2] == '-' {
		return "BitTorrent (mainline)"
	}
	return ""
}

func isVersionChar(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// azureusVersion reads the four version characters the way most clients
// write them: digits, with letters for 10 and up ("3000" 3.0.0.0); for
// Transmission "3000" is 3.00 and "4040" 4.04.
func azureusVersion(client, v string) string {
	digit := func(c byte) int {
		switch {
		case c >= '0' && c <= '9':
			return int(c - '0')
		case c >= 'A' && c <= 'Z':
			return int(c-'A') + 10
		case c >= 'a' && c <= 'z':
			return int(c-'a') + 36
		}
		return 0
	}
	if client == "TR" {
		return fmt.Sprintf("%d.%02d", digit(v[0]), digit(v[1])*10+digit(v[2]))
	}
	out := fmt.Sprintf("%d.%d.%d", digit(v[0]), digit(v[1]), digit(v[2]))
	if v[3] != '0' {
		out += fmt.Sprintf(".%d", digit(v[3]))
	}
	return out
}
