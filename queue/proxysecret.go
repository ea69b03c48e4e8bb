package queue

import (
	"encoding/json"

	"braid/engine/netconf"
)

// A Secret names a secret the queue keeps but never in state.db, as it
// keeps a job's (netconf.Secret, SetNet): the window's proxy password, a
// connection's secret. Remembered, it goes to the system's keyring when
// there is one; else it lasts for this process.
type Secret struct {
	user string // the keyring user (and memory key), less the state folder
	// json: the keyring holds netconf.Secret's JSON (the proxy's
	// password, as SetNet keeps a job's); else the value as it is.
	json bool
	note string // said when it cannot be remembered
}

// ProxyPassword is the password of the proxy the window's setting names
// (Settings.Proxy).
var ProxyPassword = Secret{user: "proxy", json: true, note: NoKeyringNote}

// ConnectionSecret is the secret of the connection at link
// (Settings.Connections).
func ConnectionSecret(link string) Secret {
	return Secret{user: "connection " + link, note: NoKeyringConnectionNote}
}

// key is s's keyring user and memory key in the state folder of q.
func (q *Queue) key(s Secret) string { return s.user + " of " + q.path }

// Secret returns the secret s kept for this state folder, and whether one
// is.
func (q *Queue) Secret(s Secret) (string, bool) {
	key := q.key(s)
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	if sec, ok := secrets.m[key]; ok {
		return sec.HTTPPasswd, true
	}
	ring := ringLocked()
	if ring == nil {
		return "", false
	}
	v, err := ring.Get(keyringService, key)
	if err != nil {
		return "", false
	}
	sec := netconf.Secret{HTTPPasswd: v}
	if s.json && json.Unmarshal([]byte(v), &sec) != nil {
		return "", false
	}
	if sec.HTTPPasswd == "" {
		return "", false
	}
	secrets.m[key] = sec
	return sec.HTTPPasswd, true
}

// SetSecret keeps value as the secret s; "" forgets it. With remember it
// goes to the keyring when the system has one, and note says when it
// could not (NoKeyringNote, NoKeyringConnectionNote); without, it lasts
// until the process ends and any keyring copy is deleted.
func (q *Queue) SetSecret(s Secret, value string, remember bool) (note string) {
	key := q.key(s)
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	ring := ringLocked()
	if value == "" {
		delete(secrets.m, key)
		if ring != nil {
			_ = ring.Delete(keyringService, key) // not found is fine
		}
		return ""
	}
	sec := netconf.Secret{HTTPPasswd: value}
	secrets.m[key] = sec
	switch {
	case !remember:
		if ring != nil {
			_ = ring.Delete(keyringService, key)
		}
		return ""
	case ring == nil:
		return s.note
	}
	stored := value
	if s.json {
		b, _ := json.Marshal(sec)
		stored = string(b)
	}
	if ring.Set(keyringService, key, stored) != nil {
		return s.note
	}
	return ""
}
