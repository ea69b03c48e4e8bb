package metalink

import "strings"

// knownHashes maps a hash name with case, '-' and '_' removed to its IANA
// "Hash Function Textual Names" spelling (md4 is not in that registry but
// is named by Metalink 3). Metalink 3 writes "sha1", "sha256"; Metalink 4
// writes "sha-1", "sha-256"; real documents mix both and upper case.
var knownHashes = map[string]string{
	"md4":    "md4",
	"md5":    "md5",
	"sha1":   "sha-1",
	"sha224": "sha-224",
	"sha256": "sha-256",
	"sha384": "sha-384",
	"sha512": "sha-512",
}

// hexDigits is the length in hex digits of each known hash.
var hexDigits = map[string]int{
	"md4":     32,
	"md5":     32,
	"sha-1":   40,
	"sha-224": 56,
	"sha-256": 64,
	"sha-384": 96,
	"sha-512": 128,
}

// hashStrength ranks the hashes the engine can compute, strongest highest.
// It mirrors engine/piece's list (which imports this package, so it cannot
// be shared): sha-512 > sha-384 > sha-256 > sha-1 > md5. Other hashes rank 0.
var hashStrength = map[string]int{
	"sha-512": 5,
	"sha-384": 4,
	"sha-256": 3,
	"sha-1":   2,
	"md5":     1,
}

// NormalizeHash returns the IANA name of a hash type in lower case
// ("sha-256", "sha-1", "md5", ...) for any spelling Metalink 3 or 4
// documents use ("SHA256", "sha1", "SHA-256", " md5 "), and ok=true when it
// is a hash Braid knows. For an unknown name it returns the trimmed name in
// lower case and ok=false: such hashes are kept as data and not checked. It
// is safe for concurrent use.
func NormalizeHash(name string) (string, bool) {
	var key [16]byte
	n := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '-' || c == '_' || c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		if n == len(key) {
			n = 0
			break
		}
		key[n] = c
		n++
	}
	if n > 0 {
		if iana, ok := knownHashes[string(key[:n])]; ok {
			return iana, true
		}
	}
	return strings.ToLower(strings.TrimSpace(name)), false
}

// validHex reports whether s is lower-case hex of the length the named hash
// has; for a hash of unknown length any non-empty lower-case hex will do.
func validHex(typ, s string) bool {
	if want, ok := hexDigits[typ]; ok && len(s) != want {
		return false
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// cleanHex lower-cases a hash value and drops the whitespace that wraps or
// splits it in real documents.
func cleanHex(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c >= 'A' && c <= 'Z') || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}
