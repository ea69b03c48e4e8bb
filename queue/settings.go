package queue

import (
	"database/sql"
	"errors"
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
)

// Setting returns one raw setting and whether it is set.
func (q *Queue) Setting(key string) (string, bool, error) {
	var v string
	err := q.db.QueryRow(`SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, q.wrap("read setting "+key, err)
	}
	return v, true, nil
}

// SetSetting stores one raw setting.
func (q *Queue) SetSetting(key, value string) error {
	_, err := q.db.Exec(`INSERT INTO settings (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return q.wrap("store setting "+key, err)
	}
	return nil
}

// Settings returns the settings with defaults filled in.
func (q *Queue) Settings() (Settings, error) {
	var s Settings
	err := q.tx(func(tx *sql.Tx) error {
		var err error
		s, err = readSettings(tx)
		return err
	})
	if err != nil {
		return Settings{}, q.wrap("read settings", err)
	}
	return s, nil
}

// UpdateSettings reads the settings, lets change modify them and stores
// the result, in one transaction, so two windows changing different
// settings at once lose neither change.
func (q *Queue) UpdateSettings(change func(*Settings)) error {
	err := q.tx(func(tx *sql.Tx) error {
		s, err := readSettings(tx)
		if err != nil {
			return err
		}
		change(&s)
		for k, v := range map[string]string{
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
		} {
			if _, err := tx.Exec(`INSERT INTO settings (key, value) VALUES (?, ?)
				ON CONFLICT (key) DO UPDATE SET value = excluded.value`, k, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return q.wrap("store settings", err)
	}
	return nil
}

func readSettings(tx *sql.Tx) (Settings, error) {
	raw := map[string]string{}
	rows, err := tx.Query(`SELECT key, value FROM settings`)
	if err != nil {
		return Settings{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return Settings{}, err
		}
		raw[k] = v
	}
	if err := rows.Err(); err != nil {
		return Settings{}, err
	}
	s := Settings{
		DownloadDir:   raw[keyDownloadDir],
		Languages:     list(raw[keyLanguages]),
		OS:            list(raw[keyOS]),
		Countries:     list(raw[keyCountries]),
		StartOnLaunch: true,
	}
	if s.DownloadDir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			s.DownloadDir = filepath.Join(home, "Downloads")
		}
	}
	// A value that does not parse (edited by hand) falls back to the
	// default rather than making the queue unusable.
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
	return s, nil
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
