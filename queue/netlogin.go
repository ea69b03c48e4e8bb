package queue

import (
	"encoding/json"
	"fmt"

	"braid/engine/netconf"
)

// A login given to a job after a server asked for one (the window's
// prompt): it joins the job's network settings, so every run of the job
// sends it to the servers it was given for. Remembered, its password goes
// where SetNet keeps secrets (the system's keyring when there is one);
// not remembered, it stays in this process's memory only, and a later
// session finds it gone (Net's lost) and asks again.

// KeyringAvailable reports whether this system has a keyring that secrets
// outlive the session in. It asks the keyring once per process.
func KeyringAvailable() bool {
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	return ringLocked() != nil
}

// setNetForSession is SetNet keeping the secret part in this process's
// memory only.
func (q *Queue) setNetForSession(id int64, s netconf.Settings) error {
	op := fmt.Sprintf("keep the network settings of job %d", id)
	pub, sec := s.Split()
	b, err := json.Marshal(pub)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	res, err := q.db.Exec(`INSERT INTO job_net (job, settings, secret) SELECT id, ?, 1 FROM jobs WHERE id = ?
		ON CONFLICT (job) DO UPDATE SET settings = excluded.settings, secret = excluded.secret`, string(b), id)
	if err != nil {
		return q.wrap(op, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	secrets.m[memoryKey(q.path, id)] = sec
	if ring := ringLocked(); ring != nil {
		_ = ring.Delete(q.secretKey(id)) // not found is fine: nothing to forget
	}
	return nil
}
