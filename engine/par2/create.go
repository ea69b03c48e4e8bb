package par2

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// CreateOptions say what parity Create makes.
type CreateOptions struct {
	// Percent is the recovery data as a share of the file (par2cmdline's
	// -r): the recovery slices are Percent × slices / 100, rounded, at
	// least 1. Ignored when Blocks is set.
	Percent int
	// Blocks is the number of recovery slices, if not 0.
	Blocks int
	// SliceSize is the slice size in bytes, a multiple of 4; 0 picks the
	// size that cuts the file into about 2000 slices, as par2cmdline does.
	SliceSize int64
	// Memory bounds the recovery data held at once (DefaultMemory).
	Memory int64
}

// Creator names Braid in the sets it makes.
const Creator = "Braid"

// defaultSlices is par2cmdline's default input slice count (-b2000).
const defaultSlices = 2000

// Create makes a PAR2 set for one file: path.par2 and its volumes
// path.volA+B.par2 beside it, named as par2cmdline names them. It refuses
// to overwrite a set that is there, and removes what it wrote if it fails.
// It returns the files it wrote, the index first.
func Create(ctx context.Context, path string, opt CreateOptions) ([]string, error) {
	src, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	size := st.Size()
	if size == 0 {
		return nil, fmt.Errorf("%s is empty; an empty file needs no parity", path)
	}
	sliceSize := opt.SliceSize
	if sliceSize == 0 {
		sliceSize = (size + defaultSlices - 1) / defaultSlices
		sliceSize = (sliceSize + 3) &^ 3
	}
	if sliceSize <= 0 || sliceSize%4 != 0 {
		return nil, fmt.Errorf("the slice size %d is not a positive multiple of 4", sliceSize)
	}
	slices := (size + sliceSize - 1) / sliceSize
	if slices > MaxSlices {
		return nil, fmt.Errorf("%s would have %d slices of %d bytes; PAR2 allows at most %d", path, slices, sliceSize, MaxSlices)
	}
	blocks := opt.Blocks
	if blocks == 0 {
		blocks = int((slices*int64(opt.Percent) + 50) / 100)
		if blocks == 0 && opt.Percent > 0 {
			blocks = 1
		}
	}
	if blocks <= 0 || blocks > 32768 {
		return nil, fmt.Errorf("%d recovery blocks: want 1 to 32768", blocks)
	}

	// One pass for the checksums, one (or more, if memory is short) for the
	// recovery data.
	name := filepath.Base(path)
	f, err := describe(ctx, src, size, sliceSize, name)
	if err != nil {
		return nil, err
	}
	set := &Set{SliceSize: sliceSize, Files: []File{f}, Creator: Creator}
	crit := criticalPackets(set)
	set.ID = crit.id

	base := path // par2cmdline names the set of NAME NAME.par2, beside it
	vols := volumeLayout(blocks)
	var written []string
	var files []*os.File
	cleanup := func() {
		for _, f := range files {
			f.Close()
		}
		for _, p := range written {
			os.Remove(p)
		}
	}
	create := func(p string) (*os.File, error) {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%s is already there; remove the old parity set first", p)
		}
		if err != nil {
			return nil, err
		}
		written = append(written, p)
		files = append(files, f)
		return f, nil
	}

	index, err := create(base + ".par2")
	if err != nil {
		cleanup()
		return nil, err
	}
	if _, err := index.Write(crit.all()); err != nil {
		cleanup()
		return nil, err
	}

	// Lay out each volume: its recovery packets (data filled in later, at
	// known offsets) and then a copy of the critical packets, so any one
	// volume describes the set on its own.
	type slot struct {
		f   *os.File
		off int64 // of the packet
	}
	slots := make([]slot, blocks)
	pkLen := int64(headerLen + 4 + sliceSize)
	for _, v := range vols {
		vf, err := create(fmt.Sprintf("%s.vol%0*d+%0*d.par2", base, v.widthA, v.first, v.widthB, v.count))
		if err != nil {
			cleanup()
			return nil, err
		}
		hdr := make([]byte, headerLen+4)
		for e := v.first; e < v.first+v.count; e++ {
			off := int64(e-v.first) * pkLen
			copy(hdr, magic[:])
			binary.LittleEndian.PutUint64(hdr[8:], uint64(pkLen))
			copy(hdr[32:], set.ID[:])
			copy(hdr[48:], typeRecovery[:])
			binary.LittleEndian.PutUint32(hdr[64:], uint32(e))
			if _, err := vf.WriteAt(hdr, off); err != nil {
				cleanup()
				return nil, err
			}
			slots[e] = slot{vf, off}
		}
		if _, err := vf.WriteAt(crit.all(), int64(v.count)*pkLen); err != nil {
			cleanup()
			return nil, err
		}
	}

	consts := inputConstants(int(slices))
	coef := make([][]uint16, blocks)
	for e := range coef {
		coef[e] = make([]uint16, slices)
		for i := range coef[e] {
			coef[e][i] = gfPow(consts[i], uint32(e))
		}
	}
	inputs := make([]sliceSource, slices)
	for i := range inputs {
		inputs[i] = set.fileSlice(src, 0, i)
	}
	err = combine(ctx, sliceSize, inputs, coef, opt.Memory, func(k int, off int64, b []byte) error {
		_, err := slots[k].f.WriteAt(b, slots[k].off+headerLen+4+off)
		return err
	})
	if err != nil {
		cleanup()
		return nil, err
	}
	// Each recovery packet's MD5 covers its data, so it is written last.
	for _, sl := range slots {
		m := md5.New()
		if _, err := io.Copy(m, io.NewSectionReader(sl.f, sl.off+32, pkLen-32)); err != nil {
			cleanup()
			return nil, err
		}
		if _, err := sl.f.WriteAt(m.Sum(nil), sl.off+16); err != nil {
			cleanup()
			return nil, err
		}
	}
	for _, f := range files {
		if err := f.Sync(); err != nil {
			cleanup()
			return nil, err
		}
	}
	for _, f := range files {
		if err := f.Close(); err != nil {
			files = nil
			cleanup()
			return nil, err
		}
	}
	return written, nil
}

