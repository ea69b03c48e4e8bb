package engine

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
)

// A Check that refuses the bytes keeps the file as NAME.part with every
// byte in it; one that accepts them sees exactly the file's bytes first.
func TestCheckRunsBeforeRename(t *testing.T) {
	t.Parallel()
	data := testkit.Data(300_000)
	m := mirrortest.New(t, data)
	errRefused := errors.New("refused by the check")
	for _, refuse := range []bool{false, true} {
		dir := t.TempDir()
		var seen []byte
		final := false // the file is at its final name already
		req := &Request{Dir: dir, File: fileFor("f.bin", data, 64<<10, m.URL()),
			Check: func(ctx context.Context, r io.Reader) error {
				b, err := io.ReadAll(r)
				seen = b
				if err != nil {
					return err
				}
				if _, err := os.Stat(filepath.Join(dir, "f.bin")); err == nil && !final {
					t.Error("the file had its final name before the check")
				}
				if refuse {
					return errRefused
				}
				return nil
			}}
		_, err := get(t, &Client{}, req)
		if !bytes.Equal(seen, data) {
			t.Fatalf("check saw %d bytes, want the file's %d", len(seen), len(data))
		}
		if !refuse {
			if err != nil {
				t.Fatal(err)
			}
			wantFile(t, dir, "f.bin", data)
			// Found at its final name, the file is checked again.
			refuse, final = true, true
			if _, err := get(t, &Client{}, req); !errors.Is(err, errRefused) {
				t.Fatalf("existing file: err %v, want the check's", err)
			}
			continue
		}
		if !errors.Is(err, errRefused) {
			t.Fatalf("err %v, want the check's", err)
		}
		noFile(t, dir, "f.bin")
		if got, err := os.ReadFile(filepath.Join(dir, "f.bin.part")); err != nil || !bytes.Equal(got, data) {
			t.Fatalf(".part: %d bytes, %v", len(got), err)
		}
	}
}
