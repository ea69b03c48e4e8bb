package par2

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// A packet is a 64-byte header and a body. The header is the magic, the
// packet's length (header included, a multiple of 4), the MD5 of everything
// from the set ID to the end, the recovery set ID and the packet type.
const headerLen = 64

var magic = [8]byte{'P', 'A', 'R', '2', 0, 'P', 'K', 'T'}

// Packet types (spec, "Packet Types").
var (
	typeMain     = packetType("PAR 2.0\x00Main\x00\x00\x00\x00")
	typeFileDesc = packetType("PAR 2.0\x00FileDesc")
	typeIFSC     = packetType("PAR 2.0\x00IFSC\x00\x00\x00\x00")
	typeRecovery = packetType("PAR 2.0\x00RecvSlic")
	typeCreator  = packetType("PAR 2.0\x00Creator\x00")
)

func packetType(s string) (t [16]byte) {
	copy(t[:], s)
	return t
}

// maxCriticalPacket bounds the packets Braid reads whole (main, file
// description, checksums): the largest legal checksum packet is 32768
// entries of 20 bytes, so anything past a few MiB is damage, not data.
const maxCriticalPacket = 4 << 20

type header struct {
	length int64
	sum    [16]byte
	setID  [16]byte
	typ    [16]byte
}

func parseHeader(b []byte) (header, bool) {
	if len(b) < headerLen || !bytes.Equal(b[:8], magic[:]) {
		return header{}, false
	}
	var h header
	n := binary.LittleEndian.Uint64(b[8:16])
	if n < headerLen || n%4 != 0 || n > 1<<62 {
		return header{}, false
	}
	h.length = int64(n)
	copy(h.sum[:], b[16:32])
	copy(h.setID[:], b[32:48])
	copy(h.typ[:], b[48:64])
	return h, true
}

// encodePacket returns a whole packet of the given type and body (the body
// padded with zeros to a multiple of 4).
func encodePacket(setID [16]byte, typ [16]byte, body []byte) []byte {
	pad := (4 - len(body)%4) % 4
	p := make([]byte, headerLen+len(body)+pad)
	copy(p, magic[:])
	binary.LittleEndian.PutUint64(p[8:], uint64(len(p)))
	copy(p[32:], setID[:])
	copy(p[48:], typ[:])
	copy(p[64:], body)
	sum := md5.Sum(p[32:])
	copy(p[16:], sum[:])
	return p
}

// Errors a caller may tell apart with errors.Is.
var (
	// ErrNoMainPacket: the files hold no intact main packet, so they are
	// not (or no longer) a usable PAR2 set.
	ErrNoMainPacket = errors.New("no intact PAR2 main packet")
	// ErrNotEnough: the damage needs more recovery slices than the set has.
	ErrNotEnough = errors.New("not enough recovery blocks")
)

// scanner walks the packets of one file, skipping damage: after a packet
// that is cut short or fails its MD5 it looks for the next magic.
type scanner struct {
	r      io.ReaderAt
	size   int64
	off    int64
	buf    []byte
	hashed int64 // bytes hashed so far, bounded by hashBudget
}

// hashBudget bounds the bytes one file's scan hashes. Intact packets do
// not overlap and a damaged one is hashed once before the scan looks inside
// it, so a real file, however damaged, needs about twice its size; a file
// of crafted headers that each claim the rest of it would need its size
// squared (15 s for 1 MB), and its scan stops here instead.
func (s *scanner) hashBudget() int64 { return 2*s.size + 1<<20 }

// next returns the next intact packet's header and its offset, or io.EOF.
// A packet whose body MD5 fails is skipped, never returned.
func (s *scanner) next() (header, int64, error) {
	hb := make([]byte, headerLen)
	for s.off+headerLen <= s.size {
		if err := readAt(s.r, hb, s.off); err != nil {
			return header{}, 0, err
		}
		h, ok := parseHeader(hb)
		if ok && h.length <= s.size-s.off {
			if s.hashed += h.length; s.hashed > s.hashBudget() {
				return header{}, 0, io.EOF
			}
			good, err := s.checkSum(h)
			if err != nil {
				return header{}, 0, err
			}
			if good {
				off := s.off
				s.off += h.length
				return h, off, nil
			}
		}
		nxt, err := s.findMagic(s.off + 1)
		if err != nil {
			return header{}, 0, err
		}
		s.off = nxt
	}
	return header{}, 0, io.EOF
}

// checkSum hashes the packet at s.off from its set ID to its end, streaming,
// so a recovery packet of a large slice never sits in memory whole.
func (s *scanner) checkSum(h header) (bool, error) {
	m := md5.New()
	if _, err := io.Copy(m, io.NewSectionReader(s.r, s.off+32, h.length-32)); err != nil {
		return false, fmt.Errorf("read at %d: %w", s.off, err)
	}
	var got [16]byte
	m.Sum(got[:0])
	return got == h.sum, nil
}

// findMagic returns the offset of the next magic at or after from, or size.
func (s *scanner) findMagic(from int64) (int64, error) {
	if s.buf == nil {
		s.buf = make([]byte, 64<<10)
	}
	for from+int64(len(magic)) <= s.size {
		n := int64(len(s.buf))
		if rest := s.size - from; rest < n {
			n = rest
		}
		b := s.buf[:n]
		if err := readAt(s.r, b, from); err != nil {
			return 0, err
		}
		if i := bytes.Index(b, magic[:]); i >= 0 {
			return from + int64(i), nil
		}
		if n < int64(len(magic)) {
			break
		}
		from += n - int64(len(magic)) + 1
	}
	return s.size, nil
}

// readBody reads the body of a packet that was found intact.
func readBody(r io.ReaderAt, off int64, h header) ([]byte, error) {
	b := make([]byte, h.length-headerLen)
	if err := readAt(r, b, off+headerLen); err != nil {
		return nil, err
	}
	return b, nil
}

// readAt fills b from off; an io.EOF that comes with a full b is no error
// (io.ReaderAt allows either at the end of a file).
func readAt(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read %d bytes at %d: %w", len(b), off, err)
}
