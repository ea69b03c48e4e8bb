package queue

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	mathbits "math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/engine/piece"
)

// State is where a job is in its life.
type State string

// The states of a job.
const (
	Queued  State = "queued"  // waiting its turn
	Running State = "running" // the runner is downloading it
	Paused  State = "paused"  // stopped by the user, or by Braid with a reason in Error
	Done    State = "done"    // every selected file verified
	Failed  State = "failed"  // gave up; the reason is in Error
)

// Job is one entry of the queue: a source, where it goes, and its files.
type Job struct {
	ID int64
	// Source is as the user gave it (a path, a URL), less any credentials
	// in a URL (see Redact): it is shown, and a password must not be.
	Source string
	Dest   string // absolute destination folder
	State  State
	// Index is the job's place in the queue, 0 first.
	Index      int
	AddedAt    time.Time
	FinishedAt time.Time // zero until done or failed
	// Error is why the job failed, or why Braid paused it (destination
	// vanished, read-only); "" for a user's pause.
	Error string
	// NextTry is set while the job runs but its downloads wait for the
	// network (every mirror failing with temporary errors): when they try
	// again. Zero when the job is not waiting.
	NextTry time.Time
	// Mismatch is set when a selected file's bytes did not match its
	// whole-file hash (a download or a verify found it) and has not
	// verified since: the file needs a repair.
	Mismatch bool
	// Origin is what a plain URL's server said when the job was added,
	// for every run of it.
	Origin Origin
	// Limit is the job's own download limit in bytes per second, on top
	// of the global one; 0: none (see the JobChange Limit).
	Limit int64
	// Notice is something the user should hear about the job (the
	// JobChange Notice); "" when nothing.
	Notice string
	// WhenDone is what the job does once done, and WhenDoneNote what went
	// wrong when it last ran (DoWhenDone, WhenDoneWent).
	WhenDone     WhenDone
	WhenDoneNote WhenDoneNote
	// RefreshedAt is when the job's document was last fetched from its
	// origin (the JobChange Refreshed), or else added: see RefreshDue.
	RefreshedAt time.Time
	// Member is the member of a ZIP archive the job fetches (see
	// NewJob.Member); nil for any other job.
	Member *Member
	// Sync marks a sync job (NewJob.Sync): Dest kept a copy of the
	// ResourceSync source, its files recorded in its sync sets
	// (SyncSets), not as Files. Done means the last sync completed.
	Sync bool
	// SyncFiles and SyncBytes are what a sync job's folder held at its
	// last complete sync: the files synced and their bytes.
	SyncFiles int
	SyncBytes int64
	// Torrent is set when a torrent is stored with the job (TorrentSpec):
	// a magnet's, once its metadata came.
	Torrent bool
	// Doc is the stored document; set by Get, nil in List.
	Doc   *metalink.Document
	Files []File // in document order, selected or not
}

// File is one file of a job and its progress.
type File struct {
	Name     string
	Size     int64           // -1: unknown until a mirror says
	Hashes   []metalink.Hash // set by Get, nil in List
	Selected bool
	// Verified is set when the file is done at its name: downloaded and
	// checked against every hash published for it. VerifiedBy names the
	// hash that proved it ("sha-256", "sha-1 pieces"), "" when none was
	// published (done, not verified: see Outcome).
	Verified   bool
	VerifiedBy string
	// Rebuilt is how many of its pieces were rebuilt from the file's PAR2
	// parity set in the download that landed it (no mirror sent them
	// good); 0 when none were.
	Rebuilt int
	// SavedAs is the name the file is saved under when another file no
	// hash proved to be this one was at Name; "" means Name (see Path).
	SavedAs string
	// Created: this job wrote the file at Path; "remove with files"
	// deletes only such files.
	Created bool
	// Mismatch: its bytes did not match its whole-file hash, at the end of
	// a download or in a verify, and it has not verified since.
	Mismatch bool
	// High: a torrent's file fetched before the job's other files
	// (the FileChange High).
	High bool
	// Signature is what a check of the file's OpenPGP signature found
	// (the FileChange Signed); nil when none was checked.
	Signature *Signature
	Layout    piece.Layout
	// Pieces is the count of pieces in the bitfield; Done of them are
	// recorded done, worth DoneBytes.
	Pieces    int
	Done      int
	DoneBytes int64
	// Mirrors is set by Get, nil in List; ordered by priority.
	Mirrors []Mirror
}

