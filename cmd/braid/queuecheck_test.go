package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/internal/testkit"
	"braid/queue"
)

// `queue verify ID` checks a finished job's file where it is, as the
// window's Verify does: three pieces damaged on disk fail it, naming
// them; `queue repair ID` fetches only those pieces from the job's mirror
// and leaves it done, the file right; a job nothing was published for is
// refused a repair with the reason, and verified as far as it can be.
func TestQueueVerifyRepair(t *testing.T) {
	t.Parallel()
	const pieceLen = 64 << 10
	data := testkit.Data(16 * pieceLen)
	m := mirrortest.New(t, data, mirrortest.Path("/mend.bin"))
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), "mend.bin", pieceLen, 2)
	if err != nil {
		t.Fatal(err)
	}
	f.URLs = []metalink.URL{{URL: m.URL(), Priority: 1}}
	dest, state := t.TempDir(), t.TempDir()
	damaged := slices.Clone(data)
	for _, p := range []int{3, 9, 12} {
		damaged[p*pieceLen+7] ^= 0xff
	}
	if err := os.WriteFile(filepath.Join(dest, "mend.bin"), damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dest, "bare.bin"), []byte("bare"), 0o644); err != nil {
		t.Fatal(err)
	}
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	bare := metalink.File{Name: "bare.bin", Size: 4, URLs: []metalink.URL{{URL: m.URL(), Priority: 1}}}
	for _, f := range []metalink.File{f, bare} {
		id, err := q.Add(queue.NewJob{Source: "http://example.org/" + f.Name, Dest: dest, Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}})
		if err == nil {
			_, err = q.Finish(id)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	q.Close()

	code, out, errOut := runQueue(t, "--state", state, "verify", "1")
	if code != 1 || !strings.Contains(out, "mend.bin: file does not match its hash (3 bad pieces)") || !strings.Contains(errOut, "braid queue verify: job 1 failed") {
		t.Fatalf("verify of a damaged file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runQueue(t, "--state", state, "repair", "1")
	if code != 0 || !strings.Contains(out, "mend.bin: verified (") || !strings.Contains(out, "job 1: done") {
		t.Fatalf("repair: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "mend.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the repaired file differs (%v)", err)
	}
	if sent := m.BytesServed(); sent > 3*pieceLen {
		t.Errorf("the repair fetched %d bytes, more than the three bad pieces", sent)
	}
	code, _, errOut = runQueue(t, "--state", state, "repair", "2")
	if code != 1 || !strings.Contains(errOut, "none was published for bare.bin") {
		t.Errorf("repair of a file nothing was published for: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut = runQueue(t, "--state", state, "verify", "2")
	if code != 0 || !strings.Contains(out, "bare.bin: not verified: nothing was published to check it against; it is in its folder with its 4 B") {
		t.Errorf("verify of a file nothing was published for: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = runQueue(t, "--state", state, "verify", "9")
	if code != 1 || !strings.Contains(errOut, "no such job") {
		t.Errorf("verify of a job that is not there: exit %d, stderr %q", code, errOut)
	}
}
