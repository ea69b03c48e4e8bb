package mirrortest

import "math/rand/v2"

// Bytes returns n reproducible pseudo-random bytes: the same n and seed
// give the same bytes in every run, different seeds different bytes, and a
// shorter run of one seed is a prefix of a longer one (seed by the length
// too where files of different lengths must differ from the start). It is
// the one source of test data for the engine, queue and command tests, fast
// enough for the hundreds of megabytes a benchmark needs.
func Bytes(n int, seed uint64) []byte {
	var key [32]byte
	for i := range 8 {
		key[i] = byte(seed >> (8 * i))
	}
	b := make([]byte, n)
	rand.NewChaCha8(key).Read(b)
	return b
}