// Path is the file's name on disk, relative to the job's destination.
func (f File) Path() string {
	if f.SavedAs != "" {
		return f.SavedAs
	}
	return f.Name
}

// ErrResized is OnDisk's answer for a file at its name at another size.
var ErrResized = errors.New("not the size its download left")

// OnDisk reports whether file f of job j is still where and as large as
// its download left it: nil; the file system's error (fs.ErrNotExist when
// it was moved or deleted); or ErrResized. A change that keeps the size
// takes a hash to find.
func (j Job) OnDisk(f File) error {
	fi, err := os.Stat(filepath.Join(j.Dest, filepath.FromSlash(f.Path())))
	if err != nil {
		return err
	}
	if fi.Mode().IsRegular() && f.Size >= 0 && fi.Size() != f.Size {
		return fmt.Errorf("%s is %d bytes, its download %d: %w", f.Path(), fi.Size(), f.Size, ErrResized)
	}
	return nil
}

// Outcome says what is known of a done file's bytes, in the words every
// face shows ("verified (sha-256)", "verified (BitTorrent piece hashes)",
// "not verified (no hash published)"); "" while it is not done.
func (f File) Outcome() string {
	switch {
	case !f.Verified:
		return ""
	case f.VerifiedBy != "":
		return engine.OutcomeText(engine.OutcomeVerified, ProofWords(f.VerifiedBy))
	}
	return engine.OutcomeText(engine.OutcomeNotVerified, "")
}

// The words that name what proved a file are the engine's (engine.ProofWords),
// so braid get, queue list and the window say the same.
const (
	ByTorrent        = engine.ByTorrent
	ProofTorrent     = engine.ProofTorrent
	ProofTorrentPlus = engine.ProofTorrentPlus
	ProofPieces      = engine.ProofPieces
)

// ProofWords is engine.ProofWords.
func ProofWords(by string) string { return engine.ProofWords(by) }

// Proofs says what proved a job's selected files: the distinct ProofWords
// in file order, and whether any was complete with nothing to check it
// against; done is false while any is not done.
func (j Job) Proofs() (proofs []string, unchecked, done bool) {
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		switch {
		case !f.Verified:
			return nil, false, false
		case f.VerifiedBy == "":
			unchecked = true
		default:
			if w := ProofWords(f.VerifiedBy); !slices.Contains(proofs, w) {
				proofs = append(proofs, w)
			}
		}
	}
	return proofs, unchecked, true
}

// Origin is what the server of a plain URL said about the file when it was
// resolved (engine/resolve's Origin), which the engine needs on every run:
// a job run later by the runner gets it from the queue. Empty for jobs
// from a metalink document.
type Origin struct {
	// ETag is the origin's ETag; mirrors marked pref must send the same
	// (engine.Request.OriginETag, RFC 6249 §3.3).
	ETag string
	// Referer is sent to HTTP mirrors (engine.Request.Referer): the URL
	// of the original request, without credentials.
	Referer string
}

// Mirror is one URL of a file as the queue remembers it.
type Mirror struct {
	URL      string
	Location string
	Priority int
	Strikes  int // pieces that failed their hash from this mirror, so far
}

// Name is how the job is shown: its first selected file, and how many
// more; a sync job's folder, as "folder/ (sync)".
func (j Job) Name() string {
	if j.Sync {
		return filepath.Base(j.Dest) + "/ (sync)"
	}
	first, n := "", 0
	for _, f := range j.Files {
		if f.Selected {
			if n == 0 {
				first = f.Name
			}
			n++
		}
	}
	if n > 1 {
		return fmt.Sprintf("%s (+%d more)", first, n-1)
	}
	return first
}

