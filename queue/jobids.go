package queue

import (
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// The parts of the jobs table's CREATE statement that autoincrementJobs
// changes; each must be found exactly once.
var (
	createJobs = regexp.MustCompile(`(?is)^\s*CREATE\s+TABLE\s+"?jobs"?\s*\(`)
	jobsIDKey  = regexp.MustCompile(`(?i)\bid\s+INTEGER\s+PRIMARY\s+KEY\b`)
)

// autoincrementJobs makes the jobs table again with its ID column
// AUTOINCREMENT, keeping every row, every ID and every index, as SQLite's
// documented way to change a table goes: make the new table, copy, drop
// the old one, rename the new one, make its indexes again. The new table
// is the old one's own CREATE statement (with every column later steps
// added) with only the key changed, so no column can be left behind. The
// tables that refer to jobs (files, torrent_specs, seed_paused, ...) keep
// their rows, as the IDs they hold are kept; the caller runs this with
// foreign keys off, so dropping the old table deletes none of them.
//
// sqlite_sequence starts at the highest ID in the table: an ID freed
// before this step is given once more, as it was before; none after.
func autoincrementJobs(tx *sql.Tx) error {
	var create string
	if err := tx.QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'jobs'`).Scan(&create); err != nil {
		return fmt.Errorf("read the jobs table: %w", err)
	}
	if strings.Contains(strings.ToUpper(create), "AUTOINCREMENT") {
		return nil
	}
	if n := len(createJobs.FindAllStringIndex(create, -1)); n != 1 {
		return fmt.Errorf("the jobs table's statement is not one this Braid knows: %q", create)
	}
	if n := len(jobsIDKey.FindAllStringIndex(create, -1)); n != 1 {
		return fmt.Errorf("the jobs table's ID column is not one this Braid knows: %q", create)
	}
	create = createJobs.ReplaceAllLiteralString(create, "CREATE TABLE jobs_autoincrement (")
	create = jobsIDKey.ReplaceAllLiteralString(create, "id INTEGER PRIMARY KEY AUTOINCREMENT")

	// The indexes (and any trigger) go with the old table; they are made
	// again on the new one from their own statements.
	var again []string
	rows, err := tx.Query(`SELECT sql FROM sqlite_master WHERE tbl_name = 'jobs' AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type, name`)
	if err != nil {
		return fmt.Errorf("read the jobs table's indexes: %w", err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return err
		}
		again = append(again, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	steps := []string{
		create,
		// Same statement, same columns in the same order.
		`INSERT INTO jobs_autoincrement SELECT * FROM jobs`,
		`DROP TABLE jobs`,
		`ALTER TABLE jobs_autoincrement RENAME TO jobs`,
	}
	steps = append(steps, again...)
	steps = append(steps,
		// The copy set it already when there are jobs; said outright so
		// that it is so whatever SQLite does with copied IDs.
		`DELETE FROM sqlite_sequence WHERE name = 'jobs'`,
		`INSERT INTO sqlite_sequence (name, seq) SELECT 'jobs', coalesce(max(id), 0) FROM jobs`,
	)
	for _, s := range steps {
		if _, err := tx.Exec(s); err != nil {
			return fmt.Errorf("make the jobs table again: %w", err)
		}
	}
	return nil
}

// errForeignKeys is returned by a migration step run with foreign keys
// off that left rows referring to rows that are not there.
var errForeignKeys = errors.New("rows refer to rows that are not there")

// foreignKeyFaults lists the rows whose foreign keys name no row.
func foreignKeyFaults(tx *sql.Tx) ([]string, error) {
	rows, err := tx.Query(`PRAGMA foreign_key_check`)
	if err != nil {
		return nil, fmt.Errorf("check foreign keys: %w", err)
	}
	defer rows.Close()
	var bad []string
	for rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fk int
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return nil, fmt.Errorf("check foreign keys: %w", err)
		}
		bad = append(bad, fmt.Sprintf("%s row %d refers to %s", table, rowid.Int64, parent))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("check foreign keys: %w", err)
	}
	return bad, nil
}
