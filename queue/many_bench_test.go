package queue

import (
	"fmt"
	"sync"
	"testing"

	"braid/engine"
	"braid/queue/queuetest"
)

// BenchmarkQueue10000Files measures queueing a metalink of 10,000 files
// (64 KiB each, three mirrors) as one job (Add, what every face does).
// Target: under a second.
func BenchmarkQueue10000Files(b *testing.B) {
	names := make([]string, 10000)
	for i := range names {
		names[i] = fmt.Sprintf("data/f%05d.bin", i)
	}
	doc := queuetest.Doc(64<<10, 16<<10, names...)
	for i := range doc.Files {
		doc.Files[i].URLs = append(doc.Files[i].URLs, doc.Files[i].URLs[0])
		doc.Files[i].URLs[2].URL += "?third"
	}
	b.Run("add", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			q := openBench(b)
			if _, err := q.Add(NewJob{Source: fmt.Sprintf("many%d.meta4", i), Dest: b.TempDir(), Doc: doc}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Reading the job back: what a run of it reads before its first file,
	// and what it no longer reads at its end (Finish says the action).
	b.Run("get", func(b *testing.B) {
		q := openBench(b)
		id, err := q.Add(NewJob{Source: "many.meta4", Dest: b.TempDir(), Doc: doc})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if j, err := q.Get(id); err != nil || len(j.Files) != 10000 {
				b.Fatalf("Get: %d files, %v", len(j.Files), err)
			}
		}
	})
}

func openBench(b *testing.B) *Queue {
	b.Helper()
	q, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { q.Close() })
	return q
}

// BenchmarkLand10000Files measures what `braid get` writes as the 10,000
// files of one job (16 KiB, one piece each) land, 16 at once: each file's
// piece journalled and the file marked done, in the shared JournalBatch.
// Each write finds its file by job and name: with 10,000 files a scan of
// the job's files each would make the batch quadratic.
func BenchmarkLand10000Files(b *testing.B) {
	const files = 10000
	names := make([]string, files)
	for i := range names {
		names[i] = fmt.Sprintf("data/f%05d.bin", i)
	}
	doc := queuetest.Doc(16<<10, 16<<10, names...)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		q := openBench(b)
		id, err := q.Add(NewJob{Source: fmt.Sprintf("many%d.meta4", i), Dest: b.TempDir(), Doc: doc})
		if err != nil {
			b.Fatal(err)
		}
		batch := q.NewJournalBatch()
		j := batch.Journal(id)
		b.StartTimer()
		var wg sync.WaitGroup
		next := make(chan string)
		for range 16 {
			wg.Go(func() {
				for name := range next {
					if err := j.PiecesDone(name, []int{0}); err != nil {
						b.Error(err)
					}
					snap := &engine.Snapshot{SavedAs: name, Created: true, VerifiedBy: "sha-256"}
					if err := batch.Landed(id, name, snap); err != nil {
						b.Error(err)
					}
				}
			})
		}
		for _, name := range names {
			next <- name
		}
		close(next)
		wg.Wait()
		b.StopTimer()
		var left int
		if err := q.db.QueryRow(`SELECT COUNT(*) FROM files WHERE job = ? AND NOT verified`, id).Scan(&left); err != nil || left > 0 {
			b.Fatalf("%d files left unverified after the last landed (%v)", left, err)
		}
		b.StartTimer()
	}
}
