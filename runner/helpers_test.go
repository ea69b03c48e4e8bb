package runner

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/engine/signature/signaturetest"
	"braid/queue"
)

// openTest opens the queue in dir for one test.
func openTest(t *testing.T, dir string) *queue.Queue {
	t.Helper()
	q, err := queue.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

// testDoc is a document of files of size bytes with made-up hashes and
// two mirrors each that no test reaches.
func testDoc(size, pieceLen int64, names ...string) *metalink.Document {
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

// rawDB opens the queue's database file behind the queue's back.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=100")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// writeKey writes the signer's public key to a file and returns its path.
func writeKey(t *testing.T, s *signaturetest.Signer) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "key.asc")
	if err := os.WriteFile(p, s.PublicArmored(t), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
