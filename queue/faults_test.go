package queue

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/queue/queuetest"
)

func TestLockedDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q, err := OpenOptions(dir, Options{BusyTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	id, err := q.Add(NewJob{Source: "before", Dest: t.TempDir(), Doc: queuetest.Doc(4<<20, 1<<20, "f")})
	if err != nil {
		t.Fatal(err)
	}

	// Another connection takes the write lock and keeps it.
	other := queuetest.RawDB(t, q.Path())
	tx, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE settings SET value = value`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO settings (key, value) VALUES ('holder', 'x')`); err != nil {
		t.Fatal(err)
	}

	wantMsg := "queue database is locked by another Braid? (" + q.Path() + ")"
	for _, tc := range []struct {
		name string
		op   func() error
	}{
		{"add", func() error {
			_, err := q.Add(NewJob{Source: "during", Dest: t.TempDir(), Doc: queuetest.Doc(1, 0, "g")})
			return err
		}},
		{"journal", func() error { return q.Journal(id).PiecesDone("f", []int{1}) }},
		{"pause", func() error { return q.Pause(id, "") }},
		{"move", func() error { return q.Move(id, By(1)) }},
		{"settings", func() error { return q.UpdateSettings(func(s *Settings) { s.MaxConns = 3 }) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			err := tc.op()
			if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), wantMsg) {
				t.Fatalf("error %v, want one saying %q", err, wantMsg)
			}
			if waited := time.Since(start); waited < 150*time.Millisecond {
				t.Errorf("gave up after %v, before the busy timeout", waited)
			}
		})
	}
	// Reads are not blocked by a writer (WAL).
	if jobs, err := q.List(); err != nil || len(jobs) != 1 {
		t.Errorf("List under a write lock: %d jobs, %v", len(jobs), err)
	}
	// An owner opening the folder while it is held: a clear error too.
	q.Close()
	if q2, err := OpenOptions(dir, Options{BusyTimeout: 100 * time.Millisecond}); !errors.Is(err, ErrLocked) {
		if q2 != nil {
			q2.Close()
		}
		t.Errorf("Open while another connection writes: %v, want ErrLocked", err)
	}

	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	q, err = OpenOptions(dir, Options{BusyTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if err := q.Journal(id).PiecesDone("f", []int{1}); err != nil {
		t.Errorf("after the lock is released: %v", err)
	}
	if b, _, err := q.Pieces(id, "f"); err != nil || b.Count() != 1 {
		t.Errorf("pieces after the lock: %v %v", b, err)
	}
}

func TestCorruptDatabase(t *testing.T) {
	t.Parallel()
	garbage := func(t *testing.T, path string) {
		junk := make([]byte, 64<<10)
		rand.Read(junk)
		if err := os.WriteFile(path, junk, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	damagedPages := func(t *testing.T, path string) {
		// A real database whose header is fine but whose table pages
		// were overwritten, as a failing disk or a stray write would.
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) < 16<<10 {
			t.Fatalf("database of %d bytes is too small to damage its middle", len(data))
		}
		junk := make([]byte, len(data)-4096)
		rand.Read(junk)
		copy(data[4096:], junk)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"garbage bytes", garbage},
		{"damaged pages", damagedPages},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, DBName)
			q := queuetest.Open(t, Open, dir)
			for i := range 50 {
				if _, err := q.Add(NewJob{Source: fmt.Sprint("src", i), Dest: t.TempDir(), Doc: queuetest.Doc(64<<20, 1<<20, "f")}); err != nil {
					t.Fatal(err)
				}
			}
			q.Close()
			tc.damage(t, path)
			damaged, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}

			q, err = Open(dir)
			if err != nil {
				t.Fatalf("Open of a damaged database: %v", err)
			}
			defer q.Close()
			notes := q.Notices()
			if len(notes) != 1 || !strings.Contains(notes[0], "damaged") || !strings.Contains(notes[0], ".corrupt-") {
				t.Fatalf("Notices = %q", notes)
			}
			aside, _ := filepath.Glob(path + ".corrupt-*")
			var kept bool
			for _, a := range aside {
				if b, err := os.ReadFile(a); err == nil && bytes.Equal(b, damaged) {
					kept = true
					if !strings.Contains(notes[0], a) {
						t.Errorf("the notice does not name %s: %q", a, notes[0])
					}
				}
			}
			if !kept {
				t.Errorf("the damaged bytes were not kept aside (found %v)", aside)
			}
			if jobs, err := q.List(); err != nil || len(jobs) != 0 {
				t.Errorf("fresh queue: %d jobs, %v", len(jobs), err)
			}
			if _, err := q.Add(NewJob{Source: "new", Dest: t.TempDir(), Doc: queuetest.Doc(1, 0, "f")}); err != nil {
				t.Errorf("Add to the fresh queue: %v", err)
			}
		})
	}
	t.Run("not the owner", func(t *testing.T) {
		dir := t.TempDir()
		owner := queuetest.Open(t, Open, dir)
		// Everything in the file itself, so a new connection reads it.
		if _, err := owner.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			t.Fatal(err)
		}
		garbage(t, owner.Path())
		if q, err := Open(dir); !errors.Is(err, ErrCorrupt) {
			if q != nil {
				q.Close()
			}
			t.Errorf("a non-owner's Open of a damaged database: %v, want ErrCorrupt", err)
		}
		if aside, _ := filepath.Glob(owner.Path() + ".corrupt-*"); len(aside) != 0 {
			t.Errorf("a non-owner moved the owner's database aside: %v", aside)
		}
	})
}

