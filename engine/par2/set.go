// Package par2 reads, checks, makes and repairs with PAR2 2.0 parity sets
// (parchive.github.io), the format par2cmdline, NZBGet and SABnzbd share.
//
// A set cuts its files into slices of one size and adds recovery slices,
// Reed–Solomon over GF(2^16): any damaged slices can be rebuilt from as many
// recovery slices. Everything here works a slice (or a part of a slice) at a
// time, through io.ReaderAt and io.WriterAt, so memory stays bounded by the
// slice size times the slices being made, never by the file's size.
package par2

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Set is a parsed PAR2 recovery set: its files, their slice checksums, and
// where each recovery slice lies in the files it was read from.
type Set struct {
	ID        [16]byte
	SliceSize int64
	// Files are the recovery set's files in the main packet's order, which
	// is the order their slices are numbered in.
	Files []File
	// Creator is the creating program's self-description, if one was read.
	Creator string

	recovery map[uint32]recoverySlice // by exponent
	closers  []io.Closer
}

// File is one file of the recovery set.
type File struct {
	ID     [16]byte
	Name   string // as the set names it; check it with a safe-path helper before use
	Size   int64
	MD5    [16]byte // of the whole file
	MD5_16 [16]byte // of its first 16 KiB
	// Slices are the MD5 and CRC32 of each of the file's slices, the last
	// one padded with zeros to the slice size.
	Slices []Checksum
	// First is the number of the file's first slice in the set.
	First int
}

// Checksum is one slice's checksums from the IFSC packet.
type Checksum struct {
	MD5   [16]byte
	CRC32 uint32
}

type recoverySlice struct {
	r   io.ReaderAt
	off int64 // of the slice data
}

// Slices is the number of input slices in the set.
func (s *Set) Slices() int {
	n := 0
	for _, f := range s.Files {
		n += len(f.Slices)
	}
	return n
}

// RecoveryBlocks is the number of intact recovery slices the set holds.
func (s *Set) RecoveryBlocks() int { return len(s.recovery) }

// Close closes the files Open opened.
func (s *Set) Close() error {
	var first error
	for _, c := range s.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.closers = nil
	return first
}

// Volumes returns the files beside the index file index that par2cmdline's
// naming makes part of its set: NAME.par2 has NAME.volA+B.par2 (and
// NAME.vol*.par2 in any case), sorted.
func Volumes(index string) ([]string, error) {
	base := index
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".par2") {
		base = base[:len(base)-len(ext)]
	}
	matches, err := filepath.Glob(globEscape(base) + ".vol*.[pP][aA][rR]2")
	if err != nil {
		return nil, err
	}
	sort.Strings(matches)
	return matches, nil
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) && filepath.Separator != '\\' {
			b.WriteByte('\\')
		} else if strings.ContainsRune(`*?[`, r) {
			// Windows has no glob escape; a bracket class matches the rune.
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Open reads the PAR2 files at paths (an index and any volumes) into one
// set. Damaged packets are skipped; the set needs one intact main packet
// and, for each of its files, an intact description and checksum packet.
// The returned set keeps the files open for their recovery slices; Close it.
func Open(paths ...string) (*Set, error) {
	p := newParser()
	var closers []io.Closer
	fail := func(err error) (*Set, error) {
		for _, c := range closers {
			c.Close()
		}
		return nil, err
	}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return fail(err)
		}
		closers = append(closers, f)
		st, err := f.Stat()
		if err != nil {
			return fail(err)
		}
		if err := p.add(f, st.Size()); err != nil {
			return fail(fmt.Errorf("%s: %w", path, err))
		}
	}
	set, err := p.finish()
	if err != nil {
		return fail(fmt.Errorf("%s: %w", strings.Join(paths, ", "), err))
	}
	set.closers = closers
	return set, nil
}

// Parse reads a set from readers that stay valid while the set is used.
func Parse(rs []io.ReaderAt, sizes []int64) (*Set, error) {
	p := newParser()
	for i, r := range rs {
		if err := p.add(r, sizes[i]); err != nil {
			return nil, err
		}
	}
	return p.finish()
}

type parser struct {
	mains    map[[16]byte][]byte // body by set ID
	order    [][16]byte          // set IDs in the order mains were found
	descs    map[[32]byte][]byte // by set ID + file ID
	ifscs    map[[32]byte][]byte
	recovery map[[16]byte]map[uint32]recoveryAt
	creator  map[[16]byte]string
}

type recoveryAt struct {
	r      io.ReaderAt
	off    int64
	length int64
}

func newParser() *parser {
	return &parser{
		mains:    map[[16]byte][]byte{},
		descs:    map[[32]byte][]byte{},
		ifscs:    map[[32]byte][]byte{},
		recovery: map[[16]byte]map[uint32]recoveryAt{},
		creator:  map[[16]byte]string{},
	}
}

func key(set, file [16]byte) (k [32]byte) {
	copy(k[:16], set[:])
	copy(k[16:], file[:])
	return k
}

