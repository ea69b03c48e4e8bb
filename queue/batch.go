package queue

import (
	"database/sql"
	"fmt"
	"sync"

	"braid/engine"
)

// JournalBatch records the pieces of every file a Runner (or `braid get`)
// has open, and the Runner's verified files, in one transaction per round
// rather than one per file: with many files
// downloading at once the queue writes once a second, not once a second
// per file. It is a group commit: the first caller to find no round under
// way runs rounds until nothing is pending, and each caller returns when
// the round holding its pieces is committed, so a piece is still recorded
// only after the engine synced it, and PiecesDone still returns only when
// the record is durable. It is safe for concurrent use.
type JournalBatch struct {
	q *Queue

	mu       sync.Mutex
	pending  []*batchEntry
	flushing bool
}

type batchEntry struct {
	do   func(tx *sql.Tx) error
	what string // what do does, for its error
	done chan error
}

// batchJournal is one job's view of a JournalBatch; it implements
// engine.Journal and engine.JournalResetter.
type batchJournal struct {
	b   *JournalBatch
	job int64
}

var (
	_ engine.Journal         = batchJournal{}
	_ engine.JournalResetter = batchJournal{}
	_ engine.KeptJournal     = batchJournal{}
	_ engine.KeptJournal     = (*Journal)(nil)
)

func (j batchJournal) PiecesDone(file string, pieces []int) error {
	if len(pieces) == 0 {
		return nil
	}
	return j.b.add(fmt.Sprintf("job %d file %s: record %d pieces", j.job, file, len(pieces)),
		func(tx *sql.Tx) error { return recordPieces(tx, j.job, file, pieces) })
}

func (j batchJournal) Reset(file string) error { return j.b.q.Journal(j.job).Reset(file) }

func (j batchJournal) KeptBytes(file string, n int64) error {
	return j.b.q.Journal(j.job).KeptBytes(file, n)
}

// NewJournalBatch returns a batch for the journals of many files at once.
func (q *Queue) NewJournalBatch() *JournalBatch { return &JournalBatch{q: q} }

// Journal is job's journal in the batch, for the engine (Request.Journal).
func (b *JournalBatch) Journal(job int64) engine.JournalResetter {
	return batchJournal{b: b, job: job}
}

// Landed records a file of job that landed, as Queue.Landed does, in the
// next round's transaction, which files landing together share.
func (b *JournalBatch) Landed(job int64, name string, snap *engine.Snapshot) error {
	return b.add(fmt.Sprintf("job %d file %s: mark done", job, name), func(tx *sql.Tx) error {
		_, err := landed(tx, job, name, snap)
		return err
	})
}

// add runs do in the next round's transaction and returns when that is
// committed.
func (b *JournalBatch) add(what string, do func(tx *sql.Tx) error) error {
	e := &batchEntry{do: do, what: what, done: make(chan error, 1)}
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
func (b *JournalBatch) flush() {
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
				if err := e.do(tx); err != nil {
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
		// One bad entry must not cost the others: run each alone.
		for _, e := range round {
			if err := b.q.tx(e.do); err != nil {
				e.done <- b.q.wrap(e.what, err)
			} else {
				e.done <- nil
			}
		}
	}
}
