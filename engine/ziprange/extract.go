package ziprange

import (
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path"
	"sync/atomic"

	"braid/engine/metalink"
	"braid/engine/rootfile"
)

// partSuffix marks a member being written, as the engine marks a file
// that is not verified yet.
const partSuffix = ".part"

// maxFreeNames bounds the numbered alternatives tried for a taken name.
const maxFreeNames = 999

// ErrFolder: the member named is a folder entry, which has no bytes.
var ErrFolder = errors.New("the member is a folder in the archive; name the files inside it")

// Extracted is what Extract wrote.
type Extracted struct {
	// Name is where the member is, relative to the folder,
	// slash-separated: its own name, or a numbered alternative ("f (1).bin")
	// when another file was at that name.
	Name string
	// Size is the member's size in bytes.
	Size int64
	// Existing: a file with the member's size and CRC-32 was already at
	// Name, and nothing was fetched.
	Existing bool
}

// Extract fetches member m and writes it into the folder dir under its
// name: its local header in one small request, then its compressed bytes
// in one more, inflated as they arrive (bytes the directory's requests
// already read are not fetched again). It is written as NAME.part inside
// an os.Root for dir, so no name or symlink can lead outside dir, and
// renamed to NAME only once its size and CRC-32 match the directory's. A
// name metalink.SafeName refuses is never written. A file already at the
// name stays: one with the member's size and CRC-32 is taken as the member
// (Existing); otherwise the member goes to a free numbered name.
//
// It fails with ErrFolder, ErrEncrypted, a *MethodError, a
// *metalink.NameError, ErrNoRanges, ErrChecksum, or the transfer's error.
func (a *Archive) Extract(ctx context.Context, m *Member, dir string) (Extracted, error) {
	out := Extracted{Name: m.Name, Size: m.Size}
	switch {
	case m.Dir:
		return out, ErrFolder
	case m.Encrypted:
		return out, ErrEncrypted
	case m.Method != 0 && m.Method != 8:
		return out, &MethodError{Method: m.Method}
	}
	if err := metalink.SafeName(m.Name); err != nil {
		return out, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return out, fmt.Errorf("open folder: %w", err)
	}
	defer root.Close()
	name, same, err := Place(root, m.Name, m.Size, func(name string) bool { return fileCRC(root, name) == m.CRC32 })
	out.Name, out.Existing = name, same
	if err != nil || same {
		return out, err
	}

	body, err := a.body(ctx, m)
	if err != nil {
		return out, err
	}
	defer body.Close()
	// A member is fetched whole or not at all: there is no journal to
	// resume a half-written one from.
	return out, rootfile.WriteWhole(ctx, root, name, 0o644, func(f *os.File) error { return inflate(f, body, m) })
}

// body is the member's compressed bytes: from the run when Open read
// them already, else in one request. It reads the local header first,
// for where the bytes start.
func (a *Archive) body(ctx context.Context, m *Member) (io.ReadCloser, error) {
	ra := a.ra
	ra.mu.Lock()
	ra.ctx = ctx
	ra.mu.Unlock()
	off, err := m.file.DataOffset()
	if err != nil {
		if errors.Is(err, ErrNoRanges) || ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("the member's local header cannot be read: %w", err)
	}
	n := m.CompressedSize
	if off < 0 || n < 0 || off > a.Size || n > a.Size-off {
		return nil, fmt.Errorf("the member's bytes %d-%d lie past the end of the %d-byte archive: %w", off, off+n-1, a.Size, ErrNotZip)
	}
	ra.mu.Lock()
	if off >= ra.base {
		b := ra.run[off-ra.base : off-ra.base+n]
		ra.mu.Unlock()
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	ra.mu.Unlock()
	rc, err := a.src.ReadRange(ctx, off, n)
	if err != nil {
		return nil, RangeError(err)
	}
	ra.requests.Add(1)
	return &Counted{R: rc, N: &ra.bytes}, nil
}

// inflate writes the member's bytes from its compressed body to w and
// checks their size and CRC-32.
func inflate(w io.Writer, body io.Reader, m *Member) error {
	in := &eofReader{r: body}
	var r io.Reader = in
	if m.Method == 8 {
		fr := flate.NewReader(in)
		defer fr.Close()
		r = fr
	}
	sum := crc32.NewIEEE()
	// One byte more than the member's size shows a member that is longer
	// than the directory says.
	n, err := io.Copy(io.MultiWriter(w, sum), io.LimitReader(r, m.Size+1))
	var corrupt flate.CorruptInputError
	switch {
	case errors.As(err, &corrupt):
		return fmt.Errorf("%w (its deflate stream is damaged: %v)", ErrChecksum, err)
	case errors.Is(err, io.ErrUnexpectedEOF) && in.eof:
		// Every compressed byte arrived and the stream wants more.
		return fmt.Errorf("%w (its deflate stream ends early)", ErrChecksum)
	case err != nil:
		return err
	case n != m.Size:
		return fmt.Errorf("%w (%d bytes inflated, the directory says %d)", ErrChecksum, n, m.Size)
	case sum.Sum32() != m.CRC32:
		return fmt.Errorf("%w (CRC-32 %08x, the directory says %08x)", ErrChecksum, sum.Sum32(), m.CRC32)
	}
	return nil
}

// eofReader notes that its reader ended cleanly, with io.EOF.
type eofReader struct {
	r   io.Reader
	eof bool
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.eof = true
	}
	return n, err
}

// Place makes the folders a member named want lies in inside root, and
// picks the name to write it under: want when free, a numbered
// alternative ("f (1).bin", "a (1).tar.gz") when another file is there.
// same reports that the file at want is the member already: a regular
// file of size bytes for which isMember(name) reports true.
func Place(root *os.Root, want string, size int64, isMember func(name string) bool) (name string, same bool, err error) {
	if d := path.Dir(want); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return want, false, fmt.Errorf("make folder %s: %w", d, err)
		}
	}
	for i := 0; i <= maxFreeNames; i++ {
		name = want
		if i > 0 {
			name = metalink.Numbered(want, i)
		}
		fi, err := root.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			if _, err := root.Lstat(name + partSuffix); err == nil && i > 0 {
				continue // another run is writing this alternative
			}
			return name, false, nil
		}
		if err != nil {
			return "", false, err
		}
		if i == 0 && fi.Mode().IsRegular() && fi.Size() == size && isMember(name) {
			return name, true, nil
		}
	}
	return "", false, fmt.Errorf("no free name left for %s", want)
}

// fileCRC is the CRC-32 of the file name in root; a file that cannot be
// read gets the CRC of nothing, which a non-empty member never has.
func fileCRC(root *os.Root, name string) uint32 {
	f, err := root.Open(name)
	if err != nil {
		return 0
	}
	defer f.Close()
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, f); err != nil {
		return 0
	}
	return h.Sum32()
}

// Counted is a range request's body that adds the bytes read through it
// to N.
type Counted struct {
	R io.ReadCloser
	N *atomic.Int64
}

func (c *Counted) Read(p []byte) (int, error) {
	k, err := c.R.Read(p)
	c.N.Add(int64(k))
	return k, err
}

func (c *Counted) Close() error { return c.R.Close() }