// Progress sums the selected files: pieces done and in all, bytes done and
// in all (total bytes counts only files of known size).
func (j Job) Progress() (done, pieces int, doneBytes, size int64) {
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		done += f.Done
		pieces += f.Pieces
		doneBytes += f.DoneBytes
		if f.Size > 0 {
			size += f.Size
		}
	}
	return done, pieces, doneBytes, size
}

// LayoutOf is the piece layout of a file as the engine divides it
// (piece.PlanFor): the metalink's pieces when their hashes are usable,
// piece.DefaultLength otherwise. Size stays -1 when unknown.
func LayoutOf(f metalink.File) piece.Layout {
	l := piece.PlanFor(f).Layout
	l.Size = f.Size
	return l
}

// NewJob is a job to add (Add).
type NewJob struct {
	// Source is as the user gave it (a path, a URL); Dest the folder its
	// files go to.
	Source, Dest string
	// Doc is the document, stored with the job, so the job survives its
	// .meta4 being moved or deleted.
	Doc *metalink.Document
	// Selected names the files to download; nil selects them all.
	Selected []string
	// Origin is what a plain URL's server said, which every run of the
	// job needs (a plain URL resolved by Metalink/HTTP); stored in the
	// same transaction.
	Origin Origin
	// Member, when its Name is set, makes the job fetch that member of
	// the ZIP archive Doc describes (a document of one file, the
	// archive: see Member). Selected is then unused.
	Member Member
	// Net are the network settings the job keeps (SetNet's, remembered),
	// stored in the transaction that adds it, their secrets never in
	// state.db; nil: none. NetNote, when not nil, gets SetNet's note.
	Net     *netconf.Settings
	NetNote *string
	// Paused: the job starts paused, so no runner takes it before its
	// caller has stored what goes with it (a torrent, a login) and
	// resumed it, or at all when the user added it paused.
	Paused bool
	// Sync adds a sync job: Dest is kept a copy of the ResourceSync
	// source Source (runner.Sync). It has no document; Add returns the
	// sync job of Source and Dest the queue has, when it has one.
	Sync bool
}

// Add appends a job to the end of the queue, queued (or paused), and
// returns its ID. The source is stored as given less URL credentials
// (Redact), and with it its one spelling (see canonical), by which a later
// `braid get` finds the job; the document's mirrors keep their credentials.
func (q *Queue) Add(j NewJob) (int64, error) {
	state := Queued
	if j.Paused {
		state = Paused
	}
	switch {
	case j.Sync:
		return q.addSync(j.Source, j.Dest, state)
	case j.Member.Name != "":
		return q.addMember(j, state)
	}
	return q.addJob(j, state)
}

// addJob adds job j that starts in state (queued or paused, or running
// for `braid get`, which runs it at once).
func (q *Queue) addJob(j NewJob, state State) (int64, error) {
	const op = "add job"
	source, doc, selected := j.Source, j.Doc, j.Selected
	shown := Redact(source)
	if doc == nil || len(doc.Files) == 0 {
		return 0, fmt.Errorf("%s %s: the document has no files to download", op, shown)
	}
	inDoc := make(map[string]bool, len(doc.Files))
	for _, f := range doc.Files {
		inDoc[f.Name] = true
	}
	for _, name := range selected {
		if !inDoc[name] {
			return 0, fmt.Errorf("%s %s: selected file %q is not in the document", op, shown, name)
		}
	}
	if selected != nil && len(selected) == 0 {
		return 0, fmt.Errorf("%s %s: no file selected", op, shown)
	}
	want := make(map[string]bool, len(selected))
	for _, name := range selected {
		want[name] = true
	}
	return q.insertJob(op+" "+shown, j, state, canonical(source), func(_ *sql.Tx, id int64, doc *metalink.Document, ins *fileInserter) error {
		for i, f := range doc.Files {
			if err := ins.insert(id, i, f, selected == nil || want[f.Name]); err != nil {
				return fmt.Errorf("file %s: %w", f.Name, err)
			}
		}
		return nil
	})
}

