// Package queue is Braid's persistent download queue: jobs, their files,
// mirrors, piece bitfields, settings and mirror speed history in one SQLite
// database (state.db in the state folder). The window and the command line
// share it; the runner (run.go) feeds its jobs to the engine.
//
// Durability: the database runs in WAL mode with synchronous=FULL, so every
// committed change (a job added, a batch of pieces recorded) survives a
// crash or power loss. synchronous=NORMAL would also never corrupt the
// database, and the engine's ordering rule (a piece is recorded only after
// its bytes are synced) would still hold, since the bytes are on disk before
// the record is even begun; but NORMAL may lose every commit since the last
// checkpoint, which is minutes of progress and, worse, jobs the user added
// or removed. FULL costs one WAL fsync per commit; the journal commits at
// most about once a second per download, which BenchmarkJournal measures as
// far below 2% of a fast download's time.
//
// A Queue is safe for concurrent use: all access goes through one
// connection, which SQLite serialises; other processes (another braid
// command) may open the same state folder at the same time, and a busy
// database makes writes wait up to the busy timeout, then fail with
// ErrLocked.
//
// The queue is a store: tables, their transactions and queries. What to
// do with them (resolving sources, trusting files, choosing folders,
// deleting a user's files) is the runner's. The files, by table:
//
//   - queue.go: opening, ownership (owner*.go), the state folder
//     (dirs*.go), errors; schema.go and jobids.go: the tables and their
//     migrations.
//   - jobs table: jobs.go (Job, Add, List, Get, Remove), jobset.go
//     (SetJob and its JobChanges; InOrder, Limits), order.go (the queue
//     order and a job's state: Move, Pause, Resume, Claim, NextQueued,
//     ...), whendone.go (a job's action when done), relink.go (a new link
//     for an expired one), pause.go (the errors that pause a job).
//   - files, mirrors and pieces tables: files.go (what a download did:
//     Landed, PutFile, Pieces, SetFileSelected, AddStrikes, ...),
//     fileset.go (SetFile and its FileChanges), signature.go (signatures
//     and Trust), journal.go and batch.go (pieces recorded as they
//     arrive), reselect.go (a job found again: JobFor, Reselect).
//   - job_members table: members.go (a job that fetches one member of a
//     ZIP archive).
//   - job_net table: netsettings.go and netlogin.go (a job's logins,
//     cookies and headers, the secrets in the keyring); proxysecret.go
//     and remotes.go keep the proxy's and the connections' secrets.
//   - settings table: settings.go (Settings, UpdateSettings), with its
//     parts in torrentsettings.go, schedule.go, categories.go and
//     remotes.go.
//   - torrent_specs and torrent_pieces tables: torrent.go; torrent_seeding
//     and seed_paused: seeding.go.
//   - mirror_speed table: speed.go. sync_sets and sync_files: sync.go.
//   - redact.go and source.go: how sources and URLs are stored (without
//     credentials, in one spelling).
package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// Errors the queue returns, wrapped with what was being done and the
// database path; test with errors.Is.
var (
	// ErrNotFound: no job with that ID (or source).
	ErrNotFound = errors.New("no such job")
	// ErrLocked: another connection held the database longer than the busy
	// timeout; most likely a second Braid using the same state folder.
	ErrLocked = errors.New("queue database is locked by another Braid?")
	// ErrFull: the database cannot grow (disk full or size limit). The
	// change was rolled back; nothing recorded before it is lost.
	ErrFull = errors.New("disk full: the queue database cannot grow")
	// ErrCorrupt: the database file is damaged.
	ErrCorrupt = errors.New("queue database is corrupt")
	// ErrNewer: the database was written by a newer Braid with a schema
	// this one does not know.
	ErrNewer = errors.New("queue database was written by a newer Braid")
	// ErrState: the job cannot do that in its current state (resume a
	// finished job, say).
	ErrState = errors.New("not possible in the job's state")
	// ErrNotOwner: another Braid process is running this queue's jobs.
	ErrNotOwner = errors.New("another Braid is running this queue")
)

