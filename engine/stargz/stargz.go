// Package stargz reads a remote eStargz blob over byte ranges: its list
// of members from the footer and the table of contents at its end (two
// small requests, however large the blob), and one regular file's bytes
// from its own gzip chunks alone.
//
// An eStargz blob (and the older stargz one it extends) is a tar.gz, still
// readable by any tar, whose files each start a new gzip member, large
// files cut into chunks of their own members. Its last tar entry,
// stargz.index.json in a gzip member of its own, is the table of contents
// (TOC): every entry's name, type, size, and for a file the offsets of its
// gzip chunks and their sha-256 digests. The blob ends with a footer, an
// empty gzip member whose Extra field gives the TOC's offset: 51 bytes for
// eStargz ("SG" subfield, RFC 1952), 47 for the legacy stargz of Google's
// CRFS (the bare "%016xSTARGZ" extra).
//
// It reads through a transport.Source, as ziprange does, so a plain URL and
// every mirror of a metalink (engine.Ranges) are read alike, with the
// transport's proxies, logins, cookies and headers.
package stargz

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"braid/engine/transport"
	"braid/engine/ziprange"
)

// Footer sizes: eStargz's, and the legacy stargz one's.
const (
	FooterSize       = 51
	LegacyFooterSize = 47
)

// TOCName is the name of the TOC's tar entry.
const TOCName = "stargz.index.json"

// Bounds on what Open reads, so that a damaged or hostile blob cannot make
// it download or hold gigabytes. The TOC of an image layer of a million
// files is about 300 MiB of JSON, gzipped to a tenth of that.
const (
	// MaxTOC bounds the TOC's gzip member.
	MaxTOC = 128 << 20
	// MaxTOCJSON bounds the TOC's JSON once inflated.
	MaxTOCJSON = 512 << 20
)

// headLen is how much of a blob's start Open reads, when it has no
// footer, to tell a tar (and its compression) from other files: enough to
// inflate a gzip member's first tar header.
const headLen = 4 << 10

// Errors of Open and Extract; test with errors.Is. Their texts are
// sentences a user can read.
var (
	// ErrNoRanges and ErrUnknownSize are ziprange's: reading any archive
	// over ranges fails alike.
	ErrNoRanges    = ziprange.ErrNoRanges
	ErrUnknownSize = ziprange.ErrUnknownSize
	// ErrNotStargz: the file ends with no stargz footer, and its start is
	// not a tar's either (a *NoIndexError says when it is).
	ErrNotStargz = errors.New("the file is not an eStargz archive: it does not end with the footer that points to a table of contents")
	// ErrBadIndex: the footer or the TOC cannot be read or does not hold.
	ErrBadIndex = errors.New("the archive's eStargz table of contents is damaged")
	// ErrTOCTooLarge: the TOC is larger than MaxTOC or MaxTOCJSON.
	ErrTOCTooLarge = fmt.Errorf("the archive's eStargz table of contents is larger than %d MiB; Braid does not read it", MaxTOC>>20)
	// ErrDigest: the member's bytes do not match a digest the TOC gives.
	ErrDigest = errors.New("the member's bytes do not match the digest the archive's table of contents gives for it")
)

// NoIndexError: the file has no stargz footer, and its start is a tar's,
// or a compressed stream's (which a tar.gz, .tar.xz... starts with).
type NoIndexError struct {
	// Format is what its start shows: "tar", "tar.gz" (a gzip member that
	// inflates to a tar header), or only the compression: "gzip", "xz",
	// "zstd", "bzip2", "lz4".
	Format string
}

func (e *NoIndexError) Error() string {
	what := "a tar archive"
	switch e.Format {
	case "tar":
	case "tar.gz":
		what = "a gzip-compressed tar archive"
	case "xz", "lz4":
		what = "an " + e.Format + "-compressed file"
	default:
		what = "a " + e.Format + "-compressed file"
	}
	return fmt.Sprintf("the file is %s with no index (no eStargz table of contents at its end), so one member can only be had by reading the whole archive", what)
}