// insertJob adds job j in state under the source key key, in one
// transaction: the job's row with its document as stored (no login in
// it), the file rows that files writes, and the job's network settings.
// op names the step in its errors.
func (q *Queue) insertJob(op string, j NewJob, state State, key string, files func(tx *sql.Tx, id int64, doc *metalink.Document, ins *fileInserter) error) (int64, error) {
	abs, err := filepath.Abs(j.Dest)
	if err != nil {
		return 0, fmt.Errorf("%s: destination %q: %w", op, j.Dest, err)
	}
	q.logins.keep(j.Doc.Files)
	doc := storedDoc(j.Doc)
	blob, err := json.Marshal(doc)
	if err != nil {
		return 0, fmt.Errorf("%s: store document: %w", op, err)
	}
	var id int64
	err = q.tx(func(tx *sql.Tx) error {
		res, err := tx.Exec(`
			INSERT INTO jobs (source, source_key, dest, state, position, added_at, document, origin_etag, referer)
			VALUES (?, ?, ?, ?, (SELECT COALESCE(MAX(position), -1) + 1 FROM jobs), ?, ?, ?, ?)`,
			Redact(j.Source), key, abs, string(state), time.Now().UnixMilli(), blob, j.Origin.ETag, Redact(j.Origin.Referer))
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		ins, err := newFileInserter(tx)
		if err != nil {
			return err
		}
		defer ins.close()
		if err := files(tx, id, doc, ins); err != nil {
			return err
		}
		return q.addNet(tx, id, j)
	})
	if err != nil {
		q.forgetAdded(id, j)
		return 0, q.wrap(op, err)
	}
	return id, nil
}

// forgetAdded forgets the secret addNet kept for job id of j, when the
// job was not committed after all.
func (q *Queue) forgetAdded(id int64, j NewJob) {
	if id != 0 && j.Net != nil {
		q.forgetSecret(id)
	}
}

func insertFile(tx *sql.Tx, job int64, idx int, f metalink.File, selected bool) error {
	ins, err := newFileInserter(tx)
	if err != nil {
		return err
	}
	defer ins.close()
	return ins.insert(job, idx, f, selected)
}

// fileInserter inserts files with their mirrors and pieces through
// statements prepared once: a job of thousands of files is queued in one
// transaction, and parsing the same three statements for each file would
// cost more than the inserts.
type fileInserter struct {
	file, mirror, pieces *sql.Stmt
}

func newFileInserter(tx *sql.Tx) (*fileInserter, error) {
	var ins fileInserter
	var err error
	if ins.file, err = tx.Prepare(`INSERT INTO files (job, idx, name, size, hashes, selected) VALUES (?, ?, ?, ?, ?, ?)`); err != nil {
		return nil, err
	}
	if ins.mirror, err = tx.Prepare(`INSERT INTO mirrors (file, url, location, priority) VALUES (?, ?, ?, ?)`); err != nil {
		ins.close()
		return nil, err
	}
	if ins.pieces, err = tx.Prepare(`INSERT INTO pieces (file, length, count, bits) VALUES (?, ?, ?, ?)`); err != nil {
		ins.close()
		return nil, err
	}
	return &ins, nil
}

func (ins *fileInserter) close() {
	for _, st := range []*sql.Stmt{ins.file, ins.mirror, ins.pieces} {
		if st != nil {
			st.Close()
		}
	}
}

func (ins *fileInserter) insert(job int64, idx int, f metalink.File, selected bool) error {
	hashes, err := json.Marshal(f.Hashes)
	if err != nil {
		return err
	}
	res, err := ins.file.Exec(job, idx, f.Name, f.Size, string(hashes), selected)
	if err != nil {
		return err
	}
	fid, err := res.LastInsertId()
	if err != nil {
		return err
	}
	for _, u := range f.URLs {
		if _, err := ins.mirror.Exec(fid, Redact(u.URL), u.Location, u.Priority); err != nil {
			return err
		}
	}
	l := LayoutOf(f)
	bits, err := piece.NewBitfield(l.Count()).MarshalBinary()
	if err != nil {
		return err
	}
	_, err = ins.pieces.Exec(fid, l.Length, l.Count(), bits)
	return err
}

