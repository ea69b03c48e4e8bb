package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine"
	"braid/queue/queuetest"
)

// TestMigrateFromV2 opens a database as Braid with schema version 2 left
// it: a job failed with a checksum mismatch (known then only from its
// error text), a job whose source holds a password, and the per-mirror
// connection limit the window stored as a raw setting.
func TestMigrateFromV2(t *testing.T) {
	t.Parallel()
	dir, db := oldDB(t, 2)
	const doc = `{"Version":4,"Files":[{"Name":"a","Size":1},{"Name":"b","Size":1}]}`
	for _, stmt := range []string{
		`INSERT INTO jobs (id, source, dest, state, position, added_at, document, error) VALUES
			(1, 'bad.meta4', '/dl', 'failed', 0, 1, '` + doc + `',
			 'b: file does not match its hash: sha-256 00, expected 11'),
			(2, 'https://me:s3cret@example.org/f.iso', '/dl', 'failed', 1, 1, '` + doc + `',
			 'a: https://me:s3cret@example.org/f.iso: 404 Not Found'),
			(3, 'fine.meta4', '/dl', 'done', 2, 1, '` + doc + `', '')`,
		`INSERT INTO files (id, job, idx, name, size, hashes, selected) VALUES
			(1, 1, 0, 'a', 1, '[]', 1), (2, 1, 1, 'b', 1, '[]', 1),
			(3, 2, 0, 'a', 1, '[]', 1), (4, 2, 1, 'b', 1, '[]', 1),
			(5, 3, 0, 'a', 1, '[]', 1), (6, 3, 1, 'b', 1, '[]', 1)`,
		`INSERT INTO pieces (file, length, count, bits) VALUES
			(1, 1048576, 1, x'00'), (2, 1048576, 1, x'00'), (3, 1048576, 1, x'00'),
			(4, 1048576, 1, x'00'), (5, 1048576, 1, x'80'), (6, 1048576, 1, x'80')`,
		`INSERT INTO mirrors (file, url, priority) VALUES (3, 'https://me:s3cret@example.org/f.iso', 1)`,
		`INSERT INTO settings (key, value) VALUES ('max_conns_per_mirror', '4')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`SELECT mismatch FROM files`); err == nil {
		t.Fatal("a version 2 database already has files.mismatch; this test tests nothing")
	}
	db.Close()

	q := queuetest.Open(t, Open, dir)
	var v int
	if err := q.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("user_version after Open = %d, %v; want %d", v, err, schemaVersion)
	}
	jobs, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	mismatch := map[string]bool{}
	for _, j := range jobs {
		for _, f := range j.Files {
			mismatch[fmt.Sprint(j.ID, f.Name)] = f.Mismatch
		}
		if want := j.ID == 1; j.Mismatch != want {
			t.Errorf("job %d Mismatch = %v, want %v", j.ID, j.Mismatch, want)
		}
		if j.Origin != (Origin{}) {
			t.Errorf("job %d has origin %+v from nowhere", j.ID, j.Origin)
		}
	}
	if want := map[string]bool{"1a": false, "1b": true, "2a": false, "2b": false, "3a": false, "3b": false}; fmt.Sprint(mismatch) != fmt.Sprint(want) {
		t.Errorf("file mismatch flags %v, want %v", mismatch, want)
	}
	j, err := q.Get(2)
	if err != nil {
		t.Fatal(err)
	}
	if j.Source != "https://example.org/f.iso" || strings.Contains(j.Error, "s3cret") || !strings.Contains(j.Error, "404") {
		t.Errorf("migrated job shows source %q, error %q", j.Source, j.Error)
	}
	if u := j.Files[0].Mirrors[0].URL; u != "https://me:s3cret@example.org/f.iso" {
		t.Errorf("the mirror lost the credentials it needs: %q", u)
	}
	if s, err := q.Settings(); err != nil || s.MaxConnsPerMirror != 4 {
		t.Errorf("MaxConnsPerMirror from the window's old setting = %d, %v; want 4", s.MaxConnsPerMirror, err)
	}
}

func TestMismatchFlag(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	id, err := q.Add(NewJob{Source: "m.meta4", Dest: t.TempDir(), Doc: queuetest.Doc(10, 0, "a", "b", "c"), Selected: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	flags := func() (bool, string) {
		t.Helper()
		j, err := q.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		var s string
		for _, f := range j.Files {
			s += fmt.Sprintf("%s:%v/%v ", f.Name, f.Mismatch, f.Verified)
		}
		jobs, err := q.List()
		if err != nil || len(jobs) != 1 || jobs[0].Mismatch != j.Mismatch {
			t.Fatalf("List disagrees with Get on Mismatch: %+v, %v", jobs, err)
		}
		return j.Mismatch, strings.TrimSpace(s)
	}
	steps := []struct {
		name string
		do   func() error
		job  bool
		want string
	}{
		{"new", func() error { return nil }, false, "a:false/false b:false/false c:false/false"},
		{"verified", func() error { return q.SetFile(id, "a", VerifiedBy("")) }, false, "a:false/true b:false/false c:false/false"},
		{"verify finds a mismatch", func() error { return q.SetFile(id, "a", Mismatched) }, true, "a:true/false b:false/false c:false/false"},
		{"an unselected file does not count", func() error {
			if err := q.SetFile(id, "a", Unverified); err != nil {
				return err
			}
			return q.SetFile(id, "c", Mismatched)
		}, false, "a:false/false b:false/false c:true/false"},
		{"a download ends in a mismatch", func() error {
			if err := q.SetFile(id, "b", Mismatched); err != nil {
				return err
			}
			return finishFile(q, id, "b", nil, fmt.Errorf("b: %w: sha-256 00, expected 11", engine.ErrHashMismatch))
		}, true, "a:false/false b:true/false c:true/false"},
		{"another failure is no mismatch", func() error {
			return finishFile(q, id, "a", nil, fmt.Errorf("a: %w", engine.ErrNoMirrors))
		}, true, "a:false/false b:true/false c:true/false"},
		{"repaired", func() error { return q.SetFile(id, "b", VerifiedBy("")) }, false, "a:false/false b:false/true c:true/false"},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if job, files := flags(); job != s.job || files != s.want {
			t.Errorf("%s: job mismatch %v, files %s; want %v, %s", s.name, job, files, s.job, s.want)
		}
	}
	if err := q.SetFile(id, "nope", Mismatched); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetFile of a missing file: %v", err)
	}
}

// TestPrepareFileKeepsOrigin: `braid get --state` stores the origin's
// facts, and a new ETag from the origin means the recorded pieces are of
// another file.
func TestPrepareFileKeepsOrigin(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	dest := t.TempDir()
	f := queuetest.Doc(3<<20, 1<<20, "f.bin").Files[0]
	const src = "https://user:pw@origin.example/f.bin"
	v1 := Origin{ETag: `"1"`, Referer: "https://origin.example/f.bin"}
	id, _, err := prepareFile(q, src, dest, f, v1)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Journal(id).PiecesDone("f.bin", []int{0, 1}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dest, "f.bin.part"), make([]byte, 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := finishFile(q, id, "f.bin", nil, context.Canceled); err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if j.Origin != v1 || j.Source != "https://origin.example/f.bin" {
		t.Fatalf("job after get: origin %+v, source %q", j.Origin, j.Source)
	}

	id2, done, err := prepareFile(q, src, dest, f, v1)
	if err != nil || id2 != id || done == nil || done.Count() != 2 {
		t.Fatalf("resume with the same ETag: job %d (want %d), done %v, %v", id2, id, done, err)
	}
	if err := finishFile(q, id, "f.bin", nil, context.Canceled); err != nil {
		t.Fatal(err)
	}
	v2 := Origin{ETag: `"2"`, Referer: v1.Referer}
	id3, done, err := prepareFile(q, src, dest, f, v2)
	if err != nil || id3 != id || done != nil {
		t.Fatalf("resume after the origin changed: job %d, done %v, %v; want nothing trusted", id3, done, err)
	}
	if j, _ := q.Get(id); j.Origin != v2 || j.Files[0].Done != 0 {
		t.Errorf("after the change: origin %+v, %d pieces recorded", j.Origin, j.Files[0].Done)
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"https://user:pass@example.org/a@b.iso", "https://example.org/a@b.iso"},
		{"ftp://anonymous@ftp.example.org/pub/x", "ftp://ftp.example.org/pub/x"},
		{"https://example.org/x?u=a@b", "https://example.org/x?u=a@b"},
		{"/home/me@work/x.meta4", "/home/me@work/x.meta4"},
		{"a: https://u:p@one.example/x: 404; b: HTTP://v:q@two.example:8080", "a: https://one.example/x: 404; b: HTTP://two.example:8080"},
		{"mail me@example.org", "mail me@example.org"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := Redact(tc.in); got != tc.want {
				t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
