package queue

import (
	"path/filepath"
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
	s, err := q.SyncSet("http://x/capabilitylist.xml", dest)
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
	again, err := q.SyncSet("http://x/capabilitylist.xml", rel)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != s.ID || !again.At.Equal(at) || !again.Until.Equal(until) || again.SyncedAt.IsZero() {
		t.Fatalf("record after reopening: %+v", again)
	}
	if len(again.Files) != 1 || again.Files["d/a.bin"].Size != 4 || again.Files["d/a.bin"].Hashes[0].Value != "ab" {
		t.Fatalf("files after reopening: %+v", again.Files)
	}
	other, err := q.SyncSet("http://x/capabilitylist.xml", t.TempDir())
	if err != nil || other.ID == s.ID || len(other.Files) != 0 {
		t.Fatalf("another folder shares the record: %+v, %v", other, err)
	}
	sets, err := q.SyncSets()
	if err != nil || len(sets) != 2 {
		t.Fatalf("SyncSets: %+v, %v", sets, err)
	}
}

// TestSyncedFiles: a batch records every file in it, updating those
// already recorded, and a batch for a set that does not exist fails and
// records nothing.
func TestSyncedFiles(t *testing.T) {
	q := queuetest.Open(t, Open, t.TempDir())
	s, err := q.SyncSet("http://x/capabilitylist.xml", t.TempDir())
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
	again, err := q.SyncSet(s.Source, s.Dest)
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
