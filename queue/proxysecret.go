package queue

import (
	"encoding/json"

	"braid/engine/netconf"
)

// The window's proxy password: like a job's secrets, never in state.db.
// Remembered, it goes to the system's keyring when there is one; else it
// lasts for this process.

// proxyUser is the keyring user (and memory key) of the proxy password
// of the state folder.
func (q *Queue) proxyUser() string { return "proxy of " + q.path }

// SetProxyPassword keeps the password of the proxy the window's setting
// names; "" forgets it. With remember it goes to the keyring when the
// system has one, and note is NoKeyringNote when it has none; without,
// it lasts until the process ends and any keyring copy is deleted.
func (q *Queue) SetProxyPassword(password string, remember bool) (note string) {
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	key := q.proxyUser()
	ring := ringLocked()
	if password == "" {
		delete(secrets.m, key)
		if ring != nil {
			_ = ring.Delete(keyringService, key) // not found is fine
		}
		return ""
	}
	sec := netconf.Secret{HTTPPasswd: password}
	secrets.m[key] = sec
	switch {
	case ring == nil && remember:
		return NoKeyringNote
	case ring == nil:
	case remember:
		b, _ := json.Marshal(sec)
		if ring.Set(keyringService, key, string(b)) != nil {
			return NoKeyringNote
		}
	default:
		_ = ring.Delete(keyringService, key)
	}
	return ""
}

// ProxyPassword is the proxy password kept for this state folder: from
// this process's memory, else from the keyring; false when none is kept.
func (q *Queue) ProxyPassword() (string, bool) {
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	key := q.proxyUser()
	if sec, ok := secrets.m[key]; ok {
		return sec.HTTPPasswd, true
	}
	if ring := ringLocked(); ring != nil {
		if v, err := ring.Get(keyringService, key); err == nil {
			var sec netconf.Secret
			if json.Unmarshal([]byte(v), &sec) == nil && sec.HTTPPasswd != "" {
				secrets.m[key] = sec
				return sec.HTTPPasswd, true
			}
		}
	}
	return "", false
}
