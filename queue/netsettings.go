package queue

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/zalando/go-keyring"

	"braid/engine/netconf"
)

// A job's network settings (issue 25): the logins, cookies and headers it
// was given, so that a resume by the window or `braid queue run` after a
// restart sends what the first run sent. The public part
// (netconf.Settings.Split) is kept in state.db; the secret part
// (passwords, header values, which often carry a session cookie or a
// token) never is: it lives in this process's memory and, where the
// system has one, in its keyring (Secret Service, Keychain, Credential
// Manager). Without a keyring the secret lasts for the session only. A
// cookie file is kept by its path and read again at each run: its cookies
// never enter state.db.

// keyringService is the service name of Braid's keyring items.
const keyringService = "braid"

// Keyring is the system keyring the queue keeps secrets in; tests replace
// it. Its methods are those of go-keyring.
type Keyring interface {
	Set(service, user, secret string) error
	Get(service, user string) (string, error)
	Delete(service, user string) error
}

type systemKeyring struct{}

func (systemKeyring) Set(s, u, p string) error        { return keyring.Set(s, u, p) }
func (systemKeyring) Get(s, u string) (string, error) { return keyring.Get(s, u) }
func (systemKeyring) Delete(s, u string) error        { return keyring.Delete(s, u) }
func isNotFound(err error) bool                       { return errors.Is(err, keyring.ErrNotFound) }
func keyringUser(path string, id int64) string {
	return "job " + strconv.FormatInt(id, 10) + " of " + path
}
func memoryKey(path string, id int64) string { return keyringUser(path, id) }
func (q *Queue) secretKey(id int64) (service, user string) {
	return keyringService, keyringUser(q.path, id)
}

// secrets are the secret parts of the jobs' settings held for this
// process, by state folder and job, shared by every Queue of a folder the
// process opens (the window's, a get's).
var secrets = struct {
	mu sync.Mutex
	m  map[string]netconf.Secret

	ring      Keyring
	probed    bool
	available bool
	told      bool
}{m: map[string]netconf.Secret{}, ring: systemKeyring{}}

// UseKeyring makes k the keyring secrets are kept in (nil: none at all,
// the session only). For tests; call it before any queue keeps a secret.
func UseKeyring(k Keyring) {
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	secrets.ring, secrets.probed, secrets.available, secrets.told = k, false, false, false
}

// ringLocked is the keyring when the system has one; it asks once per
// process. secrets.mu is held.
func ringLocked() Keyring {
	if !secrets.probed {
		secrets.probed = true
		if secrets.ring != nil {
			_, err := secrets.ring.Get(keyringService, "probe")
			secrets.available = err == nil || isNotFound(err)
		}
	}
	if secrets.available {
		return secrets.ring
	}
	return nil
}

// NoKeyringNote is the sentence said once per process when a job's
// secrets cannot outlive the session.
const NoKeyringNote = "this system has no keyring (Secret Service): the passwords, cookies and headers given for a download are kept for this session only; after a restart the download runs without them"

// SetNet keeps s as job id's network settings, replacing any it had:
// the public part in the database, the secret part (passwords, header
// values) in memory and, with remember, the keyring; without remember it
// is kept for this session only, and any copy in the keyring is deleted.
// A secret is never written to state.db. Settings with nothing in them
// remove the job's. note is NoKeyringNote the first time in the process
// a secret to remember could not go to a keyring (say it once), else "".
func (q *Queue) SetNet(id int64, s netconf.Settings, remember bool) (note string, err error) {
	if s.Empty() {
		return "", q.forgetNet(id)
	}
	if !remember {
		return "", q.setNetForSession(id, s)
	}
	return q.keepNet(q.db, id, s)
}

// execer runs a statement: the database, or a transaction.
type execer interface {
	Exec(query string, args ...any) (sql.Result, error)
}