// Entry types of the TOC.
const (
	TypeDir      = "dir"
	TypeFile     = "reg"
	TypeSymlink  = "symlink"
	TypeHardlink = "hardlink"
	TypeChar     = "char"
	TypeBlock    = "block"
	TypeFifo     = "fifo"
	typeChunk    = "chunk"
)

// Entry is one entry of the TOC (its chunk entries folded into the file's
// Chunks).
type Entry struct {
	// Name is as stored, cleaned: slash-separated, no leading "./" or
	// "/", a folder's ending in "/".
	Name     string
	Type     string // TypeDir, TypeFile, TypeSymlink...
	Size     int64  // a file's bytes; 0 for the others
	Mode     int64  // permission and mode bits
	Modified time.Time
	LinkName string // a link's target
	// Digest is the file's whole digest as the TOC gives it
	// ("sha256:HEX"), "" when it gives none.
	Digest string
	// Chunks are a file's gzip chunks, in order; none for an empty file.
	Chunks []Chunk
}

// Chunk is one gzip chunk of a file.
type Chunk struct {
	// Offset is where its gzip member starts in the blob, and End where
	// the next member that holds a chunk (or the TOC) starts: its bytes
	// are [Offset, End).
	Offset, End int64
	// InnerOffset is where the chunk starts in the member once inflated
	// (0 but where small files share a member).
	InnerOffset int64
	// FileOffset and Size place it in the file.
	FileOffset, Size int64
	// Digest is the chunk's digest ("sha256:HEX"), "" when none.
	Digest string
}

// CompressedSize is the bytes of the blob that hold the entry's chunks.
func (e *Entry) CompressedSize() int64 {
	var n, last int64 = 0, -1
	for _, c := range e.Chunks {
		if c.Offset != last {
			n += c.End - c.Offset
			last = c.Offset
		}
	}
	return n
}

// Offset is where the entry's first chunk starts in the blob; -1 when it
// has none.
func (e *Entry) Offset() int64 {
	if len(e.Chunks) == 0 {
		return -1
	}
	return e.Chunks[0].Offset
}

// Blob is a remote eStargz blob whose TOC has been read. Its methods may
// be called from one goroutine at a time.
type Blob struct {
	// Size is the blob's length in bytes.
	Size int64
	// TOCOffset is where the TOC's gzip member starts.
	TOCOffset int64
	// Legacy: the footer is the 47-byte one of stargz, not eStargz's.
	Legacy bool
	// TOCDigest is the sha-256 of the TOC's JSON, "sha256:HEX": what an
	// image manifest's containerd.io/snapshot/stargz/toc.digest
	// annotation gives for the layer.
	TOCDigest string
	// Entries are the TOC's entries in its order, but the TOC itself.
	Entries []*Entry

	src      transport.Source
	requests atomic.Int64
	bytes    atomic.Int64
}

// Open reads the TOC of the eStargz blob src serves. size is the blob's
// length, or -1 to ask src (a transport.Stater) for it. It reads the
// footer in one request and the TOC in one more. A file without a footer
// fails with a *NoIndexError when its start (read in a third request) is
// a tar's or a compressed stream's, else with ErrNotStargz. A server that
// sends only whole files fails with ErrNoRanges.
func Open(ctx context.Context, src transport.Source, size int64) (*Blob, error) {
	if size < 0 {
		st, ok := src.(transport.Stater)
		if !ok {
			return nil, ErrUnknownSize
		}
		info, err := st.Stat(ctx)
		if err != nil {
			return nil, ziprange.RangeError(err)
		}
		if size = info.Size; size < 0 {
			return nil, ErrUnknownSize
		}
	}
	b := &Blob{Size: size, src: src}
	n := min(size, FooterSize)
	tail, err := b.fetch(ctx, size-n, n)
	if err != nil {
		return nil, err
	}
	tocOff, footer, err := ParseFooter(tail)
	if err != nil {
		if size <= n {
			return nil, b.sniffed(tail)
		}
		head, herr := b.fetch(ctx, 0, min(size, headLen))
		if herr != nil {
			return nil, herr
		}
		return nil, b.sniffed(head)
	}
	if tocOff >= size-int64(footer) {
		return nil, fmt.Errorf("%w: the footer puts it at byte %d of a %d-byte blob", ErrBadIndex, tocOff, size)
	}
	b.TOCOffset, b.Legacy = tocOff, footer == LegacyFooterSize
	tocLen := size - int64(footer) - tocOff
	if tocLen > MaxTOC {
		return nil, ErrTOCTooLarge
	}
	gz, err := b.fetch(ctx, tocOff, tocLen)
	if err != nil {
		return nil, err
	}
	raw, err := tocJSON(gz)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	b.TOCDigest = "sha256:" + hex.EncodeToString(sum[:])
	if b.Entries, err = parseTOC(raw, tocOff); err != nil {
		return nil, err
	}
	return b, nil
}