// DBName is the file name of the database inside the state folder.
const DBName = "state.db"

// lockName is a small SQLite file whose exclusive lock marks the process
// that owns (runs) the queue; SQLite's locking is the portable file lock we
// already have. Unix drops it when the owner dies, even by SIGKILL; Windows
// documents that a dead process's locks are released after a time that
// "depends upon available system resources", so there the owner's record
// (owner.go) tells a dead owner from a live one.
const lockName = "state.lock"

// DefaultBusyTimeout is how long a write waits for another connection.
const DefaultBusyTimeout = 5 * time.Second

// Options tune Open. The zero value is the production setting.
type Options struct {
	// BusyTimeout is how long a write waits for another connection's lock
	// before failing with ErrLocked; 0 means DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Synchronous is the SQLite synchronous mode, "FULL" (default) or
	// "NORMAL"; see the package comment for why FULL.
	Synchronous string
}

// Queue is an open queue database. Its methods are safe for concurrent use.
type Queue struct {
	path    string
	db      *sql.DB
	notices []string

	mu     sync.Mutex // guards lockDB and lock
	lockDB *sql.DB
	lock   *sql.Conn // nil when another process owns the queue

	logins sessionLogins // credentials links carried, for this process only
}

// Dir returns the state folder to use: flag when not empty, else the
// BRAID_STATE environment variable, else the system's place (see
// defaultDirs): os.UserConfigDir()/braid on Unix, %LOCALAPPDATA%\Braid on
// Windows.
func Dir(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if env := os.Getenv("BRAID_STATE"); env != "" {
		return env, nil
	}
	state, _, err := defaultDirs()
	if err != nil {
		return "", fmt.Errorf("find the state folder (set --state or BRAID_STATE): %w", err)
	}
	return state, nil
}

// Open opens (creating if needed) the queue in the state folder dir with
// the default options. See OpenOptions.
func Open(dir string) (*Queue, error) { return OpenOptions(dir, Options{}) }

// OpenOptions opens (creating if needed) the queue in the state folder dir
// and migrates it to the current schema.
//
// The first process to open a state folder owns it (Owner reports true)
// until it closes it or dies; the owner's Open makes jobs that were running
// when the last owner died runnable again, and only the owner runs jobs.
// Later processes (braid queue list while the window runs) share the
// database for everything else.
//
// A damaged database is not deleted: when this process owns the folder, it
// is moved aside to state.db.corrupt-TIMESTAMP, a fresh queue is created,
// and Notices says so.
func OpenOptions(dir string, opt Options) (*Queue, error) {
	if opt.BusyTimeout <= 0 {
		opt.BusyTimeout = DefaultBusyTimeout
	}
	switch opt.Synchronous = strings.ToUpper(opt.Synchronous); opt.Synchronous {
	case "":
		opt.Synchronous = "FULL"
	case "FULL", "NORMAL":
	default:
		return nil, fmt.Errorf("open queue: synchronous mode %q: want FULL or NORMAL", opt.Synchronous)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open queue: create state folder: %w", err)
	}
	q := &Queue{path: filepath.Join(dir, DBName)}
	if err := q.takeOwnership(); err != nil {
		return nil, err
	}
	err := q.openDB(opt)
	if isCorrupt(err) && q.Owner() {
		var aside string
		aside, err = moveAside(q.path)
		if err == nil {
			q.notices = append(q.notices, fmt.Sprintf(
				"The queue database %s was damaged; it was moved aside to %s and a new, empty queue was started.",
				q.path, aside))
			err = q.openDB(opt)
		}
	}
	if err != nil {
		q.closeLock()
		return nil, err
	}
	if q.Owner() {
		// The previous owner died (or quit) with these running; they are
		// runnable again, exactly where their bitfields say.
		if _, err := q.db.Exec(`UPDATE jobs SET state = 'queued' WHERE state = 'running'`); err != nil {
			q.Close()
			return nil, q.wrap("open queue: resume running jobs", err)
		}
	}
	return q, nil
}

