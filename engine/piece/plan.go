package piece

import (
	"bytes"
	"encoding/hex"
	"hash"
	"sync"

	"braid/engine/metalink"
)

// Plan is how the engine divides one file into pieces and how it checks
// each piece. A Plan is a value that is never changed after PlanFor makes
// it, so it is safe for concurrent use.
type Plan struct {
	Layout
	// Type is the piece hash type (an IANA name such as "sha-256"), or ""
	// when the pieces cannot be checked.
	Type string
	// Hashes holds the expected digest of each piece, one per piece, or nil
	// when the pieces serve progress and resume only.
	Hashes [][]byte
}

// maxPlainPieces bounds the pieces of a plan without hashes. A metalink
// may claim any size; a piece map of a petabyte in 1 MiB pieces would not
// fit in memory. (With hashes the count is that of the hashes the document
// carries, which its reader bounds.)
const maxPlainPieces = 1 << 20

// PlanFor returns the plan for f. It uses the metalink's piece hashes when
// they are present, of a type Braid can compute, well formed, and exactly as
// many as f.Size divides into; otherwise the plan has no hashes, for
// progress and resume only, and DefaultLength pieces (longer ones, doubled
// until there are at most about a million, for a file over a terabyte). A
// file of unknown size (f.Size < 0) gets an empty layout.
func PlanFor(f metalink.File) Plan {
	size := max(f.Size, 0)
	if hashes, ok := pieceHashes(f); ok {
		return Plan{Layout: Layout{Size: size, Length: f.Pieces.Length}, Type: f.Pieces.Type, Hashes: hashes}
	}
	l := Layout{Size: size, Length: DefaultLength}
	for l.Count() > maxPlainPieces {
		l.Length *= 2
	}
	return Plan{Layout: l}
}

// pieceHashes decodes f's piece hashes, and reports false when they cannot
// be used to check f.
func pieceHashes(f metalink.File) ([][]byte, bool) {
	p := f.Pieces
	if p == nil || p.Length <= 0 || f.Size <= 0 {
		return nil, false
	}
	if !Supported(p.Type) || (Layout{Size: f.Size, Length: p.Length}).Count() != len(p.Hashes) {
		return nil, false
	}
	st := getHash(p.Type)
	width := st.h.Size()
	putHash(p.Type, st)
	out := make([][]byte, len(p.Hashes))
	for i, s := range p.Hashes {
		b, err := hex.DecodeString(s)
		if err != nil || len(b) != width {
			return nil, false
		}
		out[i] = b
	}
	return out, true
}

// Verifiable reports whether the plan carries piece hashes, so that Check
// can tell a good piece from a bad one.
func (p Plan) Verifiable() bool { return p.Hashes != nil }

// Check reports whether data is the exact content of piece i. Without piece
// hashes it reports true when data has the piece's length: such a plan can
// only be judged by the whole-file hash. Check is safe for concurrent use
// and allocates nothing in the steady state: hash states come from a pool.
func (p Plan) Check(i int, data []byte) bool {
	if i < 0 || i >= p.Count() {
		return false
	}
	if _, n := p.Bounds(i); int64(len(data)) != n {
		return false
	}
	if !p.Verifiable() {
		return true
	}
	st := getHash(p.Type)
	defer putHash(p.Type, st)
	st.h.Write(data)
	return bytes.Equal(st.h.Sum(st.sum[:0]), p.Hashes[i])
}

// hashState is a reusable hash with room for its digest, so that checking
// a piece allocates nothing.
type hashState struct {
	h   hash.Hash
	sum [64]byte // the largest digest, sha-512's
}

// pools holds a pool of hash states per supported type. Hashing runs for
// every piece that completes, so reuse saves an allocation of the hash's
// state (and, for sha-512, a sizeable one) per piece.
var pools = func() map[string]*sync.Pool {
	m := make(map[string]*sync.Pool, len(strength))
	for _, s := range strength {
		newHash := s.new
		m[s.name] = &sync.Pool{New: func() any { return &hashState{h: newHash()} }}
	}
	return m
}()

// getHash returns a reset hash state of a supported type; the caller
// returns it with putHash.
func getHash(typ string) *hashState {
	st := pools[typ].Get().(*hashState)
	st.h.Reset()
	return st
}

func putHash(typ string, st *hashState) { pools[typ].Put(st) }
