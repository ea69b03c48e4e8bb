package rpc

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
)

// partSum is the SHA-256 of file, and whether it could be read.
func partSum(t *testing.T, file string) ([32]byte, bool) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		return [32]byte{}, false
	}
	return sha256.Sum256(b), true
}

// Removed means no more writes: aria2.remove and aria2.forceRemove answer
// once the download's run has stopped, as pause does, so a client that
// removes a download and adds the same file again never races a run
// still writing it. They answered as soon as the queue forgot the job,
// and the run wrote on into the .part until its next look at the queue,
// up to a second later. The answer stays aria2's: the GID, and the
// download listed as removed.
func TestRemovedMeansNoMoreWrites(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"aria2.remove", "aria2.forceRemove"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			b := newDaemon(t, Options{})
			data := mirrortest.Bytes(48<<20, 11)
			m := mirrortest.New(t, data, mirrortest.Path("/pub/again.bin"), mirrortest.Rate(4<<20))
			gid := b.call(t, "aria2.addUri", []string{m.URL()}).(string)
			b.waitFor(t, gid, "a megabyte", func(st map[string]any) bool {
				return number(t, st, "completedLength") >= 1<<20
			})
			part := filepath.Join(b.dir, "again.bin.part")
			asked := time.Now()
			if res := b.call(t, method, gid); res != gid {
				t.Fatalf("%s answered %v, want the GID %s", method, res, gid)
			}
			answered := time.Since(asked)
			sum, ok := partSum(t, part)
			if !ok {
				t.Fatalf("no %s after the remove", part)
			}
			time.Sleep(time.Second)
			if again, _ := partSum(t, part); again != sum {
				t.Errorf("the .part changed in the second after %s answered", method)
			}
			if st := b.call(t, "aria2.tellStatus", gid, []string{"status"}).(map[string]any); st["status"] != "removed" {
				t.Errorf("after %s, tellStatus says %v; want removed", method, st)
			}
			if msg := b.callErr(t, method, gid); msg != "Active Download not found for GID#"+gid {
				t.Errorf("%s again answered %q", method, msg)
			}
			t.Logf("%s answered in %s", method, answered.Round(time.Millisecond))

			// The same file added again finishes whole.
			again := b.call(t, "aria2.addUri", []string{m.URL()}).(string)
			st := b.waitFor(t, again, "the download", func(st map[string]any) bool {
				if st["status"] == "error" {
					t.Fatalf("the download added again failed: %v", st["errorMessage"])
				}
				return st["status"] == "complete"
			})
			files, _ := st["files"].([]any)
			if len(files) != 1 {
				t.Fatalf("files: %v", st["files"])
			}
			path, _ := files[0].(map[string]any)["path"].(string)
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("the file added again (%s): %d bytes, %v; want the %d served", path, len(got), err, len(data))
			}
		})
	}
}
