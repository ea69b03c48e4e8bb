package queue

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"braid/engine"
	"braid/queue/queuetest"

	"braid/engine/metalink"
	"braid/engine/piece"
)

func ids(t *testing.T, q *Queue) []int64 {
	t.Helper()
	jobs, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for i, j := range jobs {
		if j.Index != i {
			t.Errorf("job %d has Index %d at place %d", j.ID, j.Index, i)
		}
		out = append(out, j.ID)
	}
	return out
}

func TestAddGetList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := queuetest.Open(t, Open, dir)
	doc := queuetest.Doc(5<<20+3, 1<<20, "a.iso", "b.iso", "c.iso")
	id, err := q.Add(NewJob{Source: "http://x.example/a.meta4", Dest: "dl", Doc: doc, Selected: []string{"a.iso", "c.iso"}})
	if err != nil {
		t.Fatal(err)
	}
	id2, err := q.Add(NewJob{Source: "/tmp/b.meta4", Dest: filepath.Join(dir, "dl2"), Doc: queuetest.Doc(10, 0, "small")})
	if err != nil {
		t.Fatal(err)
	}

	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(j.Doc, doc) {
		t.Errorf("stored document differs:\n got %+v\nwant %+v", j.Doc, doc)
	}
	if !filepath.IsAbs(j.Dest) || filepath.Base(j.Dest) != "dl" {
		t.Errorf("Dest = %q, want an absolute path ending in dl", j.Dest)
	}
	if j.State != Queued || j.Index != 0 || j.AddedAt.IsZero() || !j.FinishedAt.IsZero() {
		t.Errorf("new job: state %s index %d added %v finished %v", j.State, j.Index, j.AddedAt, j.FinishedAt)
	}
	var selected []string
	for _, f := range j.Files {
		if f.Selected {
			selected = append(selected, f.Name)
		}
		if f.Pieces != 6 || f.Layout.Length != 1<<20 || f.Done != 0 {
			t.Errorf("file %s: %d pieces of %d, %d done", f.Name, f.Pieces, f.Layout.Length, f.Done)
		}
		if len(f.Mirrors) != 2 || f.Mirrors[0].Location != "DE" || f.Mirrors[1].Priority != 2 {
			t.Errorf("file %s mirrors = %+v", f.Name, f.Mirrors)
		}
	}
	if !slices.Equal(selected, []string{"a.iso", "c.iso"}) {
		t.Errorf("selected = %v", selected)
	}
	if got := j.Name(); got != "a.iso (+1 more)" {
		t.Errorf("Name = %q", got)
	}

	jobs, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].ID != id || jobs[1].ID != id2 {
		t.Fatalf("List = %+v", jobs)
	}
	if jobs[0].Doc != nil || jobs[0].Files[0].Mirrors != nil {
		t.Error("List carries documents or mirrors")
	}
	// Mirrors reads what List leaves out: the mirrors Get reads, for
	// every job at once.
	mirrors, err := q.Mirrors()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{id, id2} {
		full, err := q.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(mirrors[id]) != len(full.Files) {
			t.Errorf("job %d: Mirrors has %d files, Get %d", id, len(mirrors[id]), len(full.Files))
		}
		for _, f := range full.Files {
			if !reflect.DeepEqual(mirrors[id][f.Name], f.Mirrors) {
				t.Errorf("job %d, %s: Mirrors %+v, Get %+v", id, f.Name, mirrors[id][f.Name], f.Mirrors)
			}
		}
	}
	if _, pieces, _, size := jobs[0].Progress(); pieces != 12 || size != 2*(5<<20+3) {
		t.Errorf("Progress of job 1: %d pieces, %d bytes", pieces, size)
	}
	if jobs[1].Files[0].Pieces != 1 || jobs[1].Files[0].Layout.Length != piece.DefaultLength {
		t.Errorf("file without piece hashes: %+v", jobs[1].Files[0])
	}

	if _, err := q.Get(999); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(999): %v", err)
	}
}

