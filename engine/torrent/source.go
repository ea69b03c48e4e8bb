package torrent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"

	"github.com/anacrolix/torrent/bencode"
	"github.com/anacrolix/torrent/metainfo"

	"braid/engine/metalink"
	"braid/engine/transport"
)

// MaxMetainfoSize bounds a .torrent read from a file or a URL. The library
// bounds metadata fetched from peers for a magnet link the same way.
const MaxMetainfoSize = 16 << 20

// ErrNotTorrent is wrapped when a source is not BitTorrent at all.
var ErrNotTorrent = errors.New("this is not a .torrent file")

// Spec is a BitTorrent source made ready to add: a .torrent's metainfo or
// a magnet link's info hash, and what else the source said about where to
// find the data.
type Spec struct {
	// Name is the torrent's name, or the magnet's display name (possibly
	// empty) until the metadata arrives.
	Name     string
	InfoHash metainfo.Hash
	// InfoBytes is the bencoded info dictionary; nil for a magnet link,
	// whose metadata is fetched from peers first.
	InfoBytes []byte
	Trackers  [][]string
	// WebSeeds are BEP 19 web seed URLs (url-list, ws=, a metalink's HTTP
	// mirrors); they are normalised once the torrent's layout is known.
	WebSeeds []string
	// Peers are peer addresses (host:port) to connect to directly: a
	// magnet's x.pe. They are trusted: a bad piece from one does not ban
	// its address.
	Peers []string
	// Sources are URLs of the .torrent (a magnet's xs and as).
	Sources []string
	// Only, when set, names the files to download (a metalink's metaurl
	// names one file of a larger torrent); the others are left out.
	Only []string
	// Hashes are whole-file hashes by file name, from a metalink: a file
	// must match them as well as the torrent's piece hashes.
	Hashes map[string][]metalink.Hash
}

// Resolve reads a BitTorrent source: a magnet link, a local .torrent file
// or the http(s) URL of one (read through client; nil: http.DefaultClient).
// Its errors do not name src: the caller says which source it read.
func Resolve(ctx context.Context, src string, client *http.Client) (*Spec, error) {
	if strings.HasPrefix(strings.ToLower(src), "magnet:") {
		return ParseMagnet(src)
	}
	b, err := readMetainfo(ctx, src, client)
	if err != nil {
		return nil, err
	}
	return ParseMetainfo(b)
}

// readMetainfo reads at most MaxMetainfoSize bytes of a .torrent.
func readMetainfo(ctx context.Context, src string, client *http.Client) ([]byte, error) {
	var r io.Reader
	if u, err := url.Parse(src); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		if client == nil {
			client = http.DefaultClient
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req)
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err // without the URL, which the caller names
		}
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, transport.ResponseError(resp)
		}
		r = resp.Body
	} else {
		f, err := os.Open(src)
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err // without the path, which the caller names
		}
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, MaxMetainfoSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxMetainfoSize {
		return nil, fmt.Errorf("the .torrent is larger than %d MiB", MaxMetainfoSize>>20)
	}
	return b, nil
}

// ParseMetainfo reads the bytes of a .torrent. Its file paths are checked
// here, so a hostile torrent is refused before anything is added.
func ParseMetainfo(b []byte) (*Spec, error) {
	mi, err := metainfo.Load(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", ErrNotTorrent, err)
	}
	if len(mi.InfoBytes) == 0 {
		return nil, fmt.Errorf("%w: it has no info dictionary", ErrNotTorrent)
	}
	info, err := mi.UnmarshalInfo()
	if err != nil {
		return nil, fmt.Errorf("%w: its info dictionary does not read (%w)", ErrNotTorrent, err)
	}
	if !info.HasV1() {
		return nil, errors.New("a BitTorrent v2-only torrent is not supported (it needs v1 piece hashes)")
	}
	if _, err := layout(&info); err != nil {
		return nil, err
	}
	var trackers [][]string
	for _, tier := range mi.UpvertedAnnounceList() {
		trackers = append(trackers, append([]string(nil), tier...))
	}
	return &Spec{
		Name:      info.BestName(),
		InfoHash:  mi.HashInfoBytes(),
		InfoBytes: mi.InfoBytes,
		Trackers:  trackers,
		WebSeeds:  append([]string(nil), mi.UrlList...),
	}, nil
}

