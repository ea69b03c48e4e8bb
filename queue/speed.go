package queue

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// speedAlpha is the weight of a new speed sample: a mirror's history
// counts, but two fresh samples mostly replace it.
const speedAlpha = 0.3

// RecordMirrorSpeed folds a measured speed (bytes per second) for a host
// into its moving average.
func (q *Queue) RecordMirrorSpeed(host string, bps float64) error {
	if host == "" || bps < 0 {
		return fmt.Errorf("record mirror speed: bad sample %q %.0f B/s", host, bps)
	}
	_, err := q.db.Exec(`INSERT INTO mirror_speed (host, bps, updated_at) VALUES (?, ?, unixepoch('subsec') * 1000)
		ON CONFLICT (host) DO UPDATE SET bps = bps + ? * (excluded.bps - bps), updated_at = excluded.updated_at`,
		host, bps, speedAlpha)
	if err != nil {
		return q.wrap("record mirror speed of "+host, err)
	}
	return nil
}

// MirrorSpeed returns a host's learned speed in bytes per second, and
// false when Braid has not downloaded from it yet.
func (q *Queue) MirrorSpeed(host string) (float64, bool, error) {
	var bps float64
	err := q.db.QueryRow(`SELECT bps FROM mirror_speed WHERE host = ?`, host).Scan(&bps)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, q.wrap("read mirror speed of "+host, err)
	}
	return bps, true, nil
}

// HostOf is the host[:port] of a mirror URL in lower case, the key of the
// speed history; "" when the URL has none.
func HostOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}