func (p *parser) add(r io.ReaderAt, size int64) error {
	sc := &scanner{r: r, size: size}
	for {
		h, off, err := sc.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		bodyLen := h.length - headerLen
		if h.typ == typeRecovery {
			if bodyLen < 4 {
				continue
			}
			var eb [4]byte
			if err := readAt(r, eb[:], off+headerLen); err != nil {
				return err
			}
			exp := binary.LittleEndian.Uint32(eb[:])
			m := p.recovery[h.setID]
			if m == nil {
				m = map[uint32]recoveryAt{}
				p.recovery[h.setID] = m
			}
			if _, dup := m[exp]; !dup {
				m[exp] = recoveryAt{r: r, off: off + headerLen + 4, length: bodyLen - 4}
			}
			continue
		}
		if bodyLen > maxCriticalPacket {
			continue
		}
		switch h.typ {
		case typeMain, typeFileDesc, typeIFSC, typeCreator:
		default:
			continue // a packet Braid does not use (par2cmdline's own, PAR 2.1)
		}
		body, err := readBody(r, off, h)
		if err != nil {
			return err
		}
		switch h.typ {
		case typeMain:
			if _, dup := p.mains[h.setID]; !dup {
				p.mains[h.setID] = body
				p.order = append(p.order, h.setID)
			}
		case typeFileDesc:
			if len(body) >= 56 {
				var id [16]byte
				copy(id[:], body)
				if _, dup := p.descs[key(h.setID, id)]; !dup {
					p.descs[key(h.setID, id)] = body
				}
			}
		case typeIFSC:
			if len(body) >= 16 {
				var id [16]byte
				copy(id[:], body)
				if _, dup := p.ifscs[key(h.setID, id)]; !dup {
					p.ifscs[key(h.setID, id)] = body
				}
			}
		case typeCreator:
			p.creator[h.setID] = string(bytes.TrimRight(body, "\x00"))
		}
	}
}

func (p *parser) finish() (*Set, error) {
	if len(p.order) == 0 {
		return nil, ErrNoMainPacket
	}
	// More than one set in the files is unusual (files from two sets given
	// together); the first main packet found names the set.
	id := p.order[0]
	body := p.mains[id]
	if len(body) < 12 {
		return nil, errors.New("the PAR2 main packet is too short")
	}
	s := &Set{ID: id, recovery: map[uint32]recoverySlice{}, Creator: p.creator[id]}
	s.SliceSize = int64(binary.LittleEndian.Uint64(body[0:8]))
	if s.SliceSize <= 0 || s.SliceSize%4 != 0 || s.SliceSize > 1<<40 {
		return nil, fmt.Errorf("the PAR2 slice size %d is not a positive multiple of 4", s.SliceSize)
	}
	nfiles := binary.LittleEndian.Uint32(body[8:12])
	if uint64(nfiles) > uint64(len(body)-12)/16 {
		return nil, fmt.Errorf("the PAR2 main packet lists %d files but has room for %d", nfiles, (len(body)-12)/16)
	}
	first := 0
	for i := 0; i < int(nfiles); i++ {
		var fid [16]byte
		copy(fid[:], body[12+16*i:])
		f, err := parseFile(p.descs[key(id, fid)], p.ifscs[key(id, fid)], fid, s.SliceSize)
		if err != nil {
			return nil, fmt.Errorf("file %d of the PAR2 set: %w", i+1, err)
		}
		f.First = first
		first += len(f.Slices)
		if first > MaxSlices {
			return nil, fmt.Errorf("the PAR2 set has more than %d input slices", MaxSlices)
		}
		s.Files = append(s.Files, f)
	}
	for exp, at := range p.recovery[id] {
		if at.length == s.SliceSize && exp < gfOrder {
			s.recovery[exp] = recoverySlice{r: at.r, off: at.off}
		}
	}
	return s, nil
}

func parseFile(desc, ifsc []byte, id [16]byte, sliceSize int64) (File, error) {
	if desc == nil {
		return File{}, errors.New("its description packet is missing or damaged")
	}
	if ifsc == nil {
		return File{}, errors.New("its checksum packet is missing or damaged")
	}
	f := File{ID: id}
	copy(f.MD5[:], desc[16:32])
	copy(f.MD5_16[:], desc[32:48])
	size := binary.LittleEndian.Uint64(desc[48:56])
	if size > 1<<62 {
		return File{}, fmt.Errorf("its length %d is not a file length", size)
	}
	f.Size = int64(size)
	f.Name = string(bytes.TrimRight(desc[56:], "\x00"))
	n := (f.Size + sliceSize - 1) / sliceSize
	entries := (len(ifsc) - 16) / 20
	if int64(entries) != n {
		return File{}, fmt.Errorf("%q has %d slices but its checksum packet lists %d", f.Name, n, entries)
	}
	f.Slices = make([]Checksum, n)
	for i := range f.Slices {
		e := ifsc[16+20*i:]
		copy(f.Slices[i].MD5[:], e[:16])
		f.Slices[i].CRC32 = binary.LittleEndian.Uint32(e[16:20])
	}
	return f, nil
}
