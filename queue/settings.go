package queue

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Settings are the user's choices, kept in the queue database so the
// window and the command line share them. A zero field means "the
// default" as documented on it.
type Settings struct {
	// DownloadDir is where new downloads go; default ~/Downloads.
	DownloadDir string
	// Languages, OS and Countries filter and order files and mirrors
	// (BCP 47 tags, OS names, ISO 3166-1 codes); nil means the platform's
	// defaults (system locale, running OS).
	Languages []string
	OS        []string
	Countries []string
	// MaxConns is the total connection limit; 0 means the engine's default.
	MaxConns int
	// MaxConnsPerMirror is the most connections to one mirror of a file;
	// 0 means the engine's default (one, as RFC 6249 §7 asks).
	MaxConnsPerMirror int
	// MaxConnsPerHost is the most connections to one host across all
	// jobs and files; 0 means the engine's default.
	MaxConnsPerHost int
	// SpeedLimit is bytes per second over all downloads; 0 means none.
	SpeedLimit int64
	// Jobs is how many downloads run at once ("downloads at once"); 0
	// means DefaultJobs.
	Jobs int
	// StartOnLaunch runs queued jobs when the window opens (default true).
	StartOnLaunch bool
	// RequireSignature: every download must be signed by a key of the
	// keyring (runner.Runner.RequireSignature for the window's runs).
	RequireSignature bool
	// Torrent are the BitTorrent choices.
	Torrent TorrentSettings
	// Schedule is when the queue runs, and at what speed; it must be
	// valid (Schedule.Validate) to be stored. A stored one that does not
	// parse (edited by hand) reads as no schedule rather than stopping the
	// queue.
	Schedule Schedule
	// Categories sort new downloads into folders by their files' names
	// (see Category); read as DefaultCategories while the user has set
	// none, and stored tidied (TidyCategories). Set to nil, they go back
	// to the defaults.
	Categories []Category
	// Connections are the other Braids (aria2 JSON-RPC servers) whose
	// downloads the window can drive, and RunOn the URL of the one the
	// downloads run on ("" for this computer). A connection removed from
	// the list loses its secret (ConnectionSecret).
	Connections []Connection
	RunOn       string
	// Proxy is the window's proxy choice; its password is kept as
	// SetSecret keeps ProxyPassword, never here.
	Proxy Proxy
	// Remote is the window's remote control (aria2 JSON-RPC): whether it
	// is on and where it listens; its secret is never stored.
	Remote Remote
}

// Proxy is the window's proxy choice as stored: Mode is netconf's name of
// it ("system", "none", "manual"), URL the proxy without its password.
type Proxy struct {
	Mode, URL, NoProxy string
}

// Remote is the window's remote control as stored.
type Remote struct {
	On      bool
	Address string // "" for the default
}

// Setting keys as stored.
const (
	keyDownloadDir = "download_dir"
	keyLanguages   = "languages"
	keyOS          = "os"
	keyCountries   = "countries"
	keyMaxConns    = "max_conns"
	// The window stored this one as a raw setting before Settings had
	// the field; keeping its key carries the user's choice over.
	keyMaxConnsPerMirror = "max_conns_per_mirror"
	keySpeedLimit        = "speed_limit"
	keyMaxConnsPerHost   = "max_conns_per_host"
	keyJobs              = "jobs"
	keyStartOnLaunch     = "start_on_launch"
	keyProxyMode         = "proxy_mode"
	keyProxyURL          = "proxy_url"
	keyNoProxy           = "no_proxy"
	keyRemoteOn          = "rpc_on"
	keyRemoteAddress     = "rpc_listen"
)

// Settings returns the settings with defaults filled in.
func (q *Queue) Settings() (Settings, error) {
	var s Settings
	err := q.tx(func(tx *sql.Tx) error {
		raw, err := readRaw(tx)
		s = settingsOf(raw)
		return err
	})
	if err != nil {
		return Settings{}, q.wrap("read settings", err)
	}
	return s, nil
}

// UpdateSettings reads the settings, lets change modify them and stores
// what it changed, in one transaction, so two windows changing different
// settings at once lose neither change. A change that cannot be stored (a
// schedule, a category or a connection that is not valid) stores nothing.
func (q *Queue) UpdateSettings(change func(*Settings)) error {
	var gone []Connection
	err := q.tx(func(tx *sql.Tx) error {
		raw, err := readRaw(tx)
		if err != nil {
			return err
		}
		s := settingsOf(raw)
		before := s.stored()
		change(&s)
		if err := s.check(before); err != nil {
			return err
		}
		for k, v := range s.stored() {
			if v == before[k] {
				continue
			}
			if v == "" && (k == keyCategories) {
				_, err = tx.Exec(`DELETE FROM settings WHERE key = ?`, k)
			} else {
				_, err = tx.Exec(`INSERT INTO settings (key, value) VALUES (?, ?)
				ON CONFLICT (key) DO UPDATE SET value = excluded.value`, k, v)
			}
			if err != nil {
				return err
			}
		}
		gone = removedConnections(settingsOf(raw).Connections, s.Connections)
		return nil
	})
	var invalid *invalidSetting
	switch {
	case errors.As(err, &invalid):
		return invalid.err
	case err != nil:
		return q.wrap("store settings", err)
	}
	for _, c := range gone {
		q.SetSecret(ConnectionSecret(c.URL), "", false)
	}
	return nil
}