func TestAddRefuses(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	for _, tc := range []struct {
		name     string
		doc      *metalink.Document
		selected []string
		want     string
	}{
		{"nil document", nil, nil, "no files"},
		{"no files", &metalink.Document{}, nil, "no files"},
		{"unknown selection", queuetest.Doc(1, 0, "a"), []string{"a", "b"}, `"b" is not in the document`},
		{"empty selection", queuetest.Doc(1, 0, "a"), []string{}, "no file selected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := q.Add(NewJob{Source: "src", Dest: t.TempDir(), Doc: tc.doc, Selected: tc.selected})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Add: %v, want an error with %q", err, tc.want)
			}
		})
	}
	if jobs, err := q.List(); err != nil || len(jobs) != 0 {
		t.Errorf("after refused adds: %d jobs, %v", len(jobs), err)
	}
}

func TestMove(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		op   func(q *Queue, id []int64) error
		want []int // indexes into the original IDs
	}{
		{"up", func(q *Queue, id []int64) error { return q.Move(id[2], By(-1)) }, []int{0, 2, 1, 3, 4}},
		{"up first", func(q *Queue, id []int64) error { return q.Move(id[0], By(-1)) }, []int{0, 1, 2, 3, 4}},
		{"down", func(q *Queue, id []int64) error { return q.Move(id[0], By(1)) }, []int{1, 0, 2, 3, 4}},
		{"down last", func(q *Queue, id []int64) error { return q.Move(id[4], By(1)) }, []int{0, 1, 2, 3, 4}},
		{"top first", func(q *Queue, id []int64) error { return q.Move(id[0], At(0)) }, []int{0, 1, 2, 3, 4}},
		{"bottom", func(q *Queue, id []int64) error { return q.Move(id[1], At(math.MaxInt)) }, []int{0, 2, 3, 4, 1}},
		{"bottom last", func(q *Queue, id []int64) error { return q.Move(id[4], At(math.MaxInt)) }, []int{0, 1, 2, 3, 4}},
		{"to front", func(q *Queue, id []int64) error { return q.Move(id[3], At(0)) }, []int{3, 0, 1, 2, 4}},
		{"to back", func(q *Queue, id []int64) error { return q.Move(id[1], At(4)) }, []int{0, 2, 3, 4, 1}},
		{"past the end", func(q *Queue, id []int64) error { return q.Move(id[0], At(99)) }, []int{1, 2, 3, 4, 0}},
		{"before the start", func(q *Queue, id []int64) error { return q.Move(id[4], At(-3)) }, []int{4, 0, 1, 2, 3}},
		{"after a removal", func(q *Queue, id []int64) error {
			if err := q.Remove(id[1]); err != nil {
				return err
			}
			return q.Move(id[4], At(1))
		}, []int{0, 4, 2, 3}},
		{"twice", func(q *Queue, id []int64) error {
			if err := q.Move(id[4], At(0)); err != nil {
				return err
			}
			return q.Move(id[4], By(1))
		}, []int{0, 4, 1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := queuetest.Open(t, Open, t.TempDir())
			var id []int64
			for i := range 5 {
				n, err := q.Add(NewJob{Source: fmt.Sprint("src", i), Dest: t.TempDir(), Doc: queuetest.Doc(1, 0, "f")})
				if err != nil {
					t.Fatal(err)
				}
				id = append(id, n)
			}
			if err := tc.op(q, id); err != nil {
				t.Fatal(err)
			}
			var want []int64
			for _, i := range tc.want {
				want = append(want, id[i])
			}
			if got := ids(t, q); !slices.Equal(got, want) {
				t.Errorf("order = %v, want %v", got, want)
			}
		})
	}
	q := queuetest.Open(t, Open, t.TempDir())
	if err := q.Move(42, By(-1)); !errors.Is(err, ErrNotFound) {
		t.Errorf("MoveBy of a missing job: %v", err)
	}
	if err := q.Move(42, At(math.MaxInt)); !errors.Is(err, ErrNotFound) {
		t.Errorf("Move of a missing job: %v", err)
	}
}