// keepNet is SetNet of settings s with remember, the public part written
// through ex (the database, or the transaction that adds job id).
func (q *Queue) keepNet(ex execer, id int64, s netconf.Settings) (note string, err error) {
	op := fmt.Sprintf("keep the network settings of job %d", id)
	pub, sec := s.Split()
	for i, l := range pub.Links {
		// Only a link's host matters here; a login in it is the link's.
		pub.Links[i] = Redact(l)
	}
	hasSecret := !sec.Empty()
	b, err := json.Marshal(pub)
	if err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	res, err := ex.Exec(`INSERT INTO job_net (job, settings, secret) SELECT id, ?, ? FROM jobs WHERE id = ?
		ON CONFLICT (job) DO UPDATE SET settings = excluded.settings, secret = excluded.secret`, string(b), hasSecret, id)
	if err != nil {
		return "", q.wrap(op, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return "", fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	key := memoryKey(q.path, id)
	ring := ringLocked()
	if !hasSecret {
		delete(secrets.m, key)
		if ring != nil {
			_ = ring.Delete(q.secretKey(id))
		}
		return "", nil
	}
	secrets.m[key] = sec
	if ring != nil {
		sb, _ := json.Marshal(sec)
		service, user := q.secretKey(id)
		if ring.Set(service, user, string(sb)) == nil {
			return "", nil
		}
	}
	if !secrets.told {
		secrets.told = true
		return NoKeyringNote, nil
	}
	return "", nil
}

// addNet keeps j.Net, when it has anything, as new job id's network
// settings (SetNet's, remembered) in tx, the transaction that adds the
// job, and SetNet's note in j.NetNote. The secret is kept before the job
// is committed, so no runner of this process can take the job without
// it; addJob forgets it if the job is not committed after all.
func (q *Queue) addNet(tx *sql.Tx, id int64, j NewJob) error {
	if j.Net == nil || j.Net.Empty() {
		return nil
	}
	note, err := q.keepNet(tx, id, *j.Net)
	if j.NetNote != nil {
		*j.NetNote = note
	}
	return err
}

// Net returns job id's network settings, secrets joined, and whether it
// has any. lost says a secret was given but is gone (kept for a session
// that ended): the settings come without it.
func (q *Queue) Net(id int64) (s netconf.Settings, ok, lost bool, err error) {
	var (
		js        string
		hasSecret bool
	)
	err = q.db.QueryRow(`SELECT settings, secret FROM job_net WHERE job = ?`, id).Scan(&js, &hasSecret)
	if errors.Is(err, sql.ErrNoRows) {
		return s, false, false, nil
	}
	if err != nil {
		return s, false, false, q.wrap(fmt.Sprintf("read the network settings of job %d", id), err)
	}
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		return s, false, false, fmt.Errorf("job %d: stored network settings: %w", id, err)
	}
	if !hasSecret {
		return s, true, false, nil
	}
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	key := memoryKey(q.path, id)
	if sec, ok := secrets.m[key]; ok {
		return s.Join(sec), true, false, nil
	}
	if ring := ringLocked(); ring != nil {
		if v, err := ring.Get(q.secretKey(id)); err == nil {
			var sec netconf.Secret
			if json.Unmarshal([]byte(v), &sec) == nil {
				secrets.m[key] = sec
				return s.Join(sec), true, false, nil
			}
		}
	}
	return s, true, true, nil
}

// forgetNet removes job id's settings and its secret.
func (q *Queue) forgetNet(id int64) error {
	if _, err := q.db.Exec(`DELETE FROM job_net WHERE job = ?`, id); err != nil {
		return q.wrap(fmt.Sprintf("remove the network settings of job %d", id), err)
	}
	q.forgetSecret(id)
	return nil
}

// forgetSecret drops job id's secret from memory and the keyring.
func (q *Queue) forgetSecret(id int64) {
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	delete(secrets.m, memoryKey(q.path, id))
	if ring := ringLocked(); ring != nil {
		if err := ring.Delete(q.secretKey(id)); err != nil && !isNotFound(err) {
			return // nothing more to do: the item may be gone already
		}
	}
}

// ErrSecretLost is wrapped by the pause of a job whose passwords, cookies
// or headers were kept for the session that was given them only (no
// keyring), when another session runs it: without them the server would
// refuse it, and that would read as a link that expired.
var ErrSecretLost = errors.New("the passwords, cookies or headers given for this download are gone")

// SecretLost is the error that pauses job id whose secret is gone.
func SecretLost(id int64) error {
	return &pauseError{reason: fmt.Sprintf("%v: they were kept for the session that added it only, as this system has no keyring; remove job %d and add it again with them", ErrSecretLost, id), err: ErrSecretLost}
}