// ParseMagnet reads a magnet link: btih (v1, hex or base32), dn, tr, ws,
// x.pe, xs and as. A hybrid link's btmh is ignored in favour of btih; a
// v2-only link is refused.
func ParseMagnet(uri string) (*Spec, error) {
	m, err := metainfo.ParseMagnetV2Uri(uri)
	if err != nil {
		return nil, magnetError(uri, err)
	}
	ih, ok := m.InfoHash.Value, m.InfoHash.Ok
	if !ok && !m.V2InfoHash.Ok {
		return nil, errNoInfoHash
	}
	if !ok {
		return nil, errors.New("magnet link: only a v2 info hash (btmh); Braid needs a v1 btih")
	}
	s := &Spec{
		Name:     m.DisplayName,
		InfoHash: ih,
		WebSeeds: m.Params["ws"],
		Peers:    m.Params["x.pe"],
		Sources:  append(append([]string(nil), m.Params["xs"]...), m.Params["as"]...),
	}
	if len(m.Trackers) > 0 {
		s.Trackers = [][]string{m.Trackers}
	}
	return s, nil
}

var errNoInfoHash = errors.New("the magnet link names no torrent: it has no info hash (xt=urn:btih:…)")

// magnetError says in a sentence what is wrong with a magnet link the
// library could not read: it names no torrent, or its info hash is not
// one.
func magnetError(uri string, err error) error {
	u, perr := url.Parse(uri)
	if perr != nil || !strings.EqualFold(u.Scheme, "magnet") {
		return fmt.Errorf("magnet link: %w", err)
	}
	var hashes []string
	for _, xt := range u.Query()["xt"] {
		if len(xt) >= len("urn:btih:") && strings.EqualFold(xt[:len("urn:btih:")], "urn:btih:") {
			hashes = append(hashes, xt[len("urn:btih:"):])
		}
	}
	switch {
	case len(hashes) == 0 && strings.Contains(strings.ToLower(u.RawQuery), "urn:btmh:"):
		return fmt.Errorf("magnet link: only a v2 info hash (btmh), which Braid cannot read: %w", err)
	case len(hashes) == 0 || hashes[0] == "":
		return errNoInfoHash
	case len(hashes[0]) != 40 && len(hashes[0]) != 32:
		return fmt.Errorf("the magnet link's info hash %q is not one: a torrent's is 40 hexadecimal digits (or 32 base32 letters)", hashes[0])
	}
	return fmt.Errorf("the magnet link's info hash %q is not one (%w)", hashes[0], err)
}

// HasTorrent reports whether a metalink file names a torrent for itself.
func HasTorrent(f metalink.File) bool {
	for _, m := range f.MetaURLs {
		if strings.EqualFold(m.MediaType, "torrent") {
			return true
		}
	}
	return false
}

// FromMetalink resolves the torrent a metalink file names in a <metaurl
// mediatype="torrent"> (the first that reads, by priority): the file's
// HTTP mirrors become web seeds where the torrent is the file alone, only
// the named file is selected, and the file must match the metalink's own
// hashes too.
func FromMetalink(ctx context.Context, f metalink.File, client *http.Client) (*Spec, error) {
	var errs []error
	for _, mu := range f.MetaURLs {
		if !strings.EqualFold(mu.MediaType, "torrent") {
			continue
		}
		// A document from the network must not make Braid read local
		// files: only URLs and magnet links.
		if u, err := url.Parse(mu.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "magnet") {
			errs = append(errs, fmt.Errorf("metaurl %s: only http(s) and magnet links are followed", redact(mu.URL)))
			continue
		}
		s, err := Resolve(ctx, mu.URL, client)
		if err != nil {
			errs = append(errs, fmt.Errorf("metaurl %s: %w", redact(mu.URL), err)) // Resolve's errors do not name it
			continue
		}
		name := f.Name
		if s.InfoBytes != nil {
			var info metainfo.Info
			if err := bencode.Unmarshal(s.InfoBytes, &info); err != nil {
				errs = append(errs, err)
				continue
			}
			if info.IsDir() {
				if mu.Name == "" {
					errs = append(errs, fmt.Errorf("metaurl %s: a torrent of several files, and the metaurl names none of them", redact(mu.URL)))
					continue
				}
				name = path.Join(info.BestName(), mu.Name)
				s.Only = []string{name}
			} else {
				name = info.BestName()
				for _, u := range f.URLs {
					if strings.HasPrefix(u.URL, "http://") || strings.HasPrefix(u.URL, "https://") {
						s.WebSeeds = append(s.WebSeeds, u.URL)
					}
				}
			}
		}
		if len(f.Hashes) > 0 {
			s.Hashes = map[string][]metalink.Hash{name: f.Hashes}
		}
		return s, nil
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("%s: %w: no torrent metaurl", f.Name, ErrNotTorrent)
	}
	return nil, fmt.Errorf("%s: %w", f.Name, errors.Join(errs...))
}

