package queue

import (
	"fmt"
	"testing"

	"braid/queue/queuetest"
)

// BenchmarkQueue10000Files measures queueing a metalink of 10,000 files
// (64 KiB each, three mirrors): as one job (Add, what the window does) and
// as `braid get` prepares it (PrepareFiles: the job, and the pieces each
// file may resume from). Target: under a second each.
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
			if _, err := q.Add(fmt.Sprintf("many%d.meta4", i), b.TempDir(), doc, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("prepare", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			q := openBench(b)
			if _, _, err := q.PrepareFiles(fmt.Sprintf("many%d.meta4", i), b.TempDir(), doc.Files, Origin{}); err != nil {
				b.Fatal(err)
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