// sniffed is Open's error for a file with no footer, from its start.
func (b *Blob) sniffed(head []byte) error {
	if f := Sniff(head); f != "" {
		return &NoIndexError{Format: f}
	}
	return ErrNotStargz
}

// Entry finds the entry named name (cleaned as Entry.Name is; a folder's
// found with or without its trailing "/"), nil when there is none. Where
// the TOC names a path twice, the later entry is the one a tar leaves.
func (b *Blob) Entry(name string) *Entry {
	want := cleanName(name, false)
	for i := len(b.Entries) - 1; i >= 0; i-- {
		e := b.Entries[i]
		if strings.TrimSuffix(e.Name, "/") == want {
			return e
		}
	}
	return nil
}

// Requests is how many range requests the blob has made so far.
func (b *Blob) Requests() int { return int(b.requests.Load()) }

// BytesRead is how many bytes of the blob its requests have read.
func (b *Blob) BytesRead() int64 { return b.bytes.Load() }

// fetch reads [off, off+n) in one request.
func (b *Blob) fetch(ctx context.Context, off, n int64) ([]byte, error) {
	rc, err := b.open(ctx, off, n)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	buf := make([]byte, n)
	if _, err := io.ReadFull(rc, buf); err != nil {
		return nil, fmt.Errorf("bytes %d-%d of the archive: %w", off, off+n-1, err)
	}
	return buf, nil
}

// open starts a request for [off, off+n), counting it and its bytes.
func (b *Blob) open(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	rc, err := b.src.ReadRange(ctx, off, n)
	if err != nil {
		return nil, ziprange.RangeError(err)
	}
	b.requests.Add(1)
	return &ziprange.Counted{R: rc, N: &b.bytes}, nil
}

// ParseFooter reads the TOC's offset from the end of a blob: p is its
// last bytes (at least 47). It tries eStargz's 51-byte footer, then
// stargz's 47-byte one, and reports which it found by its size. Each must
// be a whole gzip member that inflates to nothing.
func ParseFooter(p []byte) (tocOffset int64, size int, err error) {
	if len(p) >= FooterSize {
		f := p[len(p)-FooterSize:]
		if extra, ok := emptyMember(f); ok && len(extra) == 26 && extra[0] == 'S' && extra[1] == 'G' && extra[2] == 22 && extra[3] == 0 {
			if off, ok := footerOffset(extra[4:]); ok {
				return off, FooterSize, nil
			}
		}
	}
	if len(p) >= LegacyFooterSize {
		f := p[len(p)-LegacyFooterSize:]
		if extra, ok := emptyMember(f); ok && len(extra) == 22 {
			if off, ok := footerOffset(extra); ok {
				return off, LegacyFooterSize, nil
			}
		}
	}
	return 0, 0, ErrNotStargz
}

// emptyMember reads p as one whole gzip member that inflates to nothing,
// and returns its Extra field.
func emptyMember(p []byte) (extra []byte, ok bool) {
	br := bytes.NewReader(p)
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, false
	}
	zr.Multistream(false)
	if n, err := io.Copy(io.Discard, zr); err != nil || n != 0 || br.Len() != 0 {
		return nil, false
	}
	return zr.Header.Extra, true
}