// webSeeds normalises web seed URLs for a torrent's layout: only http(s)
// is kept, and a multi-file torrent's URL gets the trailing slash BEP 19
// requires (the library panics on one without it, upstream issue #1019).
func webSeeds(urls []string, multiFile bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range urls {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		if multiFile && !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
			if u.RawPath != "" {
				u.RawPath += "/"
			}
		}
		s := u.String()
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// redact hides URL credentials in messages.
func redact(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
}

// Document describes a torrent source as a metalink document, so the
// queue can hold it like any other job: one file per file of the torrent
// (with its size), each with a torrent metaurl pointing back at source.
// A magnet link's files are not known before its metadata: it becomes one
// file named after the link (its dn, or the info hash), of unknown size,
// that stands for the whole torrent.
func Document(spec *Spec, source string) (*metalink.Document, error) {
	doc := &metalink.Document{Version: 4}
	mu := metalink.MetaURL{URL: source, MediaType: "torrent", Priority: 1}
	if spec.InfoBytes == nil {
		name := spec.Name
		if metalink.SafeName(name) != nil {
			name = spec.InfoHash.HexString()
		}
		doc.Files = []metalink.File{{Name: name, Size: -1, MetaURLs: []metalink.MetaURL{mu}}}
		return doc, nil
	}
	info, spans, err := spec.layout()
	if err != nil {
		return nil, err
	}
	for _, sp := range spans {
		if sp.pad {
			continue
		}
		m := mu
		if info.IsDir() {
			m.Name = strings.TrimPrefix(sp.name, info.BestName()+"/")
		}
		doc.Files = append(doc.Files, metalink.File{Name: sp.name, Size: sp.length, MetaURLs: []metalink.MetaURL{m}})
	}
	return doc, nil
}

// Shape is what a torrent's metadata says of it as a whole.
type Shape struct {
	PieceLength int64
	Pieces      int
	Private     bool       // BEP 27: peers only from its trackers
	Files       []FileSpan // in the torrent's order, padding left out
}

// FileSpan is where one file lies in a torrent.
type FileSpan struct {
	Name         string // as Braid names it on disk (FileNames)
	Offset, Size int64
}

// PiecesOf returns the pieces [first, end) that hold bytes of f; first
// == end for an empty file.
func (s Shape) PiecesOf(f FileSpan) (first, end int) {
	if s.PieceLength <= 0 || f.Size <= 0 {
		return 0, 0
	}
	first = int(f.Offset / s.PieceLength)
	end = min(s.Pieces, int((f.Offset+f.Size+s.PieceLength-1)/s.PieceLength))
	return first, max(first, end)
}

// Shape reads the torrent's metadata; false for a magnet link whose
// metadata has not arrived.
func (s *Spec) Shape() (Shape, bool, error) {
	if s.InfoBytes == nil {
		return Shape{}, false, nil
	}
	info, spans, err := s.layout()
	if err != nil {
		return Shape{}, false, err
	}
	sh := Shape{PieceLength: info.PieceLength, Pieces: info.NumPieces(), Private: info.Private != nil && *info.Private}
	for _, sp := range spans {
		if !sp.pad {
			sh.Files = append(sh.Files, FileSpan{Name: sp.name, Offset: sp.offset, Size: sp.length})
		}
	}
	return sh, true, nil
}

// layout reads the spec's info dictionary and lays out its files (see
// layout); the spec must have its metadata.
func (s *Spec) layout() (*metainfo.Info, []fileSpan, error) {
	var info metainfo.Info
	if err := bencode.Unmarshal(s.InfoBytes, &info); err != nil {
		return nil, nil, fmt.Errorf("%w: its info dictionary does not read (%w)", ErrNotTorrent, err)
	}
	spans, err := layout(&info)
	if err != nil {
		return nil, nil, err
	}
	return &info, spans, nil
}
