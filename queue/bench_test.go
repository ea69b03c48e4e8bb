package queue

import (
	"database/sql"
	"fmt"
	"testing"

	"braid/engine/metalink"
	"braid/queue/queuetest"
)

// BenchmarkOpen measures opening a state folder whose queue holds 10,000
// jobs (1 GiB files, two mirrors each): what the window pays at launch
// before it can show the queue. Target: under 200 ms.
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	fill(b, dir, 10000)
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			q, err := Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			q.Close()
		}
	})
	b.Run("open+list", func(b *testing.B) {
		for b.Loop() {
			q, err := Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			jobs, err := q.List()
			if err != nil || len(jobs) != 10000 {
				b.Fatalf("List: %d jobs, %v", len(jobs), err)
			}
			q.Close()
		}
	})
}

// fill adds n jobs in one transaction (adding them one by one with a sync
// each would make the setup, not the benchmark, take minutes).
func fill(b *testing.B, dir string, n int) {
	b.Helper()
	q, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	err = q.tx(func(tx *sql.Tx) error {
		for i := range n {
			name := fmt.Sprintf("file-%05d.iso", i)
			doc := queuetest.Doc(1<<30, 0, name)
			blob := fmt.Sprintf(`{"Version":4,"Files":[{"Name":%q,"Size":%d,"URLs":[{"URL":"http://a.example/%s","Priority":1}]}]}`, name, 1<<30, name)
			res, err := tx.Exec(`INSERT INTO jobs (source, dest, state, position, added_at, document)
				VALUES (?, '/dl', 'queued', ?, 0, ?)`, "http://x.example/"+name+".meta4", i, blob)
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId()
			if err := insertFile(tx, id, 0, doc.Files[0], true); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkJournal measures the state writes of a fast download: one op is
// one second of a 1 GB/s download of 1 MiB pieces, that is one PiecesDone
// batch of 954 pieces (the engine batches about once a second) into a
// 4 GiB file's bitfield. The "%-of-1s" metric is the share of that second
// spent writing state. Target: under 2%.
func BenchmarkJournal(b *testing.B) {
	const pieces = 4096
	for _, sync := range []string{"FULL", "NORMAL"} {
		b.Run("synchronous="+sync, func(b *testing.B) {
			q, err := OpenOptions(b.TempDir(), Options{Synchronous: sync})
			if err != nil {
				b.Fatal(err)
			}
			defer q.Close()
			doc := &metalink.Document{Files: []metalink.File{{Name: "big.iso", Size: pieces << 20}}}
			id, err := q.Add(NewJob{Source: "src", Dest: b.TempDir(), Doc: doc})
			if err != nil {
				b.Fatal(err)
			}
			j := q.Journal(id)
			batch := make([]int, 954)
			next := 0
			for b.Loop() {
				for k := range batch {
					batch[k] = next
					next = (next + 1) % pieces
				}
				if err := j.PiecesDone("big.iso", batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9*100, "%-of-1s")
		})
	}
}

// BenchmarkGet reads back a job of 200 files of one piece with three
// mirrors each (the batch-1M benchmark's): what a run reads before its
// first file starts, and again whenever a face opens the job's details.
func BenchmarkGet(b *testing.B) {
	q := queuetest.Open(b, Open, b.TempDir())
	names := make([]string, 200)
	for i := range names {
		names[i] = fmt.Sprintf("f%04d.bin", i)
	}
	doc := queuetest.Doc(1<<20, 1<<20, names...)
	for i := range doc.Files {
		f := &doc.Files[i]
		f.URLs = append(f.URLs, metalink.URL{URL: "http://c.example/" + f.Name, Priority: 3})
		f.Pieces.Type, f.Pieces.Hashes[0] = "sha-256", fmt.Sprintf("%064x", i)
	}
	id, err := q.Add(NewJob{Source: "batch.meta4", Dest: b.TempDir(), Doc: doc})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if j, err := q.Get(id); err != nil || len(j.Files) != 200 || len(j.Doc.Files) != 200 {
			b.Fatalf("Get: %d files, %v", len(j.Files), err)
		}
	}
}