// footerOffset reads "%016xSTARGZ".
func footerOffset(s []byte) (int64, bool) {
	if len(s) != 22 || string(s[16:]) != "STARGZ" {
		return 0, false
	}
	var off uint64
	for _, c := range s[:16] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		off = off<<4 | uint64(d)
	}
	if off > 1<<62 {
		return 0, false
	}
	return int64(off), true
}

// tocJSON inflates the TOC's gzip member and reads the JSON out of its
// tar entry.
func tocJSON(gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("%w: its gzip member does not read (%v)", ErrBadIndex, err)
	}
	zr.Multistream(false)
	tr := tar.NewReader(zr)
	h, err := tr.Next()
	if err != nil {
		return nil, fmt.Errorf("%w: its tar entry does not read (%v)", ErrBadIndex, err)
	}
	if h.Name != TOCName {
		return nil, fmt.Errorf("%w: the entry the footer points to is %q, not %s", ErrBadIndex, h.Name, TOCName)
	}
	if h.Size > MaxTOCJSON {
		return nil, ErrTOCTooLarge
	}
	raw, err := io.ReadAll(io.LimitReader(tr, MaxTOCJSON+1))
	if err != nil {
		return nil, fmt.Errorf("%w: its bytes do not inflate (%v)", ErrBadIndex, err)
	}
	if int64(len(raw)) > MaxTOCJSON {
		return nil, ErrTOCTooLarge
	}
	// The rest of the member (the tar's end blocks) must inflate too:
	// its CRC-32 covers the JSON.
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return nil, fmt.Errorf("%w: its gzip member is damaged (%v)", ErrBadIndex, err)
	}
	return raw, nil
}

// jsonTOC is the TOC as stored.
type jsonTOC struct {
	Version int         `json:"version"`
	Entries []jsonEntry `json:"entries"`
}

type jsonEntry struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Size        int64  `json:"size"`
	ModTime     string `json:"modtime"`
	LinkName    string `json:"linkName"`
	Mode        int64  `json:"mode"`
	Offset      int64  `json:"offset"`
	Digest      string `json:"digest"`
	ChunkOffset int64  `json:"chunkOffset"`
	ChunkSize   int64  `json:"chunkSize"`
	ChunkDigest string `json:"chunkDigest"`
	InnerOffset int64  `json:"innerOffset"`
}

