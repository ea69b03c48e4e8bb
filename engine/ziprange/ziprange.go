// Package ziprange reads a remote ZIP archive over byte ranges: its list
// of members from the end record and the central directory alone (two or
// three small requests, however large the archive), and one member's
// bytes without the rest of the archive.
//
// It reads through a transport.Source, so the proxies, logins, cookies and
// headers of Braid's transport apply, and it leaves the ZIP format to the
// standard archive/zip (zip64 included): zip.NewReader runs over an
// io.ReaderAt that fetches the archive's tail once and grows it downwards
// to cover the directory in one more request.
package ziprange

import (
	"archive/zip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"braid/engine/transport"
)

// tailLen is the first read from the end of an archive: the end record
// with the longest comment a ZIP allows fits, with the zip64 locator and
// record before it, and so does the directory of most small archives, so
// that one request often reads the whole list.
const tailLen = 64<<10 + 1024

// MaxDirectory bounds the central directory Open reads, so a damaged or
// hostile archive cannot make it download and hold gigabytes. A directory
// of a million members with 100-byte names is about 150 MiB.
const MaxDirectory = 256 << 20

// Errors of Open and Extract; test with errors.Is. Their texts are
// sentences a user can read.
var (
	// ErrNoRanges: the server sends only the whole file, so neither the
	// list nor a member can be read without downloading the archive.
	ErrNoRanges = errors.New("the server does not send parts of files (byte ranges): reading an archive's list or one member needs them, so the whole archive must be downloaded")
	// ErrNotZip: the file does not end with a ZIP directory.
	ErrNotZip = errors.New("the file is not a ZIP archive: it does not end with a ZIP directory")
	// ErrUnknownSize: the server did not tell the archive's size, without
	// which its end cannot be found.
	ErrUnknownSize = errors.New("the server does not tell the archive's size, so its list at the end cannot be found")
	// ErrDirectoryTooLarge: the directory is larger than MaxDirectory.
	ErrDirectoryTooLarge = fmt.Errorf("the archive's directory is larger than %d MiB; Braid does not read it", MaxDirectory>>20)
	// ErrEncrypted: the member is encrypted; Braid cannot decrypt it.
	ErrEncrypted = errors.New("the member is encrypted, and Braid cannot decrypt ZIP members")
	// ErrChecksum: the member's bytes do not match its CRC-32 or its size.
	ErrChecksum = errors.New("the member's bytes do not match the CRC-32 the archive gives for it")
)

// MethodError: the member is compressed with a method Braid cannot
// inflate (only stored and deflate are read).
type MethodError struct {
	Method uint16
}

func (e *MethodError) Error() string {
	return fmt.Sprintf("the member is compressed with %s, which Braid cannot inflate (it reads stored and deflate members)", MethodName(e.Method))
}

// Member is one entry of an archive's central directory.
type Member struct {
	Name           string // as stored: slash-separated, unchecked
	Size           int64  // bytes once inflated
	CompressedSize int64  // bytes in the archive
	Method         uint16 // 0 stored, 8 deflate, others (see MethodName)
	CRC32          uint32
	Encrypted      bool  // general purpose flag bit 0
	Dir            bool  // a folder entry (its name ends in "/")
	HeaderOffset   int64 // where its local header starts; -1 when unknown
	Modified       time.Time

	file *zip.File
}

// MethodName names a ZIP compression method for people: "stored",
// "deflate", or "method N (name)" for the others.
func MethodName(m uint16) string {
	switch m {
	case zip.Store:
		return "stored"
	case zip.Deflate:
		return "deflate"
	}
	names := map[uint16]string{
		1: "shrink", 6: "implode", 9: "deflate64", 12: "bzip2", 14: "LZMA",
		93: "zstd", 95: "xz", 96: "JPEG", 97: "WavPack", 98: "PPMd", 99: "AES encryption",
	}
	if n, ok := names[m]; ok {
		return fmt.Sprintf("method %d (%s)", m, n)
	}
	return fmt.Sprintf("method %d", m)
}

// Archive is a remote ZIP archive whose directory has been read. Its
// methods may be called from one goroutine at a time.
type Archive struct {
	// Size is the archive's length in bytes.
	Size int64
	// Members are the directory's entries in the archive's order.
	Members []*Member
	// Comment is the archive's comment.
	Comment string

	src transport.Source
	ra  *rangeReaderAt
}

