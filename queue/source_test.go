package queue

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"braid/engine/metalink"
	"braid/queue/queuetest"
)

// A relative and an absolute path to the same metalink are one job: the
// second get resumes the first's instead of fetching again.
func TestPrepareFileOneJobPerSource(t *testing.T) {
	q := queuetest.Open(t, Open, t.TempDir())
	dir, dest := t.TempDir(), t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("f.meta4", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := queuetest.Doc(3<<20, 0, "f.bin").Files[0]
	id1, _, err := prepareFile(q, "f.meta4", dest, f, Origin{})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Journal(id1).PiecesDone("f.bin", []int{0}); err != nil {
		t.Fatal(err)
	}
	if err := finishFile(q, id1, "f.bin", nil, context.Canceled); err != nil {
		t.Fatal(err)
	}
	id2, _, err := prepareFile(q, filepath.Join(dir, "f.meta4"), dest, f, Origin{})
	if err != nil {
		t.Fatal(err)
	}
	if id2 != id1 {
		t.Fatalf("the absolute path made job %d, the relative one job %d", id2, id1)
	}
	if jobs, _ := q.List(); len(jobs) != 1 {
		t.Fatalf("%d jobs, want 1", len(jobs))
	}
}

// TestMigrateKeysSources: a job stored before source_key existed is found
// by any spelling of its source after the migration.
func TestMigrateKeysSources(t *testing.T) {
	t.Parallel()
	dir, db := oldDB(t, 3)
	dest := t.TempDir()
	const doc = `{"Version":4,"Files":[{"Name":"a","Size":1}]}`
	for _, stmt := range []string{
		`INSERT INTO jobs (id, source, dest, state, position, added_at, document) VALUES
			(7, 'HTTPS://Example.org:443/f.meta4', '` + dest + `', 'paused', 0, 1, '` + doc + `')`,
		`INSERT INTO files (id, job, idx, name, size, hashes, selected) VALUES (1, 7, 0, 'a', 1, '[]', 1)`,
		`INSERT INTO pieces (file, length, count, bits) VALUES (1, 1048576, 1, x'00')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	q := queuetest.Open(t, Open, dir)
	f := metalink.File{Name: "a", Size: 1}
	id, _, err := prepareFile(q, "https://example.org/f.meta4#top", dest, f, Origin{})
	if err != nil || id != 7 {
		t.Fatalf("prepareFile after the migration: job %d, %v; want job 7", id, err)
	}
}

// oldDB makes a state folder whose database is at schema version, as a
// Braid of that version left it, and returns the folder and the database.
func oldDB(t *testing.T, version int) (string, *sql.DB) {
	t.Helper()
	dir := t.TempDir()
	queuetest.Open(t, Open, dir).Close()
	path := filepath.Join(dir, DBName)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	db := queuetest.RawDB(t, path)
	if err := migrate(db, version); err != nil {
		t.Fatal(err)
	}
	return dir, db
}
