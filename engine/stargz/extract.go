package stargz

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"

	"braid/engine/metalink"
	"braid/engine/rootfile"
	"braid/engine/ziprange"
)

var (
	// ErrFolder is ziprange's: the member is a folder, which has no bytes.
	ErrFolder = ziprange.ErrFolder
	// ErrNoDigest: the TOC gives no digest for the file or its chunks.
	ErrNoDigest = errors.New("the archive's table of contents gives no digest for the member, so its bytes could not be checked; Braid does not fetch it")
)

// NotFileError: the member is a link or a device, which has no bytes of
// its own to fetch.
type NotFileError struct {
	Type     string // TypeSymlink, TypeChar, ...
	LinkName string
}

func (e *NotFileError) Error() string {
	switch e.Type {
	case TypeSymlink:
		return fmt.Sprintf("the member is a symbolic link to %s, with no bytes of its own; name the file it points to", e.LinkName)
	case TypeHardlink:
		return fmt.Sprintf("the member is a hard link to %s, which the archive does not hold as a file", e.LinkName)
	case TypeChar, TypeBlock:
		return "the member is a device file, with no bytes to fetch"
	case TypeFifo:
		return "the member is a named pipe, with no bytes to fetch"
	}
	return fmt.Sprintf("the member is of type %q, with no bytes to fetch", e.Type)
}

// DigestError: the TOC gives a digest in an algorithm Braid cannot check.
type DigestError struct {
	Digest string
}

func (e *DigestError) Error() string {
	alg, _, _ := strings.Cut(e.Digest, ":")
	return fmt.Sprintf("the archive's table of contents gives the member's digest in %q, which Braid cannot check (it checks sha256 and sha512); Braid does not fetch it", alg)
}

// Extracted is what Extract wrote.
type Extracted struct {
	// Name is where the member is, relative to the folder,
	// slash-separated: its own name, or a numbered alternative
	// ("f (1).bin") when another file was at that name.
	Name string
	// Size is the member's size in bytes.
	Size int64
	// Existing: a file with the member's size and digest was already at
	// Name, and nothing was fetched.
	Existing bool
	// Chunks is how many chunk digests were checked, besides the whole
	// file's digest (when the TOC gives one).
	Chunks int
}

// Extract fetches the regular file e (a hard link's: its target's bytes)
// and writes it into the folder dir under its name. It reads its gzip
// chunks alone, one request for each run of chunks that follow each other
// in the blob (a file's all, as eStargz writers lay them out), inflating
// them as they arrive, and checks every chunk's digest and the file's
// own. It is written as NAME.part inside an os.Root for dir, so no name or
// symlink can lead outside dir, and renamed to NAME only once every digest
// holds. A name metalink.SafeName refuses is never written. A file already
// at the name stays: one with the member's size and digest is taken as the
// member (Existing); otherwise the member goes to a free numbered name.
//
// It fails with ErrFolder, a *NotFileError, ErrNoDigest, a *DigestError,
// a *metalink.NameError, ErrNoRanges, ErrDigest, or the transfer's error.
func (b *Blob) Extract(ctx context.Context, e *Entry, dir string) (Extracted, error) {
	out := Extracted{Name: strings.TrimSuffix(e.Name, "/")}
	src := e
	switch e.Type {
	case TypeFile:
	case TypeDir:
		return out, ErrFolder
	case TypeHardlink:
		src = b.Entry(e.LinkName)
		if src == nil || src.Type != TypeFile {
			return out, &NotFileError{Type: e.Type, LinkName: e.LinkName}
		}
	default:
		return out, &NotFileError{Type: e.Type, LinkName: e.LinkName}
	}
	out.Size = src.Size
	if err := checkable(src); err != nil {
		return out, err
	}
	if err := metalink.SafeName(out.Name); err != nil {
		return out, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return out, fmt.Errorf("open folder: %w", err)
	}
	defer root.Close()
	name, same, err := ziprange.Place(root, out.Name, src.Size, func(name string) bool { return fileMatches(root, name, src.Digest) })
	out.Name, out.Existing = name, same
	if err != nil || same {
		return out, err
	}
	perm := os.FileMode(0o644)
	if src.Mode&0o111 != 0 || e.Mode&0o111 != 0 {
		perm = 0o755
	}
	// A member is fetched whole or not at all.
	err = rootfile.WriteWhole(ctx, root, name, perm, func(f *os.File) error {
		var err error
		out.Chunks, err = b.copyFile(ctx, f, src)
		return err
	})
	return out, err
}

// checkable reports why e's bytes could not be checked, nil when they
// can: the TOC must give the file's digest or every chunk's, in an
// algorithm Braid knows.
func checkable(e *Entry) error {
	if _, err := newDigester(e.Digest); err != nil {
		return err
	}
	all := e.Digest != "" || e.Size == 0
	if e.Digest == "" && e.Size > 0 {
		all = true
		for _, c := range e.Chunks {
			if c.Digest == "" {
				all = false
			}
		}
	}
	for _, c := range e.Chunks {
		if _, err := newDigester(c.Digest); err != nil {
			return err
		}
	}
	if !all {
		return ErrNoDigest
	}
	return nil
}

