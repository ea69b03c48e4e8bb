package torrent

import (
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
)

// Checked is what Verify found for one file of a torrent.
type Checked struct {
	// Pieces holding bytes of the file; Bad of them failed their hash
	// (or could not be read); Unchecked could not be hashed, as they
	// hold bytes of a file the torrent did not download.
	Pieces, Unchecked int
	Bad               []int
	Missing           bool // the file is at neither its name nor NAME.part
}

// OK reports whether every piece of the file that could be checked
// matches, and some could.
func (c Checked) OK() bool { return !c.Missing && len(c.Bad) == 0 && c.Pieces > c.Unchecked }

// Verify hashes the named file of the torrent, in dir (at its final name,
// else NAME.part), against the torrent's piece hashes, as a torrent
// client's recheck does. A piece shared with another file reads that
// file's bytes; when that file is not on disk, the piece is unchecked.
func Verify(ctx context.Context, dir string, spec *Spec, name string) (Checked, error) {
	if spec.InfoBytes == nil {
		return Checked{}, errors.New("the torrent's metadata is not known yet")
	}
	info, spans, err := spec.layout()
	if err != nil {
		return Checked{}, err
	}
	i := slices.IndexFunc(spans, func(s fileSpan) bool { return s.name == name && !s.pad })
	if i < 0 {
		return Checked{}, fmt.Errorf("the torrent has no file %s", name)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return Checked{}, err
	}
	defer root.Close()
	open := map[int]*os.File{} // by span; nil: not on disk
	defer func() {
		for _, f := range open {
			if f != nil {
				f.Close()
			}
		}
	}()
	file := func(k int) *os.File {
		if f, ok := open[k]; ok {
			return f
		}
		f, err := root.Open(spans[k].name)
		if errors.Is(err, fs.ErrNotExist) {
			f, err = root.Open(spans[k].name + partSuffix)
		}
		if err != nil {
			f = nil
		}
		open[k] = f
		return f
	}
	var c Checked
	if file(i) == nil {
		return Checked{Missing: true}, nil
	}
	sp := spans[i]
	if sp.length == 0 {
		return Checked{Pieces: 0}, nil
	}
	first, end := sp.first, sp.end
	buf := make([]byte, info.PieceLength)
	h := sha1.New()
	for p := first; p < end; p++ {
		if err := ctx.Err(); err != nil {
			return c, err
		}
		c.Pieces++
		pc := info.Piece(p)
		off, n := int64(p)*info.PieceLength, pc.Length()
		b := buf[:n]
		clear(b)
		readable, unchecked := true, false
		for _, k := range spansOf(spans, off, n) {
			s := spans[k]
			if s.pad {
				continue
			}
			lo, hi := max(off, s.offset), min(off+n, s.offset+s.length)
			f := file(k)
			if f == nil {
				unchecked = true // another file, not downloaded
				break
			}
			if _, err := f.ReadAt(b[lo-off:hi-off], lo-s.offset); err != nil && err != io.EOF {
				readable = false
				break
			}
		}
		if unchecked && readable {
			c.Unchecked++
			continue
		}
		h.Reset()
		h.Write(b)
		want := pc.V1Hash()
		if !readable || !want.Ok || !bytes.Equal(h.Sum(nil), want.Value[:]) {
			c.Bad = append(c.Bad, p)
		}
	}
	return c, nil
}