func TestStates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		ops       func(q *Queue, id int64) error
		want      State
		wantError string // the job's Error field
		wantErr   error  // from the last op
	}{
		{"pause", func(q *Queue, id int64) error { return q.Pause(id, "") }, Paused, "", nil},
		{"pause with reason", func(q *Queue, id int64) error { return q.Pause(id, "folder is read-only") }, Paused, "folder is read-only", nil},
		{"resume clears the reason", func(q *Queue, id int64) error {
			if err := q.Pause(id, "gone"); err != nil {
				return err
			}
			return q.Resume(id)
		}, Queued, "", nil},
		{"resume a queued job", func(q *Queue, id int64) error { return q.Resume(id) }, Queued, "", nil},
		{"fail", func(q *Queue, id int64) error { return q.Fail(id, errors.New("no mirror has it")) }, Failed, "no mirror has it", nil},
		{"resume a failed job", func(q *Queue, id int64) error {
			if err := q.Fail(id, errors.New("x")); err != nil {
				return err
			}
			return q.Resume(id)
		}, Queued, "", nil},
		{"finish", func(q *Queue, id int64) error { _, err := q.Finish(id); return err }, Done, "", nil},
		{"resume a done job", func(q *Queue, id int64) error {
			if _, err := q.Finish(id); err != nil {
				return err
			}
			return q.Resume(id)
		}, Done, "", ErrState},
		{"pause a done job", func(q *Queue, id int64) error {
			if _, err := q.Finish(id); err != nil {
				return err
			}
			return q.Pause(id, "")
		}, Done, "", ErrState},
		{"set running", func(q *Queue, id int64) error { return q.SetState(id, Running) }, Running, "", nil},
		{"set nonsense", func(q *Queue, id int64) error { return q.SetState(id, "flying") }, Queued, "", errors.New("unknown state")},
		{"missing job", func(q *Queue, id int64) error { return q.Pause(id+1, "") }, Queued, "", ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := queuetest.Open(t, Open, t.TempDir())
			id, err := q.Add(NewJob{Source: "src", Dest: t.TempDir(), Doc: queuetest.Doc(1, 0, "f")})
			if err != nil {
				t.Fatal(err)
			}
			err = tc.ops(q, id)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != nil && (err == nil || !errors.Is(err, tc.wantErr) && !strings.Contains(err.Error(), tc.wantErr.Error())):
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			j, err := q.Get(id)
			if err != nil {
				t.Fatal(err)
			}
			if j.State != tc.want || j.Error != tc.wantError {
				t.Errorf("state %s error %q, want %s %q", j.State, j.Error, tc.want, tc.wantError)
			}
			if finished := !j.FinishedAt.IsZero(); finished != (j.State == Done || j.State == Failed) {
				t.Errorf("state %s with FinishedAt %v", j.State, j.FinishedAt)
			}
		})
	}
}

