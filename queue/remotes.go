package queue

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Where the window's downloads run (issue 34): this computer's queue, or
// the downloads of another computer (a `braid queue run --rpc-listen` or
// an aria2 with --enable-rpc) that the window drives over aria2's
// JSON-RPC. The list of such connections and the one chosen are two rows
// of the settings table; each connection's secret is kept as a job's
// passwords are (netsettings.go): in this process's memory and, where
// the system has one, in its keyring, never in state.db.

// Settings keys of the connections.
const (
	keyConnections = "remote_connections" // JSON list of Connection
	keyRunOn       = "downloads_run_on"   // "" for this computer, else a Connection's URL
)

// Connection is the downloads of another computer the window can drive:
// a JSON-RPC URL and the name the user gave it. Its secret is kept apart
// (the Secret ConnectionSecret).
type Connection struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	// Secret says a secret was given for it: without a keyring, where the
	// secret lasts only as long as the process, the window knows to ask
	// for it again. It is not the secret.
	Secret bool `json:"secret,omitempty"`
}

// NoKeyringConnectionNote is the sentence said when a connection's secret
// cannot outlive the session.
const NoKeyringConnectionNote = "This system has no keyring (Secret Service): the secret is kept until Braid closes. After a restart, the window asks for it again (or give it in BRAID_REMOTE_SECRET)."

// connectionsOf reads the stored connections and the one the downloads
// run on; a list that does not parse (edited by hand) reads as none, and
// a connection removed meanwhile as this computer.
func connectionsOf(raw, active string) ([]Connection, string) {
	var list []Connection
	if raw != "" && json.Unmarshal([]byte(raw), &list) != nil {
		list = nil
	}
	if active != "" && !slices.ContainsFunc(list, func(c Connection) bool { return c.URL == active }) {
		active = ""
	}
	return list, active
}

// checkConnections refuses a list of connections that cannot be saved:
// an address that is not one, one that carries a password, one listed
// twice, or downloads run on a connection not in it.
func checkConnections(list []Connection, active string) error {
	seen := map[string]bool{}
	for _, c := range list {
		u, err := url.Parse(c.URL)
		if err != nil || u.Host == "" {
			return fmt.Errorf("%q is not the address of downloads to drive: give one like http://host:6800/jsonrpc", Redact(c.URL))
		}
		if _, has := u.User.Password(); has {
			return fmt.Errorf("the address %s carries a password: give it as the secret instead, which the keyring keeps", u.Redacted())
		}
		if seen[c.URL] {
			return fmt.Errorf("%s is listed twice", c.URL)
		}
		seen[c.URL] = true
	}
	if active != "" && !seen[active] {
		return fmt.Errorf("the downloads cannot run on %s: it is not a saved connection", Redact(active))
	}
	return nil
}

// removedConnections are the connections of old not in new, whose secrets
// go.
func removedConnections(old, new []Connection) []Connection {
	var gone []Connection
	for _, c := range old {
		if !slices.ContainsFunc(new, func(n Connection) bool { return n.URL == c.URL }) {
			gone = append(gone, c)
		}
	}
	return gone
}

// ConnectionName is the name a connection at link goes by when the user
// gave none: its host and port.
func ConnectionName(link string) string {
	if u, err := url.Parse(link); err == nil && u.Host != "" {
		return u.Host
	}
	return strings.TrimSpace(link)
}
