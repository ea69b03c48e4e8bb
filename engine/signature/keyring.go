package signature

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
)

// KeyringName is the keyring's file in the state folder: the public keys
// the user trusts to sign downloads, as binary OpenPGP packets (what
// `gpg --export` writes, so gpg can read it too).
const KeyringName = "keyring.pgp"

// MaxKeyFile bounds a key file read by Import: a public key with its
// signatures is a few kilobytes; a distribution's keyring is well below this.
const MaxKeyFile = 8 << 20

// ErrNoKey: no key of the keyring has that fingerprint.
var ErrNoKey = errors.New("no such key in the keyring")

// Key is what the user sees of one public key of the keyring.
type Key struct {
	// Fingerprint is the primary key's fingerprint in upper-case hex.
	Fingerprint string
	// UserID is the primary user ID, "Name (comment) <email>", or "" when
	// the key has none.
	UserID  string
	Name    string
	Email   string
	Created time.Time
	// Revoked is set when the key carries its own revocation: its
	// signatures are no longer accepted.
	Revoked bool
}

// String is "Name <email> (FPR)", the way outcomes name a key.
func (k Key) String() string {
	if k.UserID == "" {
		return k.Fingerprint
	}
	return fmt.Sprintf("%s (%s)", k.UserID, k.Fingerprint)
}

func keyOf(e *openpgp.Entity) Key {
	k := Key{
		Fingerprint: fmt.Sprintf("%X", e.PrimaryKey.Fingerprint),
		Created:     e.PrimaryKey.CreationTime,
		Revoked:     e.Revoked(time.Now()),
	}
	if id := e.PrimaryIdentity(); id != nil {
		k.UserID = id.Name
		if id.UserId != nil {
			k.Name, k.Email = id.UserId.Name, id.UserId.Email
		}
	}
	return k
}

// Keyring is the user's keyring file. It holds no keys in memory: every
// call reads the file, so the window and a `braid keys` command in another
// process see each other's changes. Its methods are safe for concurrent
// use within a process; two processes importing at the same instant may
// lose one import (the last write wins, never a torn file).
type Keyring struct {
	path string
	mu   sync.Mutex // orders read-modify-write within this process
}

// OpenKeyring returns the keyring of the state folder dir (queue.Dir gives
// it). The file need not exist yet: an absent keyring is an empty one.
func OpenKeyring(dir string) *Keyring {
	return &Keyring{path: filepath.Join(dir, KeyringName)}
}

// Path is the keyring file's path.
func (k *Keyring) Path() string { return k.path }

// load reads the keyring file; a missing file is an empty keyring.
func (k *Keyring) load() (openpgp.EntityList, error) {
	b, err := os.ReadFile(k.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("keyring: %w", err)
	}
	if len(b) == 0 {
		return nil, nil
	}
	el, err := openpgp.ReadKeyRing(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("keyring %s is damaged: %w", k.path, err)
	}
	return el, nil
}

// save writes el to the keyring file through a temporary file and a
// rename, so a crash leaves the old keyring or the new, never half of one.
func (k *Keyring) save(el openpgp.EntityList) error {
	if err := os.MkdirAll(filepath.Dir(k.path), 0o700); err != nil {
		return fmt.Errorf("keyring: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(k.path), KeyringName+".tmp-*")
	if err != nil {
		return fmt.Errorf("keyring: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	w := bufio.NewWriter(tmp)
	for _, e := range el {
		if err := e.Serialize(w); err != nil {
			tmp.Close()
			return fmt.Errorf("keyring: write key %X: %w", e.PrimaryKey.Fingerprint, err)
		}
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("keyring: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("keyring: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("keyring: %w", err)
	}
	if err := os.Rename(tmp.Name(), k.path); err != nil {
		return fmt.Errorf("keyring: %w", err)
	}
	return nil
}

// Keys lists the keyring's keys in the order they were imported.
func (k *Keyring) Keys() ([]Key, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	el, err := k.load()
	if err != nil {
		return nil, err
	}
	keys := make([]Key, 0, len(el))
	for _, e := range el {
		keys = append(keys, keyOf(e))
	}
	return keys, nil
}

// ReadKeys reads public keys, armored ("-----BEGIN PGP PUBLIC KEY
// BLOCK-----") or binary, without touching the keyring.
func ReadKeys(r io.Reader) (openpgp.EntityList, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxKeyFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxKeyFile {
		return nil, fmt.Errorf("more than %d bytes: not a key file", MaxKeyFile)
	}
	var el openpgp.EntityList
	if bytes.Contains(b, []byte("-----BEGIN PGP")) {
		el, err = openpgp.ReadArmoredKeyRing(bytes.NewReader(b))
	} else {
		el, err = openpgp.ReadKeyRing(bytes.NewReader(b))
	}
	if err != nil {
		return nil, fmt.Errorf("not an OpenPGP public key: %w", err)
	}
	if len(el) == 0 {
		return nil, errors.New("no OpenPGP public key in it")
	}
	return el, nil
}

// Import adds the public keys r holds (armored or binary) to the keyring
// and returns them. A key already there is replaced by the one read, which
// brings in its new user IDs, subkeys and revocations. Secret key material
// is never stored: only the public parts are written.
func (k *Keyring) Import(r io.Reader) ([]Key, error) {
	add, err := ReadKeys(r)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	el, err := k.load()
	if err != nil {
		return nil, err
	}
	var added []Key
	for _, e := range add {
		at := slices.IndexFunc(el, func(have *openpgp.Entity) bool {
			return bytes.Equal(have.PrimaryKey.Fingerprint, e.PrimaryKey.Fingerprint)
		})
		if at >= 0 {
			el[at] = e
		} else {
			el = append(el, e)
		}
		added = append(added, keyOf(e))
	}
	if err := k.save(el); err != nil {
		return nil, err
	}
	return added, nil
}

// normalFingerprint is fpr in upper-case hex without spaces or "0x".
func normalFingerprint(fpr string) string {
	fpr = strings.ToUpper(strings.Join(strings.Fields(fpr), ""))
	return strings.TrimPrefix(fpr, "0X")
}

// Remove takes the key with fingerprint fpr (spaces and case do not
// matter; its 16-digit key ID will do) out of the keyring and returns it.
// ErrNoKey when there is none.
func (k *Keyring) Remove(fpr string) (Key, error) {
	want := normalFingerprint(fpr)
	k.mu.Lock()
	defer k.mu.Unlock()
	el, err := k.load()
	if err != nil {
		return Key{}, err
	}
	at := -1
	for i, e := range el {
		have := fmt.Sprintf("%X", e.PrimaryKey.Fingerprint)
		if have == want || (len(want) == 16 && strings.HasSuffix(have, want)) {
			at = i
			break
		}
	}
	if len(want) < 16 || at < 0 {
		return Key{}, fmt.Errorf("%w: %s", ErrNoKey, fpr)
	}
	gone := keyOf(el[at])
	if err := k.save(slices.Delete(el, at, at+1)); err != nil {
		return Key{}, err
	}
	return gone, nil
}

// Verify checks the detached signature sig (armored, base64 or binary)
// over the bytes of signed with the keyring's keys. The outcome says what
// was found, a bad signature included; the error is for a keyring or a
// signed file that cannot be read, when nothing could be checked.
func (k *Keyring) Verify(signed io.Reader, sig []byte) (Outcome, error) {
	k.mu.Lock()
	el, err := k.load()
	k.mu.Unlock()
	if err != nil {
		return Outcome{}, err
	}
	return verify(el, signed, sig)
}