func TestJournal(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	const size = 10<<20 + 5 // 11 pieces of 1 MiB, the last 5 bytes
	id, err := q.Add(NewJob{Source: "src", Dest: t.TempDir(), Doc: queuetest.Doc(size, 1<<20, "a", "b")})
	if err != nil {
		t.Fatal(err)
	}
	j := q.Journal(id)
	if err := j.PiecesDone("a", []int{0, 3, 10}); err != nil {
		t.Fatal(err)
	}
	if err := j.PiecesDone("a", []int{3, 4}); err != nil {
		t.Fatal(err)
	}
	b, l, err := q.Pieces(id, "a")
	if err != nil {
		t.Fatal(err)
	}
	if l.Length != 1<<20 || l.Size != size || b.Len() != 11 {
		t.Fatalf("layout %+v, %d pieces", l, b.Len())
	}
	for i := range b.Len() {
		if want := slices.Contains([]int{0, 3, 4, 10}, i); b.Has(i) != want {
			t.Errorf("piece %d done = %v, want %v", i, b.Has(i), want)
		}
	}
	if b, _, _ := q.Pieces(id, "b"); b.Count() != 0 {
		t.Errorf("file b has %d pieces done, want 0", b.Count())
	}

	t.Run("bad batch records nothing", func(t *testing.T) {
		for _, bad := range [][]int{{5, 11}, {6, -1}} {
			if err := j.PiecesDone("a", bad); err == nil || !strings.Contains(err.Error(), "outside") {
				t.Errorf("PiecesDone(%v): %v, want an error about a piece outside the file", bad, err)
			}
		}
		if b, _, _ := q.Pieces(id, "a"); b.Count() != 4 {
			t.Errorf("after refused batches %d pieces are done, want 4", b.Count())
		}
	})
	t.Run("unknown file", func(t *testing.T) {
		if err := j.PiecesDone("nope", []int{0}); !errors.Is(err, ErrNotFound) {
			t.Errorf("PiecesDone on an unknown file: %v", err)
		}
	})
	t.Run("progress", func(t *testing.T) {
		jobs, err := q.List()
		if err != nil {
			t.Fatal(err)
		}
		done, pieces, bytes, total := jobs[0].Progress()
		if done != 4 || pieces != 22 || bytes != 3<<20+5 || total != 2*size {
			t.Errorf("Progress = %d/%d pieces, %d/%d bytes", done, pieces, bytes, total)
		}
	})
	t.Run("unknown size grows", func(t *testing.T) {
		id, err := q.Add(NewJob{Source: "src2", Dest: t.TempDir(), Doc: queuetest.Doc(-1, 0, "u")})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Journal(id).PiecesDone("u", []int{0, 2}); err != nil {
			t.Fatal(err)
		}
		b, _, err := q.Pieces(id, "u")
		if err != nil || b.Len() != 3 || !b.Has(0) || b.Has(1) || !b.Has(2) {
			t.Fatalf("grown bitfield: %v, %v", b, err)
		}
	})
	t.Run("reset", func(t *testing.T) {
		if err := j.PiecesDone("b", []int{1, 2}); err != nil {
			t.Fatal(err)
		}
		if err := j.Reset("b"); err != nil {
			t.Fatal(err)
		}
		if b, _, _ := q.Pieces(id, "b"); b.Count() != 0 || b.Len() != 11 {
			t.Errorf("after Reset: %d of %d pieces done", b.Count(), b.Len())
		}
		if a, _, _ := q.Pieces(id, "a"); a.Count() != 4 {
			t.Errorf("Reset of b touched a: %d pieces done", a.Count())
		}
		if err := j.Reset("nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Reset of an unknown file: %v", err)
		}
	})
	t.Run("set pieces", func(t *testing.T) {
		nb := piece.NewBitfield(11)
		nb.Set(7)
		if err := q.SetPieces(id, "b", nb); err != nil {
			t.Fatal(err)
		}
		if b, _, _ := q.Pieces(id, "b"); b.Count() != 1 || !b.Has(7) {
			t.Error("SetPieces did not store the bitfield")
		}
		if err := q.SetPieces(id, "b", piece.NewBitfield(3)); err == nil {
			t.Error("SetPieces accepted a bitfield of the wrong length")
		}
	})
}

func TestReopenResumes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]State{}
	for _, s := range []State{Queued, Running, Paused, Done, Failed, Running} {
		id, err := q.Add(NewJob{Source: "src", Dest: t.TempDir(), Doc: queuetest.Doc(1, 0, "f")})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.SetState(id, s); err != nil {
			t.Fatal(err)
		}
		want[id] = s
	}
	if !q.Owner() {
		t.Fatal("the first Open does not own the queue")
	}

	// A second process (here: a second Queue) opening while the owner
	// runs must not touch the running jobs.
	other := queuetest.Open(t, Open, dir)
	if other.Owner() {
		t.Error("a second Open owns the queue too")
	}
	check := func(q *Queue, running State) {
		t.Helper()
		jobs, err := q.List()
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs {
			w := want[j.ID]
			if w == Running {
				w = running
			}
			if j.State != w {
				t.Errorf("job %d is %s, want %s", j.ID, j.State, w)
			}
		}
	}
	check(other, Running)
	if _, err := other.Claim(1); err != nil {
		t.Fatal(err)
	}
	other.Close()
	q.Close() // as if it died: SIGKILL leaves the same state (see run_test.go)

	q = queuetest.Open(t, Open, dir)
	if !q.Owner() {
		t.Error("Open after the owner closed does not own the queue")
	}
	want[1] = Running // claimed by other, so it was running too
	check(q, Queued)
}