// Open reads the directory of the ZIP archive src serves. size is the
// archive's length, or -1 to ask src (a transport.Stater) for it. Open
// reads the end of the archive, and the zip64 record and the directory
// where they lie before that end, in at most three requests. A server that
// sends only whole files fails with ErrNoRanges (unless the archive is
// small enough that the first request read all of it).
func Open(ctx context.Context, src transport.Source, size int64) (*Archive, error) {
	if size < 0 {
		st, ok := src.(transport.Stater)
		if !ok {
			return nil, ErrUnknownSize
		}
		info, err := st.Stat(ctx)
		if err != nil {
			return nil, RangeError(err)
		}
		if size = info.Size; size < 0 {
			return nil, ErrUnknownSize
		}
	}
	ra := &rangeReaderAt{src: src, size: size, ctx: ctx, base: size, growing: true}
	if err := ra.grow(max(0, size-tailLen)); err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(ra, size)
	ra.growing = false
	if ra.err != nil { // the reader's own error says more than zip's
		return nil, ra.err
	}
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // names are checked when a member is written
		if errors.Is(err, zip.ErrFormat) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w (%v)", ErrNotZip, err)
		}
		return nil, err
	}
	a := &Archive{Size: size, Comment: zr.Comment, src: src, ra: ra}
	offsets := ra.headerOffsets(len(zr.File))
	for i, f := range zr.File {
		m := &Member{
			Name:           f.Name,
			Size:           int64(f.UncompressedSize64),
			CompressedSize: int64(f.CompressedSize64),
			Method:         f.Method,
			CRC32:          f.CRC32,
			Encrypted:      f.Flags&0x1 != 0,
			Dir:            len(f.Name) > 0 && f.Name[len(f.Name)-1] == '/',
			HeaderOffset:   -1,
			Modified:       f.Modified,
			file:           f,
		}
		if offsets != nil && offsets[i].name == f.Name {
			m.HeaderOffset = offsets[i].off
		}
		a.Members = append(a.Members, m)
	}
	return a, nil
}