// digester checks bytes against a digest "ALG:HEX".
type digester struct {
	hash.Hash
	want []byte
}

// newDigester is the digester for d; nil (and no error) for "".
func newDigester(d string) (*digester, error) {
	if d == "" {
		return nil, nil
	}
	alg, hx, _ := strings.Cut(d, ":")
	var h hash.Hash
	switch alg {
	case "sha256":
		h = sha256.New()
	case "sha512":
		h = sha512.New()
	default:
		return nil, &DigestError{Digest: d}
	}
	want, err := hex.DecodeString(hx)
	if err != nil || len(want) != h.Size() {
		return nil, &DigestError{Digest: d}
	}
	return &digester{Hash: h, want: want}, nil
}

func (d *digester) ok() bool { return d == nil || bytes.Equal(d.Sum(nil), d.want) }

// copyFile writes e's bytes to w from its chunks and checks them; it
// returns how many chunk digests it checked.
func (b *Blob) copyFile(ctx context.Context, w io.Writer, e *Entry) (int, error) {
	whole, _ := newDigester(e.Digest) // checkable has refused a bad one
	var sink io.Writer = w
	if whole != nil {
		sink = io.MultiWriter(w, whole)
	}
	checked := 0
	cs := e.Chunks
	for i := 0; i < len(cs); {
		// A run: chunks whose gzip members follow each other, or share
		// one, fetched in one request.
		j := i + 1
		for j < len(cs) && (cs[j].Offset == cs[j-1].Offset || cs[j].Offset == cs[j-1].End) {
			j++
		}
		n, err := b.copyRun(ctx, sink, e, cs[i:j])
		checked += n
		if err != nil {
			return checked, err
		}
		i = j
	}
	if !whole.ok() {
		return checked, fmt.Errorf("%w (its %s differs)", ErrDigest, e.Digest)
	}
	return checked, nil
}

// copyRun writes the chunks of one run, in one request.
func (b *Blob) copyRun(ctx context.Context, w io.Writer, e *Entry, run []Chunk) (int, error) {
	start, stop := run[0].Offset, run[len(run)-1].End
	if start < 0 || stop > b.Size || stop <= start {
		return 0, fmt.Errorf("%w: %s: a chunk at bytes %d-%d of a %d-byte blob", ErrBadIndex, e.Name, start, stop-1, b.Size)
	}
	rc, err := b.open(ctx, start, stop-start)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	checked := 0
	var member *io.LimitedReader // the gzip member being read, to its end
	var zr *gzip.Reader
	cur, pos := int64(-1), int64(0) // the member's offset, and how much of it is inflated
	damaged := func(c Chunk, err error) error {
		var corrupt flate.CorruptInputError
		if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &corrupt) ||
			(errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) && member.N == 0 {
			return fmt.Errorf("%w (its gzip chunk at bytes %d-%d of the archive does not inflate to its %d bytes: %v)", ErrDigest, c.Offset, c.End-1, c.Size, err)
		}
		return err
	}
	for _, c := range run {
		if c.Offset != cur {
			if member != nil {
				if _, err := io.Copy(io.Discard, member); err != nil {
					return checked, err
				}
			}
			member = &io.LimitedReader{R: rc, N: c.End - c.Offset}
			var err error
			if zr, err = gzip.NewReader(bufio.NewReader(member)); err != nil {
				return checked, damaged(c, err)
			}
			zr.Multistream(false)
			cur, pos = c.Offset, 0
		}
		if c.InnerOffset < pos {
			return checked, fmt.Errorf("%w: %s: chunks that overlap in the gzip member at byte %d", ErrBadIndex, e.Name, c.Offset)
		}
		if _, err := io.CopyN(io.Discard, zr, c.InnerOffset-pos); err != nil {
			return checked, damaged(c, err)
		}
		d, _ := newDigester(c.Digest)
		dst := w
		if d != nil {
			dst = io.MultiWriter(w, d)
		}
		if _, err := io.CopyN(dst, zr, c.Size); err != nil {
			return checked, damaged(c, err)
		}
		pos = c.InnerOffset + c.Size
		if d != nil {
			checked++
			if !d.ok() {
				return checked, fmt.Errorf("%w (the chunk of its bytes %d-%d differs from its %s)", ErrDigest, c.FileOffset, c.FileOffset+c.Size-1, c.Digest)
			}
		}
	}
	// The rest of the last member (a tar's padding, the next entries'
	// headers) came with the request; it is read to its end.
	if _, err := io.Copy(io.Discard, member); err != nil {
		return checked, err
	}
	return checked, nil
}

// fileMatches reports whether the file name in root has the digest d; a
// file that cannot be read, or an empty d, does not.
func fileMatches(root *os.Root, name, d string) bool {
	h, err := newDigester(d)
	if err != nil || h == nil {
		return false
	}
	f, err := root.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return h.ok()
}