func TestMigrateFromV1(t *testing.T) {
	t.Parallel()
	// Make a database as Braid with schema version 1 left it.
	dir, db := oldDB(t, 1)
	if _, err := db.Exec(`INSERT INTO jobs (id, source, dest, state, position, added_at, document)
		VALUES (7, 'old.meta4', '/dl', 'running', 0, 1, '{"Version":4,"Files":[{"Name":"f","Size":1}]}')`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO files (id, job, idx, name, size, hashes, selected) VALUES (1, 7, 0, 'f', 1, '[]', 1);
		INSERT INTO pieces (file, length, count, bits) VALUES (1, 1048576, 1, x'80')`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO mirror_speed VALUES ('h', 1, 1)`); err == nil {
		t.Fatal("a version 1 database already has mirror_speed; this test tests nothing")
	}
	db.Close()

	q := queuetest.Open(t, Open, dir)
	var v int
	if err := q.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("user_version after Open = %d, %v; want %d", v, err, schemaVersion)
	}
	j, err := q.Get(7)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != Queued || j.Source != "old.meta4" || j.Files[0].Done != 1 || j.Doc.Files[0].Name != "f" {
		t.Errorf("migrated job: %+v", j)
	}
	if err := q.RecordMirrorSpeed("h", 100); err != nil {
		t.Errorf("mirror_speed after migration: %v", err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	queuetest.Open(t, Open, dir).Close()
	db := queuetest.RawDB(t, filepath.Join(dir, DBName))
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", schemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if q, err := Open(dir); !errors.Is(err, ErrNewer) {
		if q != nil {
			q.Close()
		}
		t.Fatalf("Open of a newer database: %v, want ErrNewer", err)
	}
	if _, err := os.Stat(filepath.Join(dir, DBName)); err != nil {
		t.Errorf("the newer database is gone: %v", err)
	}
}

