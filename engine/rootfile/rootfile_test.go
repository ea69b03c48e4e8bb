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

// TestWriteWhole: a write that fails leaves no NAME.part and the file at
// name as it was; one that succeeds replaces it, with nothing left over.
func TestWriteWhole(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cut := errors.New("cut short")
	err = WriteWhole(context.Background(), r, "f", 0o644, func(f *os.File) error {
		if _, err := f.WriteString("half"); err != nil {
			return err
		}
		return cut
	})
	if !errors.Is(err, cut) {
		t.Fatalf("a failed write: %v, want its error", err)
	}
	check := func(want string) {
		t.Helper()
		if got, err := os.ReadFile(filepath.Join(dir, "f")); err != nil || string(got) != want {
			t.Fatalf("f holds %q (%v), want %q", got, err, want)
		}
		if _, err := os.Lstat(filepath.Join(dir, "f.part")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("f.part left behind: %v", err)
		}
	}
	check("old")
	if err := WriteWhole(context.Background(), r, "f", 0o644, func(f *os.File) error {
		_, err := f.WriteString("new")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	check("new")
}
