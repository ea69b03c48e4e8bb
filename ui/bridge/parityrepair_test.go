package bridge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/par2"
	"braid/internal/testkit"
	"braid/ui"
)

// The window's Repair goes to the parity set the job's document lists
// when no mirror has good bytes: mirrors first, then parity, through the
// runner's one rebuild, and the file ends verified at its name.
func TestRepairFromParity(t *testing.T) {
	t.Parallel()
	data := payload(16 * pieceLen)
	bad := bytes.Clone(data)
	for _, p := range []int{5, 6} {
		bad[p*pieceLen+100] ^= 0xff
	}
	src := filepath.Join(t.TempDir(), "r.bin")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	paths, err := par2.Create(context.Background(), src, par2.CreateOptions{Percent: 5})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	files := map[string][]byte{"r.bin": data}
	asked := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		mu.Lock()
		b, ok := files[name]
		asked[name]++
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(srv.Close)
	doc := &metalink.Document{Version: 4, Files: []metalink.File{describeData(t, "r.bin", data, srv.URL+"/r.bin")}}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(p)
		files[name] = b
		sum := sha256.Sum256(b)
		doc.Files = append(doc.Files, metalink.File{Name: name, Size: int64(len(b)),
			Hashes: []metalink.Hash{{Type: "sha-256", Value: hex.EncodeToString(sum[:])}}, URLs: []metalink.URL{{URL: srv.URL + "/" + name}}})
	}
	q := openQueue(t)
	b := newBackend(t, q)
	dir := t.TempDir()
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	id, err := b.Add(context.Background(), ui.AddRequest{Source: "r.meta4", Doc: doc, Files: []string{"r.bin"}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the download", func() bool { return jobByID(t, b, id).State == ui.Done })

	// The copy on disk and the mirror's are damaged alike.
	mu.Lock()
	files["r.bin"] = bad
	mu.Unlock()
	if err := os.WriteFile(filepath.Join(dir, "r.bin"), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.Repair(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the repair", func() bool {
		j := jobByID(t, b, id)
		return j.State == ui.Done || j.State == ui.Failed
	})
	if j := jobByID(t, b, id); j.State != ui.Done {
		t.Fatalf("the repair ended %v: %s", j.State, j.Err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "r.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the repaired file differs (%v)", err)
	}
	qj, err := q.Get(int64(id))
	if err != nil || qj.Files[0].VerifiedBy != "sha-256" {
		t.Fatalf("verified by %q (%v)", qj.Files[0].VerifiedBy, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if asked["r.bin.par2"] == 0 {
		t.Error("the parity index was never fetched")
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("the folder holds %d entries after the repair, want only r.bin", len(left))
	}
}
