package queue

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"strings"
)

// migration is one step of the schema: SQL, then, when a step must change
// data in ways SQL says badly (parsing URLs), Go in the same transaction.
type migration struct {
	sql string
	fix func(*sql.Tx) error
	// foreignKeysOff runs the step with foreign key enforcement off, as
	// SQLite asks of a step that makes a table again: with it on,
	// dropping the old jobs table would delete every row that refers to
	// a job (ON DELETE CASCADE). The keys are checked before the commit.
	foreignKeysOff bool
}

// migrations bring the schema forward one version each: migrations[i]
// turns a database at user_version i into one at i+1. They are append-only:
// a released migration is never edited, a change is a new entry, so any
// older state.db can be opened by any newer Braid.
var migrations = []migration{
	// 1: the queue itself.
	{sql: `
CREATE TABLE jobs (
	id          INTEGER PRIMARY KEY,
	source      TEXT    NOT NULL,            -- as the user gave it
	dest        TEXT    NOT NULL,            -- absolute destination folder
	state       TEXT    NOT NULL CHECK (state IN ('queued','running','paused','done','failed')),
	position    INTEGER NOT NULL,            -- queue order, ascending; gaps allowed
	added_at    INTEGER NOT NULL,            -- unix milliseconds
	finished_at INTEGER,                     -- unix milliseconds; NULL until done or failed
	error       TEXT    NOT NULL DEFAULT '', -- why it failed or paused itself
	document    BLOB    NOT NULL             -- the metalink model as JSON
);
CREATE INDEX jobs_order ON jobs (position, id);
CREATE INDEX jobs_source ON jobs (source);

CREATE TABLE files (
	id       INTEGER PRIMARY KEY,
	job      INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	idx      INTEGER NOT NULL,               -- order in the document
	name     TEXT    NOT NULL,
	size     INTEGER NOT NULL,               -- -1: unknown
	hashes   TEXT    NOT NULL,               -- whole-file hashes as JSON
	selected INTEGER NOT NULL,
	verified INTEGER NOT NULL DEFAULT 0,
	UNIQUE (job, name)
);
CREATE INDEX files_order ON files (job, idx);

CREATE TABLE mirrors (
	id       INTEGER PRIMARY KEY,
	file     INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
	url      TEXT    NOT NULL,
	location TEXT    NOT NULL DEFAULT '',
	priority INTEGER NOT NULL,
	strikes  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX mirrors_file ON mirrors (file);

CREATE TABLE pieces (
	file   INTEGER PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
	length INTEGER NOT NULL,                 -- bytes per piece
	count  INTEGER NOT NULL,                 -- pieces in the file
	bits   BLOB    NOT NULL                  -- piece.Bitfield.MarshalBinary
);

CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
`},
	// 2: speed history, so the next download starts with the mirrors that
	// were fast last time.
	{sql: `
CREATE TABLE mirror_speed (
	host       TEXT PRIMARY KEY,             -- host[:port] of the mirror URL
	bps        REAL    NOT NULL,             -- EWMA of bytes per second
	updated_at INTEGER NOT NULL              -- unix milliseconds
);
`},
	// 3: a flag for a file whose bytes did not match its hash, so the
	// window need not read it out of an error message; the facts of a
	// plain URL's origin that every run of the job needs; and no password
	// left in what is shown of a job.
	{sql: `
ALTER TABLE files ADD COLUMN mismatch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN origin_etag TEXT NOT NULL DEFAULT ''; -- for If-Match to pref mirrors
ALTER TABLE jobs ADD COLUMN referer     TEXT NOT NULL DEFAULT ''; -- sent to HTTP mirrors
-- Until now a mismatch was told only by the failed job's error, where the
-- engine and the window's verify wrote "NAME: " and then
-- engine.ErrHashMismatch's text of the time.
UPDATE files SET mismatch = 1 WHERE NOT verified AND EXISTS (
	SELECT 1 FROM jobs j WHERE j.id = files.job AND j.state = 'failed'
	AND instr(j.error, files.name || ': file does not match its hash') > 0);
`, fix: redactJobs},
	// 4 (ResourceSync, braid sync): per set of resources synced into a
	// folder, the source's time the folder is in sync with, and the files
	// synced, so a later run fetches only what changed and knows what it
	// may delete.
	{sql: `
CREATE TABLE sync_sets (
	id        INTEGER PRIMARY KEY,
	source    TEXT    NOT NULL,              -- the set's Capability List (or list) URL
	dest      TEXT    NOT NULL,              -- absolute folder
	at        INTEGER NOT NULL DEFAULT 0,    -- the Resource List's at of the last full sync, unix ms
	until     INTEGER NOT NULL DEFAULT 0,    -- changes applied up to here, unix ms; 0: none yet
	synced_at INTEGER NOT NULL DEFAULT 0,    -- when the last sync that completed ended, unix ms
	UNIQUE (source, dest)
);
CREATE TABLE sync_files (
	sync   INTEGER NOT NULL REFERENCES sync_sets (id) ON DELETE CASCADE,
	name   TEXT    NOT NULL,                 -- path below dest
	url    TEXT    NOT NULL,                 -- the resource's <loc>
	size   INTEGER NOT NULL,
	hashes TEXT    NOT NULL,                 -- whole-file hashes as JSON
	PRIMARY KEY (sync, name)
);
`},
	// 5 (trust: signatures and dynamic metalinks): what checking a file's
	// signature found; when a dynamic job's document was last fetched from
	// its origin; and what that fetch had to tell the user (a new version).
	{sql: `
ALTER TABLE files ADD COLUMN signature TEXT NOT NULL DEFAULT '';   -- signature.Outcome as JSON; '' until checked
ALTER TABLE jobs ADD COLUMN refreshed_at INTEGER NOT NULL DEFAULT 0; -- unix milliseconds; 0: never
ALTER TABLE jobs ADD COLUMN notice TEXT NOT NULL DEFAULT '';        -- e.g. the publisher has a new version
`},
	// 6 (issue 11, say what was checked): which hash verified a done file
	// ('' none was published), the name it was saved under when a file no
	// hash proved was at its name, and whether this job wrote the file, so
	// that "remove with files" deletes only what Braid created. Files done
	// before this are not known to be the job's: they are kept. And a
	// source's one spelling, so that a source is one job however written.
	{sql: `
ALTER TABLE files ADD COLUMN verified_by TEXT    NOT NULL DEFAULT ''; -- 'sha-256', 'sha-1 pieces'; '' not verified
ALTER TABLE files ADD COLUMN saved_as    TEXT    NOT NULL DEFAULT ''; -- name on disk; '' the file's name
ALTER TABLE files ADD COLUMN created     INTEGER NOT NULL DEFAULT 0;  -- this job wrote the file at saved_as
ALTER TABLE jobs  ADD COLUMN source_key  TEXT    NOT NULL DEFAULT ''; -- canonical(source)
CREATE INDEX jobs_source_key ON jobs (source_key, dest);
`, fix: keySources},
	// 7 (BitTorrent, issue 13): piece completion of torrents, per download
	// folder and info hash, recorded after the piece's bytes are synced,
	// so a torrent resumes exactly after pause, quit or a crash.
	{sql: `
CREATE TABLE torrent_pieces (
	dir      TEXT    NOT NULL,             -- absolute download folder
	infohash TEXT    NOT NULL,             -- v1 info hash, lower-case hex
	piece    INTEGER NOT NULL,
	complete INTEGER NOT NULL,
	PRIMARY KEY (dir, infohash, piece)
) WITHOUT ROWID;
`},
	// 8 (BitTorrent, issue 13, stored torrent specs): the torrent a job was
	// added from, as resolved then (a .torrent's metainfo, a magnet's once
	// its metadata arrived), so a run needs neither the .torrent file nor
	// the peers' metadata again.
	{sql: `
CREATE TABLE torrent_specs (
	job  INTEGER PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
	spec BLOB    NOT NULL                  -- engine/torrent.Spec as JSON
);
`},
	// 9 (one job lifecycle, issue 22): when a running job's downloads wait
	// for the network, the next try, in a column of its own (it was a note
	// in the error column, parsed back by every reader).
	{sql: `
ALTER TABLE jobs ADD COLUMN next_try INTEGER NOT NULL DEFAULT 0; -- unix milliseconds; 0 not waiting
`, fix: moveWaitingNotes},
	// 10 (issue 25, per-job network settings): the public part of the
	// logins, cookies and headers a job was given (netconf.Settings.Split:
	// user names, the cookie file's path, the hosts they belong to; never
	// a password, a cookie or a header value), so a resume after a restart
	// opens the same session; secret says the job has a secret part, kept
	// in the system's keyring or for the session only (netsettings.go).
	{sql: `
CREATE TABLE job_net (
	job      INTEGER PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
	settings TEXT    NOT NULL,             -- netconf.Settings without secrets, as JSON
	secret   INTEGER NOT NULL DEFAULT 0    -- 1: passwords or headers were given
);
`},
	// (issue 23, paused seeding): the done torrents whose seeding the user
	// paused, so they stay paused across a restart and seed again on
	// Resume (seedpause.go).
	{sql: `
CREATE TABLE seed_paused (
	job INTEGER PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE
);
`},
	// (issue 23, "when done" actions): what a job does once it is done
	// (open the file, show it in its folder, run a command with it), and
	// what went wrong when that ran, for the window to say.
	{sql: `
ALTER TABLE jobs ADD COLUMN when_done      TEXT NOT NULL DEFAULT ''; -- queue.WhenDone as JSON; '' nothing
ALTER TABLE jobs ADD COLUMN when_done_note TEXT NOT NULL DEFAULT ''; -- queue.WhenDoneNote as JSON; '' it went well or has not run
`},
	// issues 23 and 24 (a per-download speed limit): a job's own download
	// limit, on top of the global one, kept across restarts.
	{sql: `
ALTER TABLE jobs ADD COLUMN speed_limit INTEGER NOT NULL DEFAULT 0; -- bytes per second; 0: none of its own
`},
	// issue 23 (a pause keeps every byte): the bytes a paused file without
	// piece hashes keeps inside the pieces it did not finish, synced, for
	// its progress to show them (engine.KeptJournal).
	{sql: `
ALTER TABLE pieces ADD COLUMN kept INTEGER NOT NULL DEFAULT 0; -- bytes; 0 while it runs
`},
	// issue 23 (seeding across a restart, file priorities): what a torrent
	// job has seeded over all its runs, and whether it was seeding when
	// Braid last stopped, so it seeds on at the next start until its
	// ratio or time is reached (seeding.go); and a torrent file fetched
	// before the others.
	{sql: `
CREATE TABLE torrent_seeding (
	job      INTEGER PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
	uploaded INTEGER NOT NULL DEFAULT 0, -- bytes sent to peers, every run together
	seeded   INTEGER NOT NULL DEFAULT 0, -- milliseconds spent seeding, every run together
	active   INTEGER NOT NULL DEFAULT 0  -- 1: seeding when Braid stopped, its goal not reached
);
ALTER TABLE files ADD COLUMN high INTEGER NOT NULL DEFAULT 0; -- a torrent's file fetched first (priority high)
`},
	// issue 32 (job IDs are never reused): a removed job's ID is never
	// given to a later job, so a script or an RPC client that holds the
	// old ID cannot act on another download. SQLite gives a plain INTEGER
	// PRIMARY KEY the highest ID again once it is freed; only
	// AUTOINCREMENT remembers, and a column cannot be altered to it: the
	// table is made again (autoincrementJobs), with every ID kept.
	{fix: autoincrementJobs, foreignKeysOff: true},
	// issue 37 (10,000 files in one job): every journal write and every
	// landing finds its file by job and name, and the landing of a job's
	// last file asks whether any selected file is left unverified. Without
	// these indexes each was a scan of the job's files, which made a
	// batch of 10,000 files quadratic (BenchmarkLand10000Files).
	{sql: `
CREATE INDEX files_name ON files (job, name);
CREATE INDEX files_unverified ON files (job) WHERE selected AND NOT verified;
`},
	// issue 36 (download in order): a job whose files are fetched from
	// the front, to be used while they arrive (inorder.go).
	{sql: `
ALTER TABLE jobs ADD COLUMN in_order INTEGER NOT NULL DEFAULT 0; -- 1: download in order
`},
	// issue 35 (PAR2 parity): how many pieces of a done file were rebuilt
	// from its parity set, kept with how it was verified, so every face
	// says "verified (sha-256), 3 pieces rebuilt from parity" after a
	// restart too.
	{sql: `
ALTER TABLE files ADD COLUMN rebuilt INTEGER NOT NULL DEFAULT 0; -- pieces rebuilt from parity when it landed
`},
	// issue 36 (archive members): a job that fetches one member of a ZIP
	// archive, not the archive: the job's document is the archive's, its
	// one file row the member, and this row what the archive's directory
	// said of the member when it was added, so a run finds the same
	// member and a changed archive is told, not extracted.
	{sql: `
CREATE TABLE job_members (
	job           INTEGER PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
	member        TEXT    NOT NULL,             -- its path inside the archive, as the directory stores it
	size          INTEGER NOT NULL,             -- bytes once inflated
	compressed    INTEGER NOT NULL,             -- bytes in the archive
	method        INTEGER NOT NULL,             -- 0 stored, 8 deflate
	crc32         INTEGER NOT NULL,
	header_offset INTEGER NOT NULL,             -- where its local header starts in the archive; -1 unknown
	archive_size  INTEGER NOT NULL              -- the archive's bytes
);
`},
	// issue 33 (ResourceSync sets are queue jobs): a job's kind, and the
	// sync job each set belongs to. A set synced before this step becomes
	// a sync job of its own (syncJobs), synced or not as it was, so the
	// window shows it as a job like any other and Remove removes it (its
	// sets and their files go with it).
	{sql: `
ALTER TABLE jobs ADD COLUMN kind TEXT NOT NULL DEFAULT ''; -- '' a download; 'sync' a folder kept a copy of a ResourceSync source
ALTER TABLE sync_sets ADD COLUMN job INTEGER REFERENCES jobs (id) ON DELETE CASCADE; -- NULL: only checked (braid sync --check)
`, fix: syncJobs},
	// A sync job's row says how many files and bytes its folder holds
	// without reading 100,000 files' rows for every list: each set keeps
	// the sums of its last complete sync (SyncDone).
	{sql: `
ALTER TABLE sync_sets ADD COLUMN files INTEGER NOT NULL DEFAULT 0; -- files synced at the last complete sync
ALTER TABLE sync_sets ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0; -- their bytes
UPDATE sync_sets SET files = (SELECT COUNT(*) FROM sync_files WHERE sync = sync_sets.id),
	bytes = (SELECT COALESCE(SUM(size), 0) FROM sync_files WHERE sync = sync_sets.id);
`},
}