// openDB opens state.db, checks it and migrates it.
func (q *Queue) openDB(opt Options) error {
	params := url.Values{
		"_busy_timeout": {fmt.Sprint(opt.BusyTimeout.Milliseconds())},
		"_journal_mode": {"WAL"},
		"_synchronous":  {opt.Synchronous},
		"_foreign_keys": {"on"},
		// Every transaction here writes; taking the write lock at BEGIN
		// means two writers queue up on the busy timeout instead of one
		// failing at once when it upgrades a read lock.
		"_txlock": {"immediate"},
		// The statements run again and again (a file's pieces, its
		// landing) are prepared once: preparing them was 6 % of braid's
		// CPU over 10,000 files.
		"_stmt_cache_size": {"64"},
	}
	db, err := sql.Open("sqlite3", dsn(q.path, params))
	if err != nil {
		return fmt.Errorf("open queue %s: %w", q.path, err)
	}
	// One connection: SQLite has one writer anyway, and one connection
	// means one place where writes are ordered. It is kept for the life of
	// the queue (no idle timeout), so per-connection pragmas stay set.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	q.db = db
	fail := func(op string, err error) error {
		_ = db.Close()
		q.db = nil
		return q.wrap(op, err)
	}
	// Opening a connection switches the database to WAL. When several
	// processes open a new state folder at once, SQLite may refuse the
	// switch as busy at once, without waiting out the busy timeout; the
	// open is tried again until that timeout.
	for deadline := time.Now().Add(opt.BusyTimeout); ; time.Sleep(5 * time.Millisecond) {
		err := db.Ping()
		if err == nil {
			break
		}
		if !isBusy(err) || time.Now().After(deadline) {
			return fail("open queue", err)
		}
	}
	var check string
	if err := db.QueryRow("PRAGMA quick_check").Scan(&check); err != nil {
		return fail("check queue", err)
	}
	if check != "ok" {
		return fail("check queue", fmt.Errorf("%w: %s", ErrCorrupt, check))
	}
	if err := migrate(db, schemaVersion); err != nil {
		return fail("open queue", err)
	}
	return nil
}

// takeOwnership tries to hold the exclusive lock of the lock file. Failing
// to get it is not an error: another process owns the queue.
//
// On Windows a lock can outlive its process for a while (see lockName);
// when the lock is held and the owner's record (owner.go) names a process
// that has ended, the owner's lock file is left to the system and the next
// one (state.lock.1, state.lock.2, ...) is taken instead, at once. Elsewhere
// a held lock always means a live owner.
func (q *Queue) takeOwnership() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.lock != nil {
		return nil
	}
	dir := filepath.Dir(q.path)
	// Deciding who owns the folder and recording it is one step for all
	// processes: otherwise a process could see a new owner's lock before
	// its record and take it for the dead one's.
	release, err := ownerDecision(dir)
	if err != nil {
		return fmt.Errorf("take queue lock in %s: %w", dir, err)
	}
	defer release()
	rec := readOwner(dir)
	for gen := rec.Gen; ; gen++ {
		got, err := q.lockFile(lockPath(dir, gen))
		if err != nil || got {
			if got {
				q.recordOwner(dir, gen)
			}
			return err
		}
		if gen != rec.Gen || !rec.gone() {
			return nil // a live owner, or another process took over first
		}
	}
}