// List returns every job in queue order, with file progress but without
// documents, mirrors or hashes: what a window needs for its rows, cheaply
// (see BenchmarkOpen).
func (q *Queue) List() ([]Job, error) {
	const op = "list jobs"
	// The jobs are counted first so that their slice is made once: a
	// Job is large, and growing a slice of 10,000 copied them again and
	// again. (A job added between the two queries grows it.)
	var n int
	if err := q.db.QueryRow(`SELECT COUNT(*) FROM jobs`).Scan(&n); err != nil {
		return nil, q.wrap(op, err)
	}
	rows, err := q.db.Query(`SELECT ` + jobColumns + ` FROM jobs ORDER BY position, id`)
	if err != nil {
		return nil, q.wrap(op, err)
	}
	jobs := make([]Job, 0, n)
	at := make(map[int64]int, n)
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			rows.Close()
			return nil, q.wrap(op, err)
		}
		j.Index = len(jobs)
		at[j.ID] = len(jobs)
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		return nil, q.wrap(op, err)
	}
	rows, err = q.db.Query(listQuery + ` ORDER BY f.job, f.idx`)
	if err != nil {
		return nil, q.wrap(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		job, f, err := scanFile(rows, false)
		if err != nil {
			return nil, q.wrap(op, err)
		}
		// A job added between the two queries (by another process) shows
		// up on the next List.
		if i, ok := at[job]; ok {
			jobs[i].Files = append(jobs[i].Files, f)
			jobs[i].Mismatch = jobs[i].Mismatch || (f.Selected && f.Mismatch)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, q.wrap(op, err)
	}
	sums, err := q.syncSums(0)
	if err != nil {
		return nil, q.wrap(op, err)
	}
	for id, n := range sums {
		if i, ok := at[id]; ok {
			jobs[i].SyncFiles, jobs[i].SyncBytes = int(n[0]), n[1]
		}
	}
	if err := q.markTorrents(jobs, at); err != nil {
		return nil, q.wrap(op, err)
	}
	members, err := q.memberJobs()
	if err != nil {
		return nil, q.wrap(op, err)
	}
	for id, m := range members {
		if i, ok := at[id]; ok {
			jobs[i].Member = &m
			for k := range jobs[i].Files {
				memberProgress(&jobs[i].Files[k])
			}
		}
	}
	return jobs, nil
}

// markTorrents sets Torrent on the jobs that have a torrent stored; at
// is each job's index in jobs.
func (q *Queue) markTorrents(jobs []Job, at map[int64]int) error {
	rows, err := q.db.Query(`SELECT job FROM torrent_specs`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		if i, ok := at[id]; ok {
			jobs[i].Torrent = true
		}
	}
	return rows.Err()
}

// Mirrors returns every job's mirrors, by job and file name, in one
// read: what List leaves out, for a list that shows them (an aria2 web
// UI lists every download with its links each second; reading the jobs
// one by one took seconds over 10,000 of them, BenchmarkAriaNgRound).
func (q *Queue) Mirrors() (map[int64]map[string][]Mirror, error) {
	rows, err := q.db.Query(`SELECT f.job, f.name, m.url, m.location, m.priority, m.strikes
		FROM mirrors m JOIN files f ON f.id = m.file ORDER BY f.job, f.idx, m.priority, m.id`)
	if err != nil {
		return nil, q.wrap("list mirrors", err)
	}
	defer rows.Close()
	out := map[int64]map[string][]Mirror{}
	for rows.Next() {
		var job int64
		var name string
		var m Mirror
		if err := rows.Scan(&job, &name, &m.URL, &m.Location, &m.Priority, &m.Strikes); err != nil {
			return nil, q.wrap("list mirrors", err)
		}
		if out[job] == nil {
			out[job] = map[string][]Mirror{}
		}
		out[job][name] = append(out[job][name], m)
	}
	if err := rows.Err(); err != nil {
		return nil, q.wrap("list mirrors", err)
	}
	return out, nil
}

// Get returns one job with its document, files and mirrors.
func (q *Queue) Get(id int64) (Job, error) {
	op := fmt.Sprintf("get job %d", id)
	var blob []byte
	j, err := scanJob(q.db.QueryRow(`SELECT `+jobColumns+`, document FROM jobs WHERE id = ?`, id), &blob)
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	if err != nil {
		return Job{}, q.wrap(op, err)
	}
	if err := q.db.QueryRow(`SELECT COUNT(*), EXISTS (SELECT 1 FROM torrent_specs WHERE job = ?1) FROM jobs j, jobs me
		WHERE me.id = ?1 AND (j.position < me.position OR (j.position = me.position AND j.id < me.id))`,
		id).Scan(&j.Index, &j.Torrent); err != nil {
		return Job{}, q.wrap(op, err)
	}
	if j.Sync {
		sums, err := q.syncSums(id)
		if err != nil {
			return Job{}, q.wrap(op, err)
		}
		j.SyncFiles, j.SyncBytes = int(sums[id][0]), sums[id][1]
	}
	// The document is decoded while its files and mirrors are read: for a
	// job of many files each takes about as long as the other.
	doc := new(metalink.Document)
	decoded := make(chan error, 1)
	go func() { decoded <- json.Unmarshal(blob, doc) }()
	err = q.getFiles(&j, op)
	if derr := <-decoded; derr != nil && err == nil {
		err = fmt.Errorf("%s: stored document: %w", op, derr)
	}
	if err != nil {
		return Job{}, err
	}
	j.Doc = doc
	return j, nil
}

// getFiles reads job j's files with their mirrors, for Get.
func (q *Queue) getFiles(j *Job, op string) error {
	id := j.ID
	rows, err := q.db.Query(fileQuery+` WHERE f.job = ? ORDER BY f.idx`, id)
	if err != nil {
		return q.wrap(op, err)
	}
	for rows.Next() {
		_, f, err := scanFile(rows, true)
		if err != nil {
			rows.Close()
			return q.wrap(op, err)
		}
		j.Files = append(j.Files, f)
		j.Mismatch = j.Mismatch || (f.Selected && f.Mismatch)
	}
	if err := rows.Err(); err != nil {
		return q.wrap(op, err)
	}
	if m, ok, err := q.memberJob(id); err != nil {
		return q.wrap(op, err)
	} else if ok {
		j.Member = &m
		for k := range j.Files {
			memberProgress(&j.Files[k])
		}
	}
	rows, err = q.db.Query(`SELECT f.name, m.url, m.location, m.priority, m.strikes
		FROM mirrors m JOIN files f ON f.id = m.file WHERE f.job = ? ORDER BY f.idx, m.priority, m.id`, id)
	if err != nil {
		return q.wrap(op, err)
	}
	defer rows.Close()
	byName := map[string]int{}
	for i, f := range j.Files {
		byName[f.Name] = i
	}
	for rows.Next() {
		var name string
		var m Mirror
		if err := rows.Scan(&name, &m.URL, &m.Location, &m.Priority, &m.Strikes); err != nil {
			return q.wrap(op, err)
		}
		if i, ok := byName[name]; ok {
			j.Files[i].Mirrors = append(j.Files[i].Mirrors, m)
		}
	}
	if err := rows.Err(); err != nil {
		return q.wrap(op, err)
	}
	return nil
}

type scanner interface{ Scan(...any) error }

// jobColumns are the columns scanJob reads, in its order.
const jobColumns = `id, source, dest, state, added_at, finished_at, error, origin_etag, referer, next_try, speed_limit,
	notice, when_done, when_done_note, refreshed_at, kind`

func scanJob(s scanner, doc ...*[]byte) (Job, error) {
	// One allocation holds the job and what is scanned to be converted:
	// List scans every job of the queue (see BenchmarkOpen).
	r := new(struct {
		j                       Job
		state                   string
		added, nextTry, refresh int64
		finished                sql.NullInt64
		whenDone, whenDoneNote  string
		kind                    string
		dest                    [17]any
	})
	j := &r.j
	dest := append(r.dest[:0], &j.ID, &j.Source, &j.Dest, &r.state, &r.added, &r.finished, &j.Error, &j.Origin.ETag, &j.Origin.Referer,
		&r.nextTry, &j.Limit, &j.Notice, &r.whenDone, &r.whenDoneNote, &r.refresh, &r.kind)
	for _, d := range doc {
		dest = append(dest, d)
	}
	if err := s.Scan(dest...); err != nil {
		return Job{}, err
	}
	j.State, j.Sync = State(r.state), r.kind == kindSync
	j.AddedAt = time.UnixMilli(r.added)
	if r.finished.Valid {
		j.FinishedAt = time.UnixMilli(r.finished.Int64)
	}
	if r.nextTry > 0 && j.State == Running {
		j.NextTry = time.UnixMilli(r.nextTry)
	}
	j.RefreshedAt = time.UnixMilli(max(r.added, r.refresh))
	if r.whenDone != "" || r.whenDoneNote != "" {
		j.WhenDone, j.WhenDoneNote = parseWhenDone(r.whenDone, r.whenDoneNote)
	}
	return *j, nil
}

// fileQuery reads files with their pieces; listQuery the same without the
// hashes, which List does not return.
const (
	fileQuery = `SELECT f.job, f.name, f.size, f.hashes, f.selected, f.verified, f.mismatch, f.verified_by, f.rebuilt, f.saved_as, f.created,
	f.high, f.signature, p.length, p.count, p.bits, p.kept FROM files f JOIN pieces p ON p.file = f.id`
	listQuery = `SELECT f.job, f.name, f.size, '', f.selected, f.verified, f.mismatch, f.verified_by, f.rebuilt, f.saved_as, f.created,
	f.high, f.signature, p.length, p.count, p.bits, p.kept FROM files f JOIN pieces p ON p.file = f.id`
)

func scanFile(s scanner, withHashes bool) (int64, File, error) {
	// One allocation for what is scanned, as in scanJob.
	r := new(struct {
		f           File
		job, kept   int64
		hashes, sig string
		bits        []byte
	})
	f := &r.f
	if err := s.Scan(&r.job, &f.Name, &f.Size, &r.hashes, &f.Selected, &f.Verified, &f.Mismatch, &f.VerifiedBy, &f.Rebuilt, &f.SavedAs, &f.Created,
		&f.High, &r.sig, &f.Layout.Length, &f.Pieces, &r.bits, &r.kept); err != nil {
		return 0, File{}, err
	}
	job, hashes, bits, kept, sig := r.job, r.hashes, r.bits, r.kept, r.sig
	if sig != "" {
		f.Signature = new(Signature)
		if json.Unmarshal([]byte(sig), f.Signature) != nil {
			f.Signature = nil // written by a newer Braid in another shape: not shown
		}
	}
	f.Layout.Size = f.Size
	if withHashes {
		if err := json.Unmarshal([]byte(hashes), &f.Hashes); err != nil {
			return 0, File{}, fmt.Errorf("file %s: stored hashes: %w", f.Name, err)
		}
	}
	if len(bits) != (f.Pieces+7)/8 {
		return 0, File{}, fmt.Errorf("file %s: stored pieces: bitfield of %d bytes for %d pieces", f.Name, len(bits), f.Pieces)
	}
	f.Done, f.DoneBytes = countDone(bits, f.Pieces, f.Layout)
	if kept > 0 && f.Size >= 0 {
		// Bytes a pause kept inside pieces it did not finish.
		f.DoneBytes = min(f.DoneBytes+kept, f.Size)
	}
	if f.Verified && f.Size >= 0 {
		// Landed: all of it is done, whatever its pieces say (a torrent's
		// files record theirs in torrent_pieces, not here).
		f.Done, f.DoneBytes = f.Pieces, f.Size
	}
	return job, *f, nil
}

// countDone counts the pieces set in a stored bitfield and the bytes they
// hold, without decoding it: List does this for every file of the queue.
// The format is piece.Bitfield.MarshalBinary's, piece 0 in the high bit of
// the first byte; bits past n are ignored.
func countDone(bits []byte, n int, l piece.Layout) (int, int64) {
	if n == 0 {
		return 0, 0
	}
	done := 0
	for i, c := range bits {
		if i == len(bits)-1 && n%8 != 0 {
			c &= byte(0xff << (8 - n%8))
		}
		done += mathbits.OnesCount8(c)
	}
	size := int64(done) * l.Length
	last := n - 1
	if l.Size > 0 && bits[last/8]&(0x80>>(last%8)) != 0 {
		_, tail := l.Bounds(last)
		size -= l.Length - tail
	}
	return done, size
}

// Remove takes the jobs ids out of the queue, with everything recorded of
// them and the secrets of their network settings; their files stay on
// disk (runner.RemoveWithFiles deletes them first). It is one
// transaction: thousands removed at once cost one commit, one sync of the
// disk, where one by one took a minute for 10,000. A job not in the queue
// is an error (ErrNotFound) naming it; the others go all the same.
func (q *Queue) Remove(ids ...int64) error {
	var gone []int64
	var missing []error
	err := q.tx(func(tx *sql.Tx) error {
		gone, missing = gone[:0], missing[:0]
		del, err := tx.Prepare(`DELETE FROM jobs WHERE id = ?`)
		if err != nil {
			return err
		}
		defer del.Close()
		for _, id := range ids {
			res, err := del.Exec(id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				missing = append(missing, fmt.Errorf("remove job %d: %w", id, ErrNotFound))
				continue
			}
			gone = append(gone, id)
		}
		return nil
	})
	if err != nil {
		op := fmt.Sprintf("remove %d jobs", len(ids))
		if len(ids) == 1 {
			op = fmt.Sprintf("remove job %d", ids[0])
		}
		return q.wrap(op, err)
	}
	// Their network settings went with the rows; their secrets go too.
	for _, id := range gone {
		q.forgetSecret(id)
	}
	return errors.Join(missing...)
}

// tx runs fn in one write transaction; any error rolls it all back.
func (q *Queue) tx(fn func(*sql.Tx) error) error {
	tx, err := q.db.Begin()
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// exec runs one statement that must touch a job's row(s).
func (q *Queue) exec(op, query string, args ...any) error {
	res, err := q.db.Exec(query, args...)
	if err != nil {
		return q.wrap(op, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	return nil
}

// Checked says what is known of a job's files once they are done: what
// proved them all ("verified (sha-256)", "verified (sha-256, BitTorrent
// piece hashes)" when different hashes proved different files), "not
// verified (no hash published)" when any of them could not be checked,
// and "" while any is not done.
func (j Job) Checked() string {
	proofs, unchecked, done := j.Proofs()
	switch {
	case !done:
		return ""
	case unchecked:
		return engine.OutcomeText(engine.OutcomeNotVerified, "")
	case len(proofs) == 0:
		return ""
	}
	return engine.OutcomeText(engine.OutcomeVerified, strings.Join(proofs, ", "))
}

// NothingToRun says why a run of the queue would do nothing (no job
// queued, and how many are paused or failed, with how to go on), or ""
// when there is a job to run.
func NothingToRun(q *Queue) string {
	jobs, err := q.List()
	if err != nil {
		return ""
	}
	count := map[State]int{}
	for _, j := range jobs {
		count[j.State]++
	}
	if count[Queued]+count[Running] > 0 {
		return ""
	}
	if ids, err := q.SeedingOn(); err != nil || len(ids) > 0 {
		return "" // torrents to seed on
	}
	msg := "nothing to run: no job is queued"
	if n := count[Paused] + count[Failed]; n > 0 {
		msg += fmt.Sprintf(" (%d paused or failed; braid queue resume ID queues one again)", n)
	}
	return msg
}