// syncJobs makes a sync job of each sync set recorded before sync sets
// belonged to jobs: done when it was synced, paused otherwise.
func syncJobs(tx *sql.Tx) error {
	rows, err := tx.Query(`SELECT id, source, dest, synced_at FROM sync_sets WHERE job IS NULL ORDER BY id`)
	if err != nil {
		return err
	}
	type set struct {
		id, synced   int64
		source, dest string
	}
	var sets []set
	for rows.Next() {
		var s set
		if err := rows.Scan(&s.id, &s.source, &s.dest, &s.synced); err != nil {
			rows.Close()
			return err
		}
		sets = append(sets, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, s := range sets {
		state, finished := Paused, sql.NullInt64{}
		if s.synced > 0 {
			state, finished = Done, sql.NullInt64{Int64: s.synced, Valid: true}
		}
		id, err := insertSyncJob(tx, s.source, s.dest, state)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE jobs SET finished_at = ? WHERE id = ?`, finished, id); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE sync_sets SET job = ? WHERE id = ?`, id, s.id); err != nil {
			return err
		}
	}
	return nil
}

// moveWaitingNotes clears the notes that older runners left in the error
// column of a job waiting for the network: the job is no longer running
// when the database is opened again, and its next try is past.
func moveWaitingNotes(tx *sql.Tx) error {
	_, err := tx.Exec(`UPDATE jobs SET error = '' WHERE error LIKE 'waiting for the network, next try at %'`)
	return err
}

// keySources gives the jobs stored before source_key their canonical
// source, as well as the redacted source they kept tells it.
func keySources(tx *sql.Tx) error {
	rows, err := tx.Query(`SELECT id, source FROM jobs`)
	if err != nil {
		return err
	}
	keys := map[int64]string{}
	for rows.Next() {
		var id int64
		var source string
		if err := rows.Scan(&id, &source); err != nil {
			rows.Close()
			return err
		}
		keys[id] = canonical(source)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for id, key := range keys {
		if _, err := tx.Exec(`UPDATE jobs SET source_key = ? WHERE id = ?`, key, id); err != nil {
			return err
		}
	}
	return nil
}

// redactJobs takes URL credentials out of the sources and errors of jobs
// stored before Add redacted them; the mirrors keep theirs, which the
// downloads need.
func redactJobs(tx *sql.Tx) error {
	rows, err := tx.Query(`SELECT id, source, error FROM jobs WHERE instr(source, '@') > 0 OR instr(error, '@') > 0`)
	if err != nil {
		return err
	}
	defer rows.Close()
	type fix struct {
		id            int64
		source, error string
	}
	var fixes []fix
	for rows.Next() {
		var f fix
		if err := rows.Scan(&f.id, &f.source, &f.error); err != nil {
			return err
		}
		if s, e := Redact(f.source), Redact(f.error); s != f.source || e != f.error {
			fixes = append(fixes, fix{f.id, s, e})
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, f := range fixes {
		if _, err := tx.Exec(`UPDATE jobs SET source = ?, error = ? WHERE id = ?`, f.source, f.error, f.id); err != nil {
			return err
		}
	}
	return nil
}

// schemaVersion is the user_version of a database that is up to date.
var schemaVersion = len(migrations)

// freshSchema is the schema the migrations make up to freshVersion,
// written out whole: a new state folder is made with it at once, then
// the steps after it if there are any, which takes a third of the time
// all the steps do (each `braid get` into a new folder pays it).
// TestFreshSchema checks it against the steps and writes it anew with
// -update.
//
//go:embed schema.sql
var freshSchema string

// freshVersion is the version freshSchema is at, from its first line;
// past the last migration when that line cannot be read, so that the
// steps make every new folder.
var freshVersion = func() int {
	var v int
	if _, err := fmt.Sscanf(freshSchema, "-- schema version %d", &v); err != nil {
		return len(migrations) + 1
	}
	return v
}()

// migrate brings db from its user_version up to target in one
// transaction, so a crash mid-way leaves the database at the version it
// had, and a new state folder is made with one commit instead of one per
// step. The version is read inside the write transaction: two processes
// opening a new state folder at once must not both run the same steps.
func migrate(db *sql.DB, target int) error {
	ctx := context.Background()
	// One connection for all of it: foreign_keys is a setting of the
	// connection, and it cannot change inside a transaction.
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	defer conn.Close()
	var v int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v > len(migrations) {
		return fmt.Errorf("%w: schema version %d, this Braid knows up to %d", ErrNewer, v, len(migrations))
	}
	if v >= target {
		return nil
	}
	keysOff := false
	for _, m := range migrations[v:min(target, len(migrations))] {
		keysOff = keysOff || m.foreignKeysOff
	}
	if keysOff {
		var on bool
		if err := conn.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&on); err != nil {
			return fmt.Errorf("migrate to version %d: %w", target, err)
		}
		if on {
			if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
				return fmt.Errorf("migrate to version %d: %w", target, err)
			}
			// Back on for the connection's later use, whatever happens.
			defer conn.ExecContext(ctx, "PRAGMA foreign_keys = ON")
		}
	}
	tx, err := conn.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the write lock, then look again
	if err != nil {
		return fmt.Errorf("migrate to version %d: %w", target, err)
	}
	defer tx.Rollback()
	if err := tx.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v >= target {
		return nil // another process got here first
	}
	if v == 0 && freshVersion <= target {
		if _, err := tx.Exec(freshSchema); err != nil {
			return fmt.Errorf("make schema version %d: %w", freshVersion, err)
		}
		v = freshVersion
	}
	var faults []string // foreign keys that failed before: not this step's doing
	if keysOff {
		if faults, err = foreignKeyFaults(tx); err != nil {
			return fmt.Errorf("migrate to version %d: %w", target, err)
		}
	}
	for ; v < target && v < len(migrations); v++ {
		if m := migrations[v]; m.sql != "" {
			if _, err := tx.Exec(m.sql); err != nil {
				return fmt.Errorf("migrate to version %d: %w", v+1, err)
			}
		}
		if fix := migrations[v].fix; fix != nil {
			if err := fix(tx); err != nil {
				return fmt.Errorf("migrate to version %d: %w", v+1, err)
			}
		}
	}
	if keysOff {
		// What was checked on every write before must hold still.
		after, err := foreignKeyFaults(tx)
		if err != nil {
			return fmt.Errorf("migrate to version %d: %w", v, err)
		}
		if len(after) > len(faults) {
			return fmt.Errorf("migrate to version %d: %w: %s", v, errForeignKeys, strings.Join(after, "; "))
		}
	}
	// user_version is written in the same transaction: the schema and its
	// number change together or not at all.
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
		return fmt.Errorf("migrate to version %d: %w", v, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate to version %d: %w", v, err)
	}
	return nil
}