// parseTOC reads the TOC's JSON into entries, checking that every file's
// chunks lie before the TOC and cover it exactly.
func parseTOC(raw []byte, tocOff int64) ([]*Entry, error) {
	var toc jsonTOC
	if err := json.Unmarshal(raw, &toc); err != nil {
		return nil, fmt.Errorf("%w: its JSON does not read (%v)", ErrBadIndex, err)
	}
	if toc.Version != 1 {
		return nil, fmt.Errorf("%w: it is version %d, and Braid reads version 1", ErrBadIndex, toc.Version)
	}
	bad := func(name, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrBadIndex, name, fmt.Sprintf(format, args...))
	}
	var out []*Entry
	files := map[string]*Entry{}
	var offsets []int64
	for _, je := range toc.Entries {
		if je.Name == "" {
			return nil, fmt.Errorf("%w: an entry has no name", ErrBadIndex)
		}
		if je.Size < 0 || je.Offset < 0 || je.ChunkOffset < 0 || je.ChunkSize < 0 || je.InnerOffset < 0 {
			return nil, bad(je.Name, "a negative size or offset")
		}
		if (je.Type == typeChunk || je.Type == TypeFile && je.Size > 0) && je.Offset >= tocOff {
			return nil, bad(je.Name, "a chunk at byte %d, past the table of contents at %d", je.Offset, tocOff)
		}
		name := cleanName(je.Name, je.Type == TypeDir)
		switch je.Type {
		case typeChunk:
			f := files[name]
			if f == nil {
				return nil, bad(je.Name, "a chunk of no file before it")
			}
			f.Chunks = append(f.Chunks, Chunk{Offset: je.Offset, InnerOffset: je.InnerOffset, FileOffset: je.ChunkOffset, Size: je.ChunkSize, Digest: je.ChunkDigest})
			offsets = append(offsets, je.Offset)
			continue
		case TypeDir, TypeFile, TypeSymlink, TypeHardlink, TypeChar, TypeBlock, TypeFifo:
		default:
			return nil, bad(je.Name, "an entry of unknown type %q", je.Type)
		}
		e := &Entry{Name: name, Type: je.Type, Mode: je.Mode, LinkName: je.LinkName}
		if je.ModTime != "" {
			e.Modified, _ = time.Parse(time.RFC3339, je.ModTime)
		}
		if je.Type == TypeFile {
			e.Size, e.Digest = je.Size, je.Digest
			if je.Size > 0 {
				e.Chunks = append(e.Chunks, Chunk{Offset: je.Offset, InnerOffset: je.InnerOffset, FileOffset: je.ChunkOffset, Size: je.ChunkSize, Digest: je.ChunkDigest})
				offsets = append(offsets, je.Offset)
			}
			files[name] = e
		}
		out = append(out, e)
	}
	// A chunk's gzip member runs to the next member that starts a chunk,
	// or to the TOC.
	sort.Slice(offsets, func(i, j int) bool { return offsets[i] < offsets[j] })
	end := func(off int64) int64 {
		i := sort.Search(len(offsets), func(i int) bool { return offsets[i] > off })
		if i < len(offsets) {
			return offsets[i]
		}
		return tocOff
	}
	for _, e := range out {
		if len(e.Chunks) == 0 {
			continue
		}
		sort.SliceStable(e.Chunks, func(i, j int) bool { return e.Chunks[i].FileOffset < e.Chunks[j].FileOffset })
		for i := range e.Chunks {
			c := &e.Chunks[i]
			next := e.Size
			if i+1 < len(e.Chunks) {
				next = e.Chunks[i+1].FileOffset
			}
			want := next - c.FileOffset
			if i == 0 && c.FileOffset != 0 || want <= 0 {
				return nil, bad(e.Name, "its chunks do not cover its %d bytes in order", e.Size)
			}
			if c.Size != 0 && c.Size != want {
				return nil, bad(e.Name, "a chunk of %d bytes at byte %d, where the next starts %d bytes on", c.Size, c.FileOffset, want)
			}
			c.Size = want
			c.End = end(c.Offset)
		}
	}
	return out, nil
}

// cleanName is a TOC name as a tar reader would place it: slash-separated,
// without a leading "./" or "/", a folder's ending in "/".
func cleanName(name string, dir bool) string {
	n := strings.TrimPrefix(path.Clean("/"+name), "/")
	if dir && n != "" {
		n += "/"
	}
	return n
}

// Sniff names what a file's first bytes show: "tar" (a ustar or GNU tar
// header), "tar.gz" (a gzip member that inflates to one), or only a
// compression: "gzip", "xz", "zstd", "bzip2", "lz4"; "" for anything
// else.
func Sniff(head []byte) string {
	switch {
	case isTarHeader(head):
		return "tar"
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err == nil {
			var h [512]byte
			if _, err := io.ReadFull(zr, h[:]); err == nil && isTarHeader(h[:]) {
				return "tar.gz"
			}
		}
		return "gzip"
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return "xz"
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd"
	case bytes.HasPrefix(head, []byte("BZh")) && len(head) > 3 && head[3] >= '1' && head[3] <= '9':
		return "bzip2"
	case bytes.HasPrefix(head, []byte{0x04, 0x22, 0x4d, 0x18}):
		return "lz4"
	}
	return ""
}

// isTarHeader reports whether b starts with a tar header: the ustar (or
// GNU "ustar  ") magic at 257, and a checksum that holds.
func isTarHeader(b []byte) bool {
	if len(b) < 512 || !bytes.Equal(b[257:262], []byte("ustar")) {
		return false
	}
	// One header alone may end early (a long name's), but only after its
	// checksum held.
	_, err := tar.NewReader(bytes.NewReader(b[:512])).Next()
	return err == nil || errors.Is(err, io.ErrUnexpectedEOF)
}
