package rootfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// TestRemoveFallsBack: where os.Root.Remove answers "Invalid function"
// (Wine 8's STATUS_NOT_IMPLEMENTED for FileDispositionInformationEx),
// Remove deletes with the older call. The test binaries are built with an
// overlay that bridges the same gap inside Go, so the error is forced
// here: the shipped code path is the one tested.
func TestRemoveFallsBack(t *testing.T) {
	rootRemove = func(r *os.Root, name string) error {
		return &os.PathError{Op: "removeat", Path: name, Err: windows.ERROR_INVALID_FUNCTION}
	}
	t.Cleanup(func() { rootRemove = (*os.Root).Remove })
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"big.bin.part", "sub/big.bin.part.done"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("bytes"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, name := range []string{"big.bin.part", "sub/big.bin.part.done"} {
		if err := Remove(r, name); err != nil {
			t.Fatalf("Remove(%s): %v", name, err)
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s still there: %v", name, err)
		}
	}
	if err := Remove(r, "big.bin.part"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("removing a missing file: %v, want not-exist", err)
	}
	// A folder that holds a file stays; an empty one goes, as with
	// os.Root.Remove.
	if err := os.WriteFile(filepath.Join(dir, "sub", "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Remove(r, "sub"); err == nil {
		t.Fatal("the fallback removed a folder that is not empty")
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "keep")); err != nil {
		t.Fatalf("sub/keep: %v", err)
	}
	if err := Remove(r, "sub/keep"); err != nil {
		t.Fatal(err)
	}
	if err := Remove(r, "sub"); err != nil {
		t.Fatalf("Remove(sub), empty: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "sub")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("sub still there: %v", err)
	}
	// Nothing outside the root is reached.
	if err := Remove(r, "../x"); err == nil {
		t.Fatal("a name leading outside the root was accepted")
	}
}

// TestRemoveAllFallsBack: where os.RemoveAll answers "Invalid function"
// (Wine 8), RemoveAll removes the folder and what it holds with the older
// call, and leaves its neighbours alone.
func TestRemoveAllFallsBack(t *testing.T) {
	rootRemove = func(r *os.Root, name string) error {
		return &os.PathError{Op: "removeat", Path: name, Err: windows.ERROR_INVALID_FUNCTION}
	}
	osRemoveAll = func(p string) error {
		return &os.PathError{Op: "unlinkat", Path: p, Err: windows.ERROR_INVALID_FUNCTION}
	}
	t.Cleanup(func() { rootRemove, osRemoveAll = (*os.Root).Remove, os.RemoveAll })
	dir := t.TempDir()
	scratch := filepath.Join(dir, ".braid-parity-1")
	for _, name := range []string{"a.par2", "sub/b.vol0+1.par2", "sub/deeper/c"} {
		p := filepath.Join(scratch, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("bytes"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RemoveAll(scratch); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(scratch); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the folder is still there: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "big.bin")); err != nil || string(b) != "keep" {
		t.Fatalf("its neighbour: %q, %v", b, err)
	}
}

// TestRemoveFallbackKeepsLinkTarget: a symlink inside the root is not a
// regular file; the fallback refuses it and the folder it points to keeps
// its file.
func TestRemoveFallbackKeepsLinkTarget(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "keep.bin")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "link.bin")); err != nil {
		t.Skipf("no symlink can be made here (it needs developer mode or the symlink privilege): %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "link.bin")); err != nil {
		t.Skipf("os.Symlink made nothing (%v): Wine 8's CreateSymbolicLinkW is a stub that reports success", err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = removeOld(r, "link.bin")
	if _, serr := os.Stat(target); serr != nil {
		t.Fatalf("the link's target is gone (removeOld: %v)", err)
	}
	if err == nil {
		t.Fatal("the fallback removed a link")
	}
}

// TestRetryWaitsForHeldFile: a file open in another program without
// FILE_SHARE_DELETE (as Go's os.Open opens on Windows) cannot be renamed;
// Retry reports the wait, and renames it once the handle is closed.
func TestRetryWaitsForHeldFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.part"), []byte("bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(filepath.Join(dir, "f.part"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var waits, ends atomic.Int32
	done := make(chan error, 1)
	go func() {
		done <- Retry(t.Context(), func() error { return r.Rename("f.part", "f") }, func(w bool) {
			if w {
				waits.Add(1)
			} else {
				ends.Add(1)
			}
		})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for waits.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no wait reported while the file is held")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("Retry ended while the file is held: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	held.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Retry did not end after the file was closed")
	}
	if waits.Load() != 1 || ends.Load() != 1 {
		t.Fatalf("wait reported %d times, its end %d times; want 1 and 1", waits.Load(), ends.Load())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "f")); err != nil || string(b) != "bytes" {
		t.Fatalf("f = %q, %v", b, err)
	}
}

// TestRetryEndsWithContext: a file held for good ends the wait when the
// context ends, with an error that says both.
func TestRetryEndsWithContext(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.part"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(filepath.Join(dir, "f.part"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	err = Retry(ctx, func() error { return r.Rename("f.part", "f") }, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !Held(err) {
		t.Fatalf("Retry = %v, want the deadline and the held file", err)
	}
}