// invalidSetting is a change UpdateSettings refuses: err says why, for
// the user.
type invalidSetting struct{ err error }

func (e *invalidSetting) Error() string { return e.err.Error() }

// check refuses settings changed from before (as stored) that cannot be
// stored, and tidies changed categories. What did not change is not
// checked: a value edited by hand does not stop every other change.
func (s *Settings) check(before map[string]string) error {
	now := s.stored()
	if now[keySchedule] != before[keySchedule] {
		if err := s.Schedule.Validate(); err != nil {
			return &invalidSetting{fmt.Errorf("store schedule: %w", err)}
		}
	}
	if s.Categories != nil && now[keyCategories] != before[keyCategories] {
		tidy, err := TidyCategories(s.Categories)
		if err != nil {
			return &invalidSetting{err}
		}
		s.Categories = tidy
	}
	if now[keyConnections] != before[keyConnections] || now[keyRunOn] != before[keyRunOn] {
		if err := checkConnections(s.Connections, s.RunOn); err != nil {
			return &invalidSetting{err}
		}
	}
	return nil
}

// readRaw reads every stored setting by key.
func readRaw(tx *sql.Tx) (map[string]string, error) {
	raw := map[string]string{}
	rows, err := tx.Query(`SELECT key, value FROM settings`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		raw[k] = v
	}
	return raw, rows.Err()
}

// settingsOf reads the stored settings, defaults where none is stored. A
// value that does not parse (edited by hand) falls back to the default
// rather than making the queue unusable.
func settingsOf(raw map[string]string) Settings {
	s := Settings{
		DownloadDir:   raw[keyDownloadDir],
		Languages:     list(raw[keyLanguages]),
		OS:            list(raw[keyOS]),
		Countries:     list(raw[keyCountries]),
		StartOnLaunch: true,
		Torrent:       torrentSettingsOf(raw),
		Schedule:      scheduleOf(raw[keySchedule]),
		Categories:    categoriesOf(raw[keyCategories]),
		Proxy:         Proxy{Mode: raw[keyProxyMode], URL: raw[keyProxyURL], NoProxy: raw[keyNoProxy]},
		Remote:        Remote{Address: raw[keyRemoteAddress]},
	}
	s.Connections, s.RunOn = connectionsOf(raw[keyConnections], raw[keyRunOn])
	s.RequireSignature, _ = strconv.ParseBool(raw[keyRequireSignature])
	s.Remote.On, _ = strconv.ParseBool(raw[keyRemoteOn])
	if s.DownloadDir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			s.DownloadDir = filepath.Join(home, "Downloads")
		}
	}
	if v, err := strconv.Atoi(raw[keyMaxConns]); err == nil && v > 0 {
		s.MaxConns = v
	}
	if v, err := strconv.Atoi(raw[keyMaxConnsPerMirror]); err == nil && v > 0 {
		s.MaxConnsPerMirror = v
	}
	if v, err := strconv.ParseInt(raw[keySpeedLimit], 10, 64); err == nil && v > 0 {
		s.SpeedLimit = v
	}
	if v, err := strconv.Atoi(raw[keyMaxConnsPerHost]); err == nil && v > 0 {
		s.MaxConnsPerHost = v
	}
	s.Jobs = DefaultJobs
	if v, err := strconv.Atoi(raw[keyJobs]); err == nil && v > 0 {
		s.Jobs = v
	}
	if v, err := strconv.ParseBool(raw[keyStartOnLaunch]); err == nil {
		s.StartOnLaunch = v
	}
	return s
}

// stored is s as the settings table keeps it, by key; categories are ""
// when nil (the key is removed: the defaults).
func (s Settings) stored() map[string]string {
	m := map[string]string{
		keyDownloadDir:       s.DownloadDir,
		keyLanguages:         strings.Join(s.Languages, ","),
		keyOS:                strings.Join(s.OS, ","),
		keyCountries:         strings.Join(s.Countries, ","),
		keyMaxConns:          strconv.Itoa(s.MaxConns),
		keyMaxConnsPerMirror: strconv.Itoa(s.MaxConnsPerMirror),
		keySpeedLimit:        strconv.FormatInt(s.SpeedLimit, 10),
		keyMaxConnsPerHost:   strconv.Itoa(s.MaxConnsPerHost),
		keyJobs:              strconv.Itoa(s.Jobs),
		keyStartOnLaunch:     strconv.FormatBool(s.StartOnLaunch),
		keyRequireSignature:  strconv.FormatBool(s.RequireSignature),
		keySchedule:          jsonText(s.Schedule),
		keyConnections:       jsonText(s.Connections),
		keyRunOn:             s.RunOn,
		keyProxyMode:         s.Proxy.Mode,
		keyProxyURL:          s.Proxy.URL,
		keyNoProxy:           s.Proxy.NoProxy,
		keyRemoteOn:          strconv.FormatBool(s.Remote.On),
		keyRemoteAddress:     s.Remote.Address,
		keyCategories:        "",
	}
	if s.Categories != nil {
		m[keyCategories] = jsonText(s.Categories)
	}
	maps.Copy(m, s.Torrent.stored())
	return m
}

// jsonText is v in JSON; the types stored so always marshal.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// DefaultJobs is how many downloads run at once unless the user says.
const DefaultJobs = 3

func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// keyRequireSignature is the key of Settings.RequireSignature.
const keyRequireSignature = "require_signature"
