package rootfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestRemove(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.part"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Remove(r, "f.part"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "f.part")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("f.part still there: %v", err)
	}
	if err := Remove(r, "f.part"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("removing a missing file: %v, want not-exist", err)
	}
}

// TestRetryGivesUpOtherErrors: an error that is not a held file ends the
// retry at once, without a wait to report.
func TestRetryGivesUpOtherErrors(t *testing.T) {
	want := os.ErrPermission
	calls := 0
	err := Retry(t.Context(), func() error { calls++; return want }, func(bool) { t.Error("reported a wait") })
	if !errors.Is(err, want) || calls != 1 {
		t.Fatalf("Retry = %v after %d calls, want %v after 1", err, calls, want)
	}
	if Held(want) || Held(nil) {
		t.Fatal("Held is true for an error that is not a held file")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Retry(ctx, func() error { return nil }, nil); err != nil {
		t.Fatalf("a successful op after the context ended: %v", err)
	}
}
