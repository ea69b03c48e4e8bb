// Package piece knows how a file divides into pieces, which of them are
// done, and whether their bytes match the hashes a metalink carries.
package piece

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"hash"

	"braid/engine/metalink"
)

// ErrUnknownHash: a hash type Braid cannot compute. Such hashes are kept as
// data and skipped for checking.
var ErrUnknownHash = errors.New("unknown hash type")

// strength lists the supported hash types, strongest first (DESIGN.md).
var strength = []struct {
	name string
	new  func() hash.Hash
}{
	{"sha-512", sha512.New},
	{"sha-384", sha512.New384},
	{"sha-256", sha256.New},
	{"sha-1", sha1.New},
	{"md5", md5.New},
}

// NewHash returns a fresh hash for an IANA hash name in lower case.
func NewHash(name string) (hash.Hash, error) {
	for _, s := range strength {
		if s.name == name {
			return s.new(), nil
		}
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownHash, name)
}

// Supported reports whether Braid can compute the named hash.
func Supported(name string) bool {
	_, err := NewHash(name)
	return err == nil
}

// Strongest returns the strongest whole-file hash Braid can check, and
// false when none of them is supported.
func Strongest(hashes []metalink.Hash) (metalink.Hash, bool) {
	for _, s := range strength {
		for _, h := range hashes {
			if h.Type == s.name {
				return h, true
			}
		}
	}
	return metalink.Hash{}, false
}
