// Package queuetest holds the helpers that the queue's tests and the tests
// of packages over the queue share: a made-up document to add, a queue
// opened for one test, and the database file opened behind the queue's
// back. Only tests import it.
//
// It does not import queue, so that queue's own tests (package queue) can
// use it without an import cycle; that is why Open takes the function that
// opens the queue.
package queuetest

import (
	"database/sql"
	"fmt"
	"io"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/piece"
)

// Doc is a document with one file per name, each of size bytes with a
// made-up SHA-256, piece hashes of pieceLen (none when pieceLen is 0) and
// two mirrors that no test reaches.
func Doc(size, pieceLen int64, names ...string) *metalink.Document {
	doc := &metalink.Document{Version: 4, Generator: "test"}
	for _, name := range names {
		f := metalink.File{
			Name:   name,
			Size:   size,
			Hashes: []metalink.Hash{{Type: "sha-256", Value: strings.Repeat("ab", 32)}},
			URLs: []metalink.URL{
				{URL: "http://a.example/" + name, Location: "DE", Priority: 1},
				{URL: "http://b.example/" + name, Priority: 2},
			},
		}
		if pieceLen > 0 {
			l := piece.Layout{Size: size, Length: pieceLen}
			f.Pieces = &metalink.Pieces{Type: "sha-1", Length: pieceLen, Hashes: make([]string, l.Count())}
			for i := range f.Pieces.Hashes {
				f.Pieces.Hashes[i] = fmt.Sprintf("%040x", i)
			}
		}
		doc.Files = append(doc.Files, f)
	}
	return doc
}

// Open opens the queue in dir with open (queue.Open) for one test: it
// fails t if the queue does not open and closes it when the test ends.
func Open[Q io.Closer](t testing.TB, open func(dir string) (Q, error), dir string) Q {
	t.Helper()
	q, err := open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

// RawDB opens the database file at path directly, as another program (or
// another Braid) would, behind the queue's back; it is closed when the
// test ends. It waits at most 100 ms on a lock. The test must import queue,
// which registers the "sqlite3" driver.
func RawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=100")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}
