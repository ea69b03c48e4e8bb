package queue

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
		fmt.Fprintf(&b, "-- schema version %d: what the migrations in schema.go make, written out whole by\n-- go test ./queue -run TestFreshSchema -update\n", schemaVersion)
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
	if freshVersion != schemaVersion {
		t.Fatalf("schema.sql is at version %d, the migrations at %d; run go test ./queue -run TestFreshSchema -update", freshVersion, schemaVersion)
	}
}

// TestFreshSchemaBehind: a new state folder is made from schema.sql,
// and a schema.sql a migration behind still makes it right, with the
// step after it.
func TestFreshSchemaBehind(t *testing.T) {
	behind := queuetest.RawDB(t, filepath.Join(t.TempDir(), DBName))
	if err := migrate(behind, 1); err != nil {
		t.Fatal(err)
	}
	if err := migrate(behind, schemaVersion-1); err != nil {
		t.Fatal(err)
	}
	// A table the steps never make marks a folder made from it.
	const marker = "CREATE TABLE made_from_schema_sql (x)"
	var b strings.Builder
	fmt.Fprintf(&b, "-- schema version %d\n", schemaVersion-1)
	for _, s := range append(schemaOf(t, behind), marker) {
		b.WriteString(s + ";\n")
	}
	defer func(s string, v int) { freshSchema, freshVersion = s, v }(freshSchema, freshVersion)
	freshSchema, freshVersion = b.String(), schemaVersion-1
	dir := t.TempDir()
	queuetest.Open(t, Open, dir).Close()
	got := schemaOf(t, queuetest.RawDB(t, filepath.Join(dir, DBName)))
	all := queuetest.RawDB(t, filepath.Join(t.TempDir(), DBName))
	if err := migrate(all, 1); err != nil {
		t.Fatal(err)
	}
	if err := migrate(all, schemaVersion); err != nil {
		t.Fatal(err)
	}
	want := append(schemaOf(t, all), marker)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("a new folder from a schema.sql one version behind:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
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
