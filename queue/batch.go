package queue

import (
	"database/sql"
	"fmt"
	"sync"

	"braid/engine"
)

// journalBatch records the pieces of every file a Runner has open in one
// transaction per round, rather than one per file: with many files
// downloading at once the queue writes once a second, not once a second
// per file. It is a group commit: the first caller to find no round under
// way runs rounds until nothing is pending, and each caller returns when
// the round holding its pieces is committed, so a piece is still recorded
// only after the engine synced it, and PiecesDone still returns only when
// the record is durable. It is safe for concurrent use.
type journalBatch struct {
	q *Queue

	mu       sync.Mutex
	pending  []*batchEntry
	flushing bool
}

type batchEntry struct {
	job    int64
	file   string
	pieces []int
	done   chan error
}

// batchJournal is one job's view of a journalBatch; it implements
// engine.Journal and engine.JournalResetter.
type batchJournal struct {
	b   *journalBatch
	job int64
}

var (
	_ engine.Journal         = batchJournal{}
	_ engine.JournalResetter = batchJournal{}
)

func (j batchJournal) PiecesDone(file string, pieces []int) error {
	return j.b.add(j.job, file, pieces)
}

func (j batchJournal) Reset(file string) error { return j.b.q.Journal(j.job).Reset(file) }

func (b *journalBatch) journal(job int64) batchJournal { return batchJournal{b: b, job: job} }

// add records pieces of a job's file with whatever else is pending.
func (b *journalBatch) add(job int64, file string, pieces []int) error {
	if len(pieces) == 0 {
		return nil
	}
	e := &batchEntry{job: job, file: file, pieces: pieces, done: make(chan error, 1)}
	b.mu.Lock()
	b.pending = append(b.pending, e)
	lead := !b.flushing
	b.flushing = true
	b.mu.Unlock()
	if lead {
		b.flush()
	}
	return <-e.done
}

// flush commits rounds until nothing is pending. Each caller has at most
// one call in flight, so the rounds end.
func (b *journalBatch) flush() {
	for {
		b.mu.Lock()
		round := b.pending
		b.pending = nil
		if len(round) == 0 {
			b.flushing = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		err := b.q.tx(func(tx *sql.Tx) error {
			for _, e := range round {
				if err := recordPieces(tx, e.job, e.file, e.pieces); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil {
			for _, e := range round {
				e.done <- nil
			}
			continue
		}
		// One bad entry must not cost the others: record each alone.
		for _, e := range round {
			err := b.q.tx(func(tx *sql.Tx) error { return recordPieces(tx, e.job, e.file, e.pieces) })
			if err != nil {
				err = b.q.wrap(fmt.Sprintf("job %d file %s: record %d pieces", e.job, e.file, len(e.pieces)), err)
			}
			e.done <- err
		}
	}
}
