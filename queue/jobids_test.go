package queue

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"braid/engine/torrent"
	"braid/queue/queuetest"
)

// TestJobIDsNeverReused: after the last job is removed, the next job gets
// a new ID, in the same process and after a restart; a script that holds
// the old ID finds no job rather than another download.
func TestJobIDsNeverReused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dest := filepath.Join(dir, "dl")
	q := queuetest.Open(t, Open, dir)
	add := func(q *Queue, name string) int64 {
		t.Helper()
		id, err := q.Add(NewJob{Source: "http://x.example/" + name + ".meta4", Dest: dest, Doc: queuetest.Doc(10, 0, name)})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	add(q, "a")
	last := add(q, "b")
	if err := q.Remove(last); err != nil {
		t.Fatal(err)
	}
	next := add(q, "c")
	if next <= last {
		t.Fatalf("after job %d was removed the next job is %d: the ID was given again", last, next)
	}
	if _, err := q.Get(last); err == nil {
		t.Fatalf("removed job %d names a job", last)
	}

	// Removed, and Braid starts again: the ID is still not given.
	if err := q.Remove(next); err != nil {
		t.Fatal(err)
	}
	q.Close()
	q = queuetest.Open(t, Open, dir)
	if again := add(q, "d"); again <= next {
		t.Fatalf("after job %d was removed and Braid restarted the next job is %d", next, again)
	}
}

