-- schema version 22: what the migrations in schema.go make, written out whole by
-- go test ./queue -run TestFreshSchema -update
CREATE TABLE files (
	id       INTEGER PRIMARY KEY,
	job      INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	idx      INTEGER NOT NULL,               -- order in the document
	name     TEXT    NOT NULL,
	size     INTEGER NOT NULL,               -- -1: unknown
	hashes   TEXT    NOT NULL,               -- whole-file hashes as JSON
	selected INTEGER NOT NULL,
	verified INTEGER NOT NULL DEFAULT 0, mismatch INTEGER NOT NULL DEFAULT 0, signature TEXT NOT NULL DEFAULT '', verified_by TEXT    NOT NULL DEFAULT '', saved_as    TEXT    NOT NULL DEFAULT '', created     INTEGER NOT NULL DEFAULT 0, high INTEGER NOT NULL DEFAULT 0, rebuilt INTEGER NOT NULL DEFAULT 0,
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
, kept INTEGER NOT NULL DEFAULT 0);
CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE mirror_speed (
	host       TEXT PRIMARY KEY,             -- host[:port] of the mirror URL
	bps        REAL    NOT NULL,             -- EWMA of bytes per second
	updated_at INTEGER NOT NULL              -- unix milliseconds
);
CREATE TABLE sync_sets (
	id        INTEGER PRIMARY KEY,
	source    TEXT    NOT NULL,              -- the set's Capability List (or list) URL
	dest      TEXT    NOT NULL,              -- absolute folder
	at        INTEGER NOT NULL DEFAULT 0,    -- the Resource List's at of the last full sync, unix ms
	until     INTEGER NOT NULL DEFAULT 0,    -- changes applied up to here, unix ms; 0: none yet
	synced_at INTEGER NOT NULL DEFAULT 0, job INTEGER REFERENCES jobs (id) ON DELETE CASCADE, files INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0,    -- when the last sync that completed ended, unix ms
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
CREATE TABLE torrent_pieces (
	dir      TEXT    NOT NULL,             -- absolute download folder
	infohash TEXT    NOT NULL,             -- v1 info hash, lower-case hex
	piece    INTEGER NOT NULL,
	complete INTEGER NOT NULL,
	PRIMARY KEY (dir, infohash, piece)
) WITHOUT ROWID;
CREATE TABLE torrent_specs (
	job  INTEGER PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
	spec BLOB    NOT NULL                  -- engine/torrent.Spec as JSON
);
CREATE TABLE job_net (
	job      INTEGER PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
	settings TEXT    NOT NULL,             -- netconf.Settings without secrets, as JSON
	secret   INTEGER NOT NULL DEFAULT 0    -- 1: passwords or headers were given
);
CREATE TABLE seed_paused (
	job INTEGER PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE
);
CREATE TABLE torrent_seeding (
	job      INTEGER PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
	uploaded INTEGER NOT NULL DEFAULT 0, -- bytes sent to peers, every run together
	seeded   INTEGER NOT NULL DEFAULT 0, -- milliseconds spent seeding, every run together
	active   INTEGER NOT NULL DEFAULT 0  -- 1: seeding when Braid stopped, its goal not reached
);
CREATE TABLE "jobs" (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	source      TEXT    NOT NULL,            -- as the user gave it
	dest        TEXT    NOT NULL,            -- absolute destination folder
	state       TEXT    NOT NULL CHECK (state IN ('queued','running','paused','done','failed')),
	position    INTEGER NOT NULL,            -- queue order, ascending; gaps allowed
	added_at    INTEGER NOT NULL,            -- unix milliseconds
	finished_at INTEGER,                     -- unix milliseconds; NULL until done or failed
	error       TEXT    NOT NULL DEFAULT '', -- why it failed or paused itself
	document    BLOB    NOT NULL             -- the metalink model as JSON
, origin_etag TEXT NOT NULL DEFAULT '', referer     TEXT NOT NULL DEFAULT '', refreshed_at INTEGER NOT NULL DEFAULT 0, notice TEXT NOT NULL DEFAULT '', source_key  TEXT    NOT NULL DEFAULT '', next_try INTEGER NOT NULL DEFAULT 0, when_done      TEXT NOT NULL DEFAULT '', when_done_note TEXT NOT NULL DEFAULT '', speed_limit INTEGER NOT NULL DEFAULT 0, in_order INTEGER NOT NULL DEFAULT 0, kind TEXT NOT NULL DEFAULT '');
CREATE INDEX jobs_order ON jobs (position, id);
CREATE INDEX jobs_source ON jobs (source);
CREATE INDEX jobs_source_key ON jobs (source_key, dest);
CREATE INDEX files_name ON files (job, name);
CREATE INDEX files_unverified ON files (job) WHERE selected AND NOT verified;
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