// lockFile takes the exclusive lock of the lock file at path, and reports
// whether it got it.
func (q *Queue) lockFile(path string) (bool, error) {
	params := url.Values{
		"_locking_mode": {"EXCLUSIVE"},
		"_journal_mode": {"DELETE"},
		"_busy_timeout": {"0"},
		// The lock file's one row (a pid) needs no durability: the lock is
		// what counts, and a damaged file is simply made again.
		"_synchronous": {"OFF"},
	}
	for attempt := 0; ; attempt++ {
		db, err := sql.Open("sqlite3", dsn(path, params))
		if err != nil {
			return false, fmt.Errorf("open queue lock %s: %w", path, err)
		}
		conn, err := db.Conn(context.Background())
		if err == nil {
			// In EXCLUSIVE locking mode the first write takes an exclusive
			// lock that this connection keeps until it closes.
			_, err = conn.ExecContext(context.Background(),
				`CREATE TABLE IF NOT EXISTS owner (pid INTEGER);
				 INSERT INTO owner (rowid, pid) VALUES (1, ?)
				 ON CONFLICT (rowid) DO UPDATE SET pid = excluded.pid`, os.Getpid())
			if err == nil {
				q.lockDB, q.lock = db, conn
				return true, nil
			}
			_ = conn.Close()
		}
		_ = db.Close()
		switch {
		case isBusy(err):
			return false, nil
		case isCorrupt(err) && attempt == 0:
			// The lock file holds nothing but a pid; a damaged one is
			// simply made again.
			if rmErr := os.Remove(path); rmErr != nil {
				return false, fmt.Errorf("replace damaged queue lock %s: %w", path, rmErr)
			}
		default:
			return false, fmt.Errorf("take queue lock %s: %w", path, err)
		}
	}
}

// Owner reports whether this process owns the queue: it may run jobs.
func (q *Queue) Owner() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.lock != nil
}

// TryOwn takes ownership if the owner has gone since Open (the window
// quit while `braid get` ran), and reports whether this process owns the
// queue now.
func (q *Queue) TryOwn() bool {
	if err := q.takeOwnership(); err != nil {
		return false
	}
	return q.Owner()
}

// Path is the database file's path.
func (q *Queue) Path() string { return q.path }

// Notices are messages for the user from Open (a damaged database moved
// aside). Show them once.
func (q *Queue) Notices() []string { return append([]string(nil), q.notices...) }

// Close closes the database and gives up ownership. Outstanding Journals
// must not be used after it.
func (q *Queue) Close() error {
	var err error
	if q.db != nil {
		err = q.db.Close()
	}
	q.closeLock()
	return err
}

func (q *Queue) closeLock() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.lock != nil {
		_ = q.lock.Close()
		q.lock = nil
	}
	if q.lockDB != nil {
		_ = q.lockDB.Close()
		q.lockDB = nil
	}
}

// dsn builds a SQLite URI filename; % ? and # in the path are escaped so a
// folder name cannot be read as URI syntax.
func dsn(path string, params url.Values) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
	if filepath.IsAbs(path) && !strings.HasPrefix(esc, "/") {
		esc = "/" + esc // Windows: file:/C:/...
	}
	return "file:" + esc + "?" + params.Encode()
}

// moveAside renames a damaged database (and its WAL and shared-memory
// files) to state.db.corrupt-TIMESTAMP, never overwriting an earlier one.
func moveAside(path string) (string, error) {
	stamp := time.Now().UTC().Format("20060102T150405Z")
	aside := path + ".corrupt-" + stamp
	for i := 2; ; i++ {
		if _, err := os.Lstat(aside); errors.Is(err, os.ErrNotExist) {
			break
		}
		aside = fmt.Sprintf("%s.corrupt-%s-%d", path, stamp, i)
	}
	if err := os.Rename(path, aside); err != nil {
		return "", fmt.Errorf("move damaged queue database aside: %w", err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+suffix, aside+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("move damaged queue database aside: %w", err)
		}
	}
	return aside, nil
}

// wrap adds what was being done and, for the errors a user must act on,
// the sentinel and the database path.
func (q *Queue) wrap(op string, err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return fmt.Errorf("%s: %w (%s)", op, ErrLocked, q.path)
		case sqlite3.ErrFull:
			return fmt.Errorf("%s: %w (%s): %w", op, ErrFull, q.path, err)
		case sqlite3.ErrCorrupt, sqlite3.ErrNotADB:
			return fmt.Errorf("%s: %w (%s): %w", op, ErrCorrupt, q.path, err)
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

func isCorrupt(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB) {
		return true
	}
	return errors.Is(err, ErrCorrupt)
}