// TestRemove takes jobs out of the queue and leaves their files on disk
// (deleting them is the runner's: runner.RemoveWithFiles); a job removed
// twice is not found the second time.
func TestRemove(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	dest := t.TempDir()
	for _, n := range []string{"a.iso", "a.iso.part"} {
		if err := os.WriteFile(filepath.Join(dest, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id, err := q.Add(NewJob{Source: "a", Dest: dest, Doc: queuetest.Doc(1, 0, "a.iso")})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Landed(id, "a.iso", &engine.Snapshot{SavedAs: "a.iso", Created: true}); err != nil {
		t.Fatal(err)
	}
	if err := q.Remove(id); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.iso", "a.iso.part"} {
		if _, err := os.Stat(filepath.Join(dest, n)); err != nil {
			t.Errorf("%s: %v; want it kept", n, err)
		}
	}
	if jobs, _ := q.List(); len(jobs) != 0 {
		t.Errorf("%d jobs left", len(jobs))
	}
	if err := q.Remove(id); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Remove: %v", err)
	}
}

func TestSettings(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	s, err := q.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if !s.StartOnLaunch || s.MaxConns != 0 || s.SpeedLimit != 0 || s.Languages != nil || filepath.Base(s.DownloadDir) != "Downloads" {
		t.Errorf("defaults = %+v", s)
	}
	err = q.UpdateSettings(func(s *Settings) {
		s.DownloadDir = "/data"
		s.Languages = []string{"de", "en-GB"}
		s.OS = []string{"Linux-x86"}
		s.Countries = []string{"DE"}
		s.MaxConns = 8
		s.MaxConnsPerMirror = 3
		s.SpeedLimit = 1 << 20
		s.StartOnLaunch = false
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{DownloadDir: "/data", Languages: []string{"de", "en-GB"}, OS: []string{"Linux-x86"}, Countries: []string{"DE"},
		MaxConns: 8, MaxConnsPerMirror: 3, SpeedLimit: 1 << 20, StartOnLaunch: false, Jobs: DefaultJobs,
		Torrent: TorrentSettings{SeedRatio: 1, Discovery: true}, Categories: DefaultCategories()}
	if s, err := q.Settings(); err != nil || !reflect.DeepEqual(s, want) {
		t.Errorf("Settings = %+v, %v; want %+v", s, err, want)
	}
	if err := q.setRaw(keyMaxConns, "lots"); err != nil {
		t.Fatal(err)
	}
	if s, _ := q.Settings(); s.MaxConns != 0 {
		t.Errorf("MaxConns from a bad value = %d, want the default 0", s.MaxConns)
	}
}

// setRaw stores one setting as it is, as a hand edit of the database
// would.
func (q *Queue) setRaw(key, value string) error {
	_, err := q.db.Exec(`INSERT INTO settings (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

func TestMirrorSpeed(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	if _, ok, err := q.MirrorSpeed("a:80"); ok || err != nil {
		t.Fatalf("unknown host: %v %v", ok, err)
	}
	for _, bps := range []float64{1000, 2000, 2000} {
		if err := q.RecordMirrorSpeed("a:80", bps); err != nil {
			t.Fatal(err)
		}
	}
	// 1000, then 1000+0.3*1000 = 1300, then 1300+0.3*700 = 1510.
	if bps, ok, err := q.MirrorSpeed("a:80"); !ok || err != nil || bps < 1509.99 || bps > 1510.01 {
		t.Errorf("MirrorSpeed = %v %v %v, want 1510", bps, ok, err)
	}
	if err := q.RecordMirrorSpeed("", 5); err == nil {
		t.Error("a sample without a host was accepted")
	}
	var at int64
	if err := q.db.QueryRow(`SELECT updated_at FROM mirror_speed WHERE host = 'a:80'`).Scan(&at); err != nil || at < 1.7e12 {
		t.Errorf("updated_at = %d, %v; want unix milliseconds of now", at, err)
	}
}

// countDone reads the stored bytes directly; it must agree with
// piece.Bitfield, whose format it relies on.
func TestCountDoneMatchesBitfield(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 70; n++ {
		l := piece.Layout{Size: int64(n)*100 - 37, Length: 100}
		for _, pattern := range []func(i int) bool{
			func(i int) bool { return true },
			func(i int) bool { return i%3 == 0 },
			func(i int) bool { return i == n-1 },
			func(i int) bool { return i%2 == 1 && i != n-1 },
		} {
			b := piece.NewBitfield(n)
			var wantBytes int64
			for i := range n {
				if pattern(i) {
					b.Set(i)
					_, size := l.Bounds(i)
					wantBytes += size
				}
			}
			raw, _ := b.MarshalBinary()
			if n%8 != 0 {
				raw[len(raw)-1] |= 0xff >> (n % 8) // junk past the last piece is ignored
			}
			if done, bytes := countDone(raw, n, l); done != b.Count() || bytes != wantBytes {
				t.Fatalf("n=%d: countDone = %d pieces %d bytes, want %d %d", n, done, bytes, b.Count(), wantBytes)
			}
		}
	}
}

// TestSettingsEditedByHand: a value edited by hand into one the queue
// would refuse does not stop a change of another setting, and is not
// written over by it.
func TestSettingsEditedByHand(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	twice := `[{"name":"a","url":"http://nas.local:6800/jsonrpc"},{"name":"b","url":"http://nas.local:6800/jsonrpc"}]`
	if err := q.setRaw(keyConnections, twice); err != nil {
		t.Fatal(err)
	}
	if err := q.UpdateSettings(func(s *Settings) { s.SpeedLimit = 1 << 20 }); err != nil {
		t.Fatalf("a change of the speed with a hand-edited list of connections: %v", err)
	}
	s, err := q.Settings()
	if err != nil || s.SpeedLimit != 1<<20 || len(s.Connections) != 2 {
		t.Errorf("after the change: speed %d, connections %v, %v", s.SpeedLimit, s.Connections, err)
	}
	if err := q.UpdateSettings(func(s *Settings) { s.RunOn = s.Connections[0].URL }); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("a change of the connections themselves: %v, want them refused as listed twice", err)
	}
}