func TestDiskFull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := queuetest.Open(t, Open, dir)
	first, err := q.Add(NewJob{Source: "first", Dest: t.TempDir(), Doc: queuetest.Doc(8<<20, 1<<20, "f")})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Journal(first).PiecesDone("f", []int{0, 1}); err != nil {
		t.Fatal(err)
	}
	// A real SQLITE_FULL: the database may not grow past a few more pages.
	var pages int
	if err := q.db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := q.db.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages+40)); err != nil {
		t.Fatal(err)
	}

	added := []int64{first}
	var full error
	for i := 0; i < 1000 && full == nil; i++ {
		// Large documents (many piece hashes) fill pages fast.
		id, err := q.Add(NewJob{Source: fmt.Sprint("src", i), Dest: t.TempDir(), Doc: queuetest.Doc(1<<30, 1<<20, "big")})
		if err != nil {
			full = err
			break
		}
		added = append(added, id)
	}
	if !errors.Is(full, ErrFull) || !strings.Contains(full.Error(), q.Path()) {
		t.Fatalf("Add on a full database: %v, want ErrFull naming %s", full, q.Path())
	}
	t.Logf("full after %d jobs: %v", len(added), full)

	// Nothing recorded before is lost, the failed Add left nothing behind,
	// and progress can still be recorded in place.
	wantDone := 2
	check := func() {
		t.Helper()
		jobs, err := q.List()
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != len(added) {
			t.Fatalf("%d jobs, want %d", len(jobs), len(added))
		}
		var files int
		if err := q.db.QueryRow(`SELECT COUNT(*) FROM files`).Scan(&files); err != nil || files != len(added) {
			t.Errorf("%d file rows for %d jobs (%v): a failed Add left some", files, len(added), err)
		}
		if jobs[0].Files[0].Done != wantDone {
			t.Errorf("first job has %d pieces done, want %d", jobs[0].Files[0].Done, wantDone)
		}
	}
	check()
	switch err := q.Journal(first).PiecesDone("f", []int{2}); {
	case err == nil:
		wantDone = 3 // rewritten in place: no new page needed
	case !errors.Is(err, ErrFull):
		t.Errorf("PiecesDone on a full database: %v", err)
	}
	if err := q.Pause(first, "disk full"); err != nil && !errors.Is(err, ErrFull) {
		t.Errorf("Pause on a full database: %v", err)
	}

	// Space comes back: the queue carries on.
	if _, err := q.db.Exec("PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(NewJob{Source: "after", Dest: t.TempDir(), Doc: queuetest.Doc(1<<30, 1<<20, "big")})
	if err != nil {
		t.Fatalf("Add after space came back: %v", err)
	}
	added = append(added, id)
	check()
	q.Close()
	q = queuetest.Open(t, Open, dir)
	check()
}

// Two processes (here: four connections) opening a new state folder at
// once must not both create the schema.
func TestConcurrentFirstOpen(t *testing.T) {
	t.Parallel()
	for round := range 5 {
		dir := t.TempDir()
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				q, err := Open(dir)
				if err == nil {
					_, err = q.Add(NewJob{Source: "s", Dest: t.TempDir(), Doc: queuetest.Doc(1, 0, "f")})
					q.Close()
				}
				errs <- err
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}

// A flush records a second's verified pieces in one call: all of them, or
// none when the database is locked, and a piece recorded bad after stays
// bad.
func TestTorrentPiecesAllOrNone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q, err := OpenOptions(dir, Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	tp, err := q.TorrentPieces(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const ih = "0123456789abcdef0123456789abcdef01234567"

	other := queuetest.RawDB(t, q.Path())
	tx, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO settings (key, value) VALUES ('holder', 'x')`); err != nil {
		t.Fatal(err)
	}
	if err := tp.Set(ih, []int{0, 1, 2}, true); !errors.Is(err, ErrLocked) {
		t.Errorf("Set under another's write lock: %v, want ErrLocked", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got, err := tp.Load(ih); err != nil || len(got) != 0 {
		t.Fatalf("after a refused Set: %v, %v; want nothing recorded", got, err)
	}

	if err := tp.Set(ih, []int{0, 1, 2, 7}, true); err != nil {
		t.Fatal(err)
	}
	if err := tp.Set(ih, []int{1}, false); err != nil {
		t.Fatal(err)
	}
	got, err := tp.Load(ih)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]bool{0: true, 1: false, 2: true, 7: true}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("recorded %v, want %v", got, want)
	}
}