// Member finds the member named name, nil when there is none.
func (a *Archive) Member(name string) *Member {
	for _, m := range a.Members {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// Requests is how many range requests the archive has made so far.
func (a *Archive) Requests() int { return int(a.ra.requests.Load()) }

// BytesRead is how many bytes of the archive its requests have read.
func (a *Archive) BytesRead() int64 { return a.ra.bytes.Load() }

// RangeError names a refusal to send ranges in a sentence, ErrNoRanges;
// other errors it returns as they are.
func RangeError(err error) error {
	if errors.Is(err, transport.ErrNoRanges) {
		return fmt.Errorf("%w: %w", ErrNoRanges, err)
	}
	return err
}

// rangeReaderAt is the io.ReaderAt archive/zip reads through. It holds
// one run of the archive, [base, size): the tail read first, grown
// downwards while Open reads the directory, so that the directory, which
// lies just before the end, comes in one request however archive/zip
// walks it. After Open it no longer grows: a read outside the run fetches
// exactly the bytes asked for.
type rangeReaderAt struct {
	src  transport.Source
	size int64
	ctx  context.Context

	mu      sync.Mutex
	base    int64  // the run starts here
	run     []byte // bytes [base, size)
	growing bool   // Open is reading: a read below base grows the run
	err     error  // the first fetch error while growing

	requests atomic.Int64
	bytes    atomic.Int64
}

// fetch reads [off, off+n) from the source in one request.
func (r *rangeReaderAt) fetch(off, n int64) ([]byte, error) {
	rc, err := r.src.ReadRange(r.ctx, off, n)
	if err != nil {
		return nil, RangeError(err)
	}
	defer rc.Close()
	r.requests.Add(1)
	buf := make([]byte, n)
	k, err := io.ReadFull(rc, buf)
	r.bytes.Add(int64(k))
	if err != nil {
		return nil, fmt.Errorf("bytes %d-%d of the archive: %w", off, off+n-1, err)
	}
	return buf, nil
}

// grow extends the run down to off in one request.
func (r *rangeReaderAt) grow(off int64) error {
	if off >= r.base {
		return nil
	}
	if r.size-off > MaxDirectory+tailLen {
		return ErrDirectoryTooLarge
	}
	b, err := r.fetch(off, r.base-off)
	if err != nil {
		return err
	}
	r.run = append(b, r.run...)
	r.base = off
	return nil
}

func (r *rangeReaderAt) ReadAt(p []byte, off int64) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if off < 0 || off >= r.size {
		return 0, io.EOF
	}
	end := min(off+int64(len(p)), r.size)
	if off < r.base && r.growing {
		if err := r.grow(off); err != nil {
			r.err = err
			return 0, err
		}
	}
	if off >= r.base {
		n := copy(p, r.run[off-r.base:end-r.base])
		if n < len(p) {
			return n, io.EOF
		}
		return n, nil
	}
	b, err := r.fetch(off, end-off)
	if err != nil {
		return 0, err
	}
	n := copy(p, b)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// headerOffset is one directory record's name and local header offset.
type headerOffset struct {
	name string
	off  int64
}

// headerOffsets walks the central directory in the run for the members'
// local header offsets, which archive/zip keeps to itself. It returns nil
// when the run does not hold a directory of count records where the end
// record says; the offsets are then unknown, and nothing else depends on
// them.
func (r *rangeReaderAt) headerOffsets(count int) []headerOffset {
	r.mu.Lock()
	defer r.mu.Unlock()
	start, shift, ok := r.directoryStart()
	if !ok || start < r.base || start > r.size {
		return nil
	}
	d := r.run[start-r.base:]
	out := make([]headerOffset, 0, count)
	for range count {
		if len(d) < 46 || binary.LittleEndian.Uint32(d) != 0x02014b50 {
			return nil
		}
		nameLen := int(binary.LittleEndian.Uint16(d[28:]))
		extraLen := int(binary.LittleEndian.Uint16(d[30:]))
		commentLen := int(binary.LittleEndian.Uint16(d[32:]))
		if len(d) < 46+nameLen+extraLen+commentLen {
			return nil
		}
		off := int64(binary.LittleEndian.Uint32(d[42:]))
		if off == 0xffffffff {
			off = zip64HeaderOffset(d, d[46+nameLen:46+nameLen+extraLen])
		}
		if off >= 0 {
			off += shift
		}
		if off < 0 || off >= r.size {
			off = -1 // a record that points outside the archive
		}
		out = append(out, headerOffset{name: string(d[46 : 46+nameLen]), off: off})
		d = d[46+nameLen+extraLen+commentLen:]
	}
	return out
}

// directoryStart finds where the central directory starts, and how far
// the archive's own offsets are shifted (by bytes put before it, as a
// self-extracting archive has), from the end record and the zip64 record
// in the run, as archive/zip reads them.
func (r *rangeReaderAt) directoryStart() (start, shift int64, ok bool) {
	le := binary.LittleEndian
	at := func(off, n int64) []byte { // bytes [off, off+n) of the archive, nil outside the run
		if off < r.base || off > r.size-n {
			return nil
		}
		return r.run[off-r.base : off-r.base+n]
	}
	tail := r.run[max(0, int64(len(r.run))-65*1024):]
	endAt := int64(-1)
	for i := len(tail) - 22; i >= 0; i-- {
		if le.Uint32(tail[i:]) == 0x06054b50 {
			if int(le.Uint16(tail[i+20:]))+22+i > len(tail) {
				return 0, 0, false
			}
			endAt = r.size - int64(len(tail)) + int64(i)
			break
		}
	}
	if endAt < 0 {
		return 0, 0, false
	}
	end := at(endAt, 22)
	records, size, offset := uint64(le.Uint16(end[10:])), uint64(le.Uint32(end[12:])), uint64(le.Uint32(end[16:]))
	if records == 0xffff || size == 0xffff || offset == 0xffffffff {
		if loc := at(endAt-20, 20); loc != nil && le.Uint32(loc) == 0x07064b50 && le.Uint32(loc[4:]) == 0 && le.Uint32(loc[16:]) == 1 {
			p := int64(le.Uint64(loc[8:]))
			rec := at(p, 56)
			if rec == nil || le.Uint32(rec) != 0x06064b50 {
				return 0, 0, false
			}
			endAt = p
			size, offset = le.Uint64(rec[40:]), le.Uint64(rec[48:])
		}
	}
	if size > 1<<62 || offset > 1<<62 {
		return 0, 0, false
	}
	shift = endAt - int64(size) - int64(offset)
	if shift > 0 {
		// archive/zip's rule: a directory record at the stated offset
		// itself means the shift is wrong, and there is none.
		if h := at(int64(offset), 4); h != nil && le.Uint32(h) == 0x02014b50 {
			shift = 0
		}
	}
	return shift + int64(offset), shift, true
}

// zip64HeaderOffset reads the local header offset from a directory
// record's zip64 extra field. The field holds, in order, only the values
// whose fixed field is all ones: the size, the compressed size, then the
// offset.
func zip64HeaderOffset(record, extra []byte) int64 {
	skip := 0
	if binary.LittleEndian.Uint32(record[24:]) == 0xffffffff {
		skip += 8
	}
	if binary.LittleEndian.Uint32(record[20:]) == 0xffffffff {
		skip += 8
	}
	for len(extra) >= 4 {
		tag := binary.LittleEndian.Uint16(extra)
		n := int(binary.LittleEndian.Uint16(extra[2:]))
		if len(extra) < 4+n {
			return -1
		}
		if tag == 0x0001 {
			if n < skip+8 {
				return -1
			}
			return int64(binary.LittleEndian.Uint64(extra[4+skip:]))
		}
		extra = extra[4+n:]
	}
	return -1
}
