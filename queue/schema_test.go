package queue

import (
	"database/sql"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/queue/queuetest"
)

var update = flag.Bool("update", false, "write schema.sql anew from the migrations")

// TestFreshSchema checks that a new state folder, made with schema.sql at
// once, has the schema the migrations make step by step from version 1.
func TestFreshSchema(t *testing.T) {
	stepped := queuetest.RawDB(t, filepath.Join(t.TempDir(), DBName))
	if err := migrate(stepped, 1); err != nil { // not 0: the steps, not schema.sql
		t.Fatal(err)
	}
	if err := migrate(stepped, schemaVersion); err != nil {
		t.Fatal(err)
	}
	want := schemaOf(t, stepped)
	if *update {
		var b strings.Builder
		for _, s := range want {
			b.WriteString(s + ";\n")
		}
		if err := os.WriteFile("schema.sql", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skip("schema.sql written; run the test again to check it")
	}
	dir := t.TempDir()
	queuetest.Open(t, Open, dir).Close()
	fresh := queuetest.RawDB(t, filepath.Join(dir, DBName))
	got := schemaOf(t, fresh)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("schema.sql is not what the migrations make; run go test ./queue -run TestFreshSchema -update\nfresh:\n%s\nstepped:\n%s",
			strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var v int
	if err := fresh.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("a new state folder is at version %d (%v), want %d", v, err, schemaVersion)
	}
}

// schemaOf is every table, index and trigger of db as SQL, in the order
// they were made.
func schemaOf(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