// TestJobIDMigration opens a state.db made by the schema before job IDs
// were AUTOINCREMENT, filled through the queue's own methods (jobs with
// files, mirrors and pieces, a torrent, paused seeding, seeding records),
// and checks that the migration keeps every row of every table, every ID,
// the foreign keys' cascade and the indexes, and that no ID is given
// again afterwards.
//
// Not parallel: it opens the queue at the older schema version by setting
// schemaVersion, which parallel tests read (they wait until every
// sequential test has ended).
func TestJobIDMigration(t *testing.T) {
	before := schemaVersion
	t.Cleanup(func() { schemaVersion = before })
	old := -1
	for i, m := range migrations {
		if m.foreignKeysOff { // the one that makes the jobs table again
			old = i
		}
	}
	if old < 0 {
		t.Fatal("no migration makes job IDs AUTOINCREMENT")
	}
	schemaVersion = old

	dir := t.TempDir()
	dest := filepath.Join(dir, "dl")
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []int64
	for _, name := range []string{"a", "b", "c", "d"} {
		id, err := q.Add(NewJob{Source: "http://x.example/" + name + ".meta4", Dest: dest, Doc: queuetest.Doc(3<<20, 1<<20, name+"1", name+"2")})
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, id)
	}
	if err := q.SetTorrentSpec(jobs[1], &torrent.Spec{Name: "t", Trackers: [][]string{{"udp://tracker.example:80"}}}); err != nil {
		t.Fatal(err)
	}
	if err := q.SetSeedPaused(jobs[1], true); err != nil {
		t.Fatal(err)
	}
	if err := q.SetSeeded(jobs[2], Seeded{Uploaded: 1234, Time: time.Minute, Active: true}); err != nil {
		t.Fatal(err)
	}
	// The highest ID is freed: the old schema would give it again.
	removed := jobs[3]
	if err := q.Remove(removed); err != nil {
		t.Fatal(err)
	}
	jobs = jobs[:3]
	var create string
	if err := q.db.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'jobs'`).Scan(&create); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToUpper(create), "AUTOINCREMENT") {
		t.Fatalf("the database made at version %d already has AUTOINCREMENT: %s", old, create)
	}
	was := dumpTables(t, q)
	columns := tableInfo(t, q, "jobs")
	q.Close()

	// Up to this migration only: later ones may add columns.
	schemaVersion = old + 1
	q = queuetest.Open(t, Open, dir)
	var v int
	if err := q.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != old+1 {
		t.Fatalf("user_version after the migration = %d, %v; want %d", v, err, old+1)
	}
	if err := q.db.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'jobs'`).Scan(&create); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ToUpper(create), "AUTOINCREMENT") {
		t.Fatalf("after the migration the jobs table is %s", create)
	}
	is := dumpTables(t, q)
	delete(is, "sqlite_sequence")
	for table, rows := range was {
		if !slices.Equal(rows, is[table]) {
			t.Errorf("table %s changed in the migration:\n was %q\n  is %q", table, rows, is[table])
		}
	}
	for table := range is {
		if _, ok := was[table]; !ok {
			t.Errorf("the migration left a new table %s", table)
		}
	}
	if got := tableInfo(t, q, "jobs"); !slices.Equal(got, columns) {
		t.Errorf("the jobs table's columns changed:\n was %q\n  is %q", columns, got)
	}
	var fk bool
	if err := q.db.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || !fk {
		t.Errorf("foreign keys after the migration: %v, %v; want on", fk, err)
	}

	// The jobs read back whole, and the records that refer to them too,
	// by this Braid's queries: the later migrations too (they add columns
	// those queries read, as files.rebuilt).
	q.Close()
	schemaVersion = before
	q = queuetest.Open(t, Open, dir)
	for _, id := range jobs {
		j, err := q.Get(id)
		if err != nil || len(j.Files) != 2 || j.Files[0].Pieces != 3 || len(j.Files[0].Mirrors) != 2 {
			t.Fatalf("job %d after the migration: %+v, %v", id, j, err)
		}
	}
	if spec, ok, err := q.TorrentSpec(jobs[1]); err != nil || !ok || spec.Name != "t" {
		t.Errorf("torrent of job %d after the migration: %+v %v %v", jobs[1], spec, ok, err)
	}
	if paused, err := q.SeedPaused(); err != nil || !paused[jobs[1]] {
		t.Errorf("paused seeding after the migration: %v, %v", paused, err)
	}
	if s, err := q.Seeded(jobs[2]); err != nil || s.Uploaded != 1234 || !s.Active {
		t.Errorf("seeding record after the migration: %+v, %v", s, err)
	}

	// Removing a job still takes its files, torrent and records with it.
	if err := q.Remove(jobs[1]); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"files", "torrent_specs", "seed_paused"} {
		var n int
		if err := q.db.QueryRow(`SELECT count(*) FROM `+table+` WHERE job = ?`, jobs[1]).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s rows of removed job %d after the migration: %d, %v", table, jobs[1], n, err)
		}
	}

	// An ID freed before the migration cannot be known (the old table
	// kept no record of it); one freed after it is never given again.
	id, err := q.Add(NewJob{Source: "http://x.example/e.meta4", Dest: dest, Doc: queuetest.Doc(10, 0, "e")})
	if err != nil {
		t.Fatal(err)
	}
	if id <= jobs[2] {
		t.Errorf("the first job after the migration got ID %d; job %d is in the queue", id, jobs[2])
	}
	if err := q.Remove(id); err != nil {
		t.Fatal(err)
	}
	if again, err := q.Add(NewJob{Source: "http://x.example/f.meta4", Dest: dest, Doc: queuetest.Doc(10, 0, "f")}); err != nil || again <= id {
		t.Errorf("after job %d was removed the next job is %d, %v", id, again, err)
	}
}

// dumpTables reads every table of q's database, each row as text, in
// its key's order.
func dumpTables(t *testing.T, q *Queue) map[string][]string {
	t.Helper()
	rows, err := q.db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	out := map[string][]string{}
	for _, table := range tables {
		rows, err := q.db.Query(`SELECT * FROM ` + table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var lines []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if b, ok := v.([]byte); ok {
					vals[i] = string(b)
				}
			}
			lines = append(lines, fmt.Sprintf("%q", vals))
		}
		rows.Close()
		slices.Sort(lines)
		out[table] = lines
	}
	return out
}

// tableInfo lists a table's columns: name, type, not null, default, key.
func tableInfo(t *testing.T, q *Queue, table string) []string {
	t.Helper()
	rows, err := q.db.Query(`SELECT name, type, "notnull", coalesce(dflt_value, ''), pk FROM pragma_table_info(?)`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name, typ, dflt string
		var notNull, pk int
		if err := rows.Scan(&name, &typ, &notNull, &dflt, &pk); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %s %d %s %d", name, typ, notNull, dflt, pk))
	}
	return out
}