// describe reads the file once for its hashes and slice checksums.
func describe(ctx context.Context, r io.ReaderAt, size, sliceSize int64, name string) (File, error) {
	f := File{Name: name, Size: size}
	whole := md5.New()
	buf := make([]byte, sliceSize)
	for start := int64(0); start < size; start += sliceSize {
		if err := ctx.Err(); err != nil {
			return File{}, err
		}
		n := min(sliceSize, size-start)
		if err := readAt(r, buf[:n], start); err != nil {
			return File{}, err
		}
		clear(buf[n:])
		whole.Write(buf[:n])
		if start == 0 {
			f.MD5_16 = md5.Sum(buf[:min(n, 16<<10)])
			if n < 16<<10 && size > n {
				// A slice smaller than 16 KiB: hash the first 16 KiB apart.
				first := make([]byte, min(size, 16<<10))
				if err := readAt(r, first, 0); err != nil {
					return File{}, err
				}
				f.MD5_16 = md5.Sum(first)
			}
		}
		f.Slices = append(f.Slices, Checksum{MD5: md5.Sum(buf), CRC32: crc32.ChecksumIEEE(buf)})
	}
	whole.Sum(f.MD5[:0])
	// The file ID is the MD5 of the 16 KiB hash, the length and the name.
	idIn := make([]byte, 0, 24+len(name))
	idIn = append(idIn, f.MD5_16[:]...)
	idIn = binary.LittleEndian.AppendUint64(idIn, uint64(size))
	idIn = append(idIn, name...)
	f.ID = md5.Sum(idIn)
	return f, nil
}

type critical struct {
	id                        [16]byte
	main, desc, ifsc, creator []byte
}

func (c critical) all() []byte {
	var b []byte
	b = append(b, c.main...)
	b = append(b, c.desc...)
	b = append(b, c.ifsc...)
	return append(b, c.creator...)
}

// criticalPackets encodes the main, file description, checksum and creator
// packets of a one-file set; the set ID is the MD5 of the main body.
func criticalPackets(s *Set) critical {
	f := s.Files[0]
	mainBody := binary.LittleEndian.AppendUint64(nil, uint64(s.SliceSize))
	mainBody = binary.LittleEndian.AppendUint32(mainBody, 1)
	mainBody = append(mainBody, f.ID[:]...)
	c := critical{id: md5.Sum(mainBody)}
	c.main = encodePacket(c.id, typeMain, mainBody)

	desc := append([]byte(nil), f.ID[:]...)
	desc = append(desc, f.MD5[:]...)
	desc = append(desc, f.MD5_16[:]...)
	desc = binary.LittleEndian.AppendUint64(desc, uint64(f.Size))
	desc = append(desc, f.Name...)
	c.desc = encodePacket(c.id, typeFileDesc, desc)

	ifsc := append([]byte(nil), f.ID[:]...)
	for _, sl := range f.Slices {
		ifsc = append(ifsc, sl.MD5[:]...)
		ifsc = binary.LittleEndian.AppendUint32(ifsc, sl.CRC32)
	}
	c.ifsc = encodePacket(c.id, typeIFSC, ifsc)
	c.creator = encodePacket(c.id, typeCreator, []byte(Creator))
	return c
}

type volume struct {
	first, count   int
	widthA, widthB int
}

// volumeLayout splits the recovery slices into volumes of 1, 2, 4, ...
// slices, the last holding the rest, as par2cmdline does by default, so a
// downloader can fetch about as many as the damage needs.
func volumeLayout(blocks int) []volume {
	var vols []volume
	for first, n := 0, 1; first < blocks; first, n = first+n, n*2 {
		vols = append(vols, volume{first: first, count: min(n, blocks-first)})
	}
	maxFirst, maxCount := 0, 0
	for _, v := range vols {
		maxFirst = max(maxFirst, v.first)
		maxCount = max(maxCount, v.count)
	}
	wa, wb := len(fmt.Sprint(maxFirst)), len(fmt.Sprint(maxCount))
	for i := range vols {
		vols[i].widthA, vols[i].widthB = wa, wb
	}
	return vols
}
