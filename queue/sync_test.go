package queue

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/queue/queuetest"
)

// TestSyncRecord: what a sync records survives closing the queue, per
// source and folder, and a folder given relative is the same folder.
func TestSyncRecord(t *testing.T) {
	dir := t.TempDir()
	dest := t.TempDir()
	q := queuetest.Open(t, Open, dir)
	job, err := q.Add(NewJob{Sync: true, Source: "http://x/capabilitylist.xml", Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	s, err := q.SyncSet(job, "http://x/capabilitylist.xml", dest)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Until.IsZero() || !s.SyncedAt.IsZero() || len(s.Files) != 0 {
		t.Fatalf("a new record is not empty: %+v", s)
	}
	f := SyncedFile{Name: "d/a.bin", URL: "http://x/d/a.bin", Size: 3, Hashes: []metalink.Hash{{Type: "md5", Value: "ab"}}}
	if err := q.SyncedFiles(s.ID, []SyncedFile{f}); err != nil {
		t.Fatal(err)
	}
	f.Size = 4 // updated at the source and synced again
	if err := q.SyncedFiles(s.ID, []SyncedFile{f}); err != nil {
		t.Fatal(err)
	}
	if err := q.SyncedFiles(s.ID, []SyncedFile{{Name: "gone", URL: "http://x/gone", Size: -1}}); err != nil {
		t.Fatal(err)
	}
	if err := q.SyncedFiles(s.ID, []SyncedFile{{Name: "gone", Gone: true}}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2020, 1, 2, 3, 4, 5, 6e6, time.UTC)
	until := at.Add(time.Hour)
	if err := q.SyncDone(s.ID, at, until); err != nil {
		t.Fatal(err)
	}
	q.Close()

	q = queuetest.Open(t, Open, dir)
	// The same folder named relative to the working folder (on the
	// destination's drive: on Windows the temporary folder and the
	// package's may be on different drives).
	t.Chdir(filepath.Dir(dest))
	rel := filepath.Join(".", "x", "..", filepath.Base(dest))
	again, err := q.SyncSet(job, "http://x/capabilitylist.xml", rel)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != s.ID || !again.At.Equal(at) || !again.Until.Equal(until) || again.SyncedAt.IsZero() {
		t.Fatalf("record after reopening: %+v", again)
	}
	if len(again.Files) != 1 || again.Files["d/a.bin"].Size != 4 || again.Files["d/a.bin"].Hashes[0].Value != "ab" {
		t.Fatalf("files after reopening: %+v", again.Files)
	}
	other, err := q.SyncSet(0, "http://x/capabilitylist.xml", t.TempDir())
	if err != nil || other.ID == s.ID || len(other.Files) != 0 {
		t.Fatalf("another folder shares the record: %+v, %v", other, err)
	}
	sets, err := q.SyncSets(job)
	if err != nil || len(sets) != 1 || sets[0].ID != s.ID || len(sets[0].Files) != 1 {
		t.Fatalf("SyncSets of the job: %+v, %v", sets, err)
	}
}

// TestSyncJob: a sync job is a job of the queue, found again by its
// source and folder, listed as a sync; its sets and what they synced go
// with it when it is removed, and a set only checked before (no job) is
// taken by the sync job of its folder.
func TestSyncJob(t *testing.T) {
	q := queuetest.Open(t, Open, t.TempDir())
	dest := t.TempDir()
	const source = "https://user:secret@x.example/.well-known/resourcesync"
	checked, err := q.SyncSet(0, "http://x.example/capabilitylist.xml", dest)
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(NewJob{Sync: true, Source: source, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	again, err := q.Add(NewJob{Sync: true, Source: source, Dest: dest})
	if err != nil || again != id {
		t.Fatalf("the same sync added again is job %d (%v), want %d", again, err, id)
	}
	other, err := q.Add(NewJob{Sync: true, Source: source, Dest: t.TempDir()})
	if err != nil || other == id {
		t.Fatalf("a sync into another folder is job %d (%v)", other, err)
	}
	list, err := q.List()
	if err != nil || len(list) != 2 || !list[0].Sync || list[0].State != Queued || len(list[0].Files) != 0 {
		t.Fatalf("List: %+v, %v", list, err)
	}
	if strings.Contains(list[0].Source, "secret") {
		t.Errorf("a sync job keeps its password in clear: %s", list[0].Source)
	}
	if got := q.Login(list[0].Source); got != source {
		t.Errorf("this process reads the sync job's source as %s, without the login it was given", got)
	}
	j, err := q.Get(id)
	if err != nil || !j.Sync || j.Dest != dest {
		t.Fatalf("Get: %+v, %v", j, err)
	}
	s, err := q.SyncSet(id, "http://x.example/capabilitylist.xml", dest)
	if err != nil || s.ID != checked.ID {
		t.Fatalf("the checked set is %+v (%v), want set %d", s, err, checked.ID)
	}
	if err := q.SyncedFiles(s.ID, []SyncedFile{{Name: "a", URL: "http://x.example/a", Size: 1}}); err != nil {
		t.Fatal(err)
	}
	// Taken by the job, a set stays its own when checked again.
	if _, err := q.SyncSet(0, s.Source, dest); err != nil {
		t.Fatal(err)
	}
	if sets, err := q.SyncSets(id); err != nil || len(sets) != 1 || len(sets[0].Files) != 1 {
		t.Fatalf("sets of the job: %+v, %v", sets, err)
	}
	// Its row says what its folder held at its last complete sync.
	if j, err := q.Get(id); err != nil || j.SyncFiles != 0 {
		t.Fatalf("before a complete sync the job says %d files (%v)", j.SyncFiles, err)
	}
	if err := q.SyncedFiles(s.ID, []SyncedFile{{Name: "b", URL: "http://x.example/b", Size: 1000}}); err != nil {
		t.Fatal(err)
	}
	if err := q.SyncDone(s.ID, time.Now(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	if j, err := q.Get(id); err != nil || j.SyncFiles != 2 || j.SyncBytes != 1001 {
		t.Fatalf("after a complete sync Get says %d files, %d bytes (%v)", j.SyncFiles, j.SyncBytes, err)
	}
	if list, err := q.List(); err != nil || list[0].ID != id || list[0].SyncFiles != 2 || list[0].SyncBytes != 1001 {
		t.Fatalf("after a complete sync List says %+v (%v)", list, err)
	}
	if err := q.Remove(id); err != nil {
		t.Fatal(err)
	}
	var sets, files int
	if err := q.db.QueryRow(`SELECT (SELECT count(*) FROM sync_sets), (SELECT count(*) FROM sync_files)`).Scan(&sets, &files); err != nil {
		t.Fatal(err)
	}
	if sets != 0 || files != 0 {
		t.Fatalf("a removed sync job left %d sets and %d files", sets, files)
	}
}

// TestSyncSetsBecomeJobs opens a state.db whose sync sets were recorded
// before they belonged to jobs: each becomes a sync job, done when it had
// synced, paused when not, with its files, whose count and bytes its row
// says.
//
// Not parallel: it sets schemaVersion (see TestJobIDMigration).
func TestSyncSetsBecomeJobs(t *testing.T) {
	before := schemaVersion
	t.Cleanup(func() { schemaVersion = before })
	schemaVersion = -1
	for i, m := range migrations {
		if strings.Contains(m.sql, "ADD COLUMN kind") { // the one that makes sets jobs
			schemaVersion = i
		}
	}
	if schemaVersion < 0 {
		t.Fatal("no migration gives jobs a kind")
	}
	dir, dest := t.TempDir(), t.TempDir()
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"http://x.example/a/capabilitylist.xml", "http://x.example/b/capabilitylist.xml"} {
		if _, err := q.db.Exec(`INSERT INTO sync_sets (source, dest) VALUES (?, ?)`, src, dest); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if _, err := q.db.Exec(`UPDATE sync_sets SET synced_at = ? WHERE source LIKE '%/a/%'`, at.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if _, err := q.db.Exec(`INSERT INTO sync_files (sync, name, url, size, hashes) SELECT id, 'f', 'http://x.example/f', 1, '[]' FROM sync_sets`); err != nil {
		t.Fatal(err)
	}
	q.Close()

	schemaVersion = before
	q = queuetest.Open(t, Open, dir)
	list, err := q.List()
	if err != nil || len(list) != 2 {
		t.Fatalf("List after the migration: %+v, %v", list, err)
	}
	for i, want := range []State{Done, Paused} {
		j := list[i]
		if !j.Sync || j.State != want || j.Dest != dest || !strings.Contains(j.Source, "capabilitylist.xml") || j.SyncFiles != 1 || j.SyncBytes != 1 {
			t.Errorf("job %d after the migration: %+v", i, j)
		}
		if sets, err := q.SyncSets(j.ID); err != nil || len(sets) != 1 || len(sets[0].Files) != 1 {
			t.Errorf("sets of job %d: %+v, %v", j.ID, sets, err)
		}
	}
	if !list[0].FinishedAt.Equal(at) {
		t.Errorf("the synced set's job finished at %v, want %v", list[0].FinishedAt, at)
	}
}

// TestSyncedFiles: a batch records every file in it, updating those
// already recorded, and a batch for a set that does not exist fails and
// records nothing.
func TestSyncedFiles(t *testing.T) {
	q := queuetest.Open(t, Open, t.TempDir())
	s, err := q.SyncSet(0, "http://x/capabilitylist.xml", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := q.SyncedFiles(s.ID, []SyncedFile{{Name: "a", URL: "http://x/a", Size: 1}}); err != nil {
		t.Fatal(err)
	}
	batch := []SyncedFile{
		{Name: "a", URL: "http://x/a", Size: 2},
		{Name: "b", URL: "http://x/b", Size: 3, Hashes: []metalink.Hash{{Type: "sha-256", Value: "cd"}}},
		{Name: "c/d", URL: "http://x/c/d", Size: -1},
	}
	if err := q.SyncedFiles(s.ID, batch); err != nil {
		t.Fatal(err)
	}
	if err := q.SyncedFiles(s.ID+1, batch); err == nil {
		t.Fatal("a batch for a set that does not exist was recorded")
	}
	again, err := q.SyncSet(0, s.Source, s.Dest)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Files) != 3 || again.Files["a"].Size != 2 || again.Files["b"].Hashes[0].Value != "cd" || again.Files["c/d"].Size != -1 {
		t.Fatalf("files after a batch: %+v", again.Files)
	}
	var n int
	if err := q.db.QueryRow(`SELECT count(*) FROM sync_files`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d rows in sync_files (%v), want the set's 3", n, err)
	}
}
