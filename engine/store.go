package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync/atomic"

	"braid/engine/rootfile"
)

// partSuffix marks a file that is not verified yet.
const partSuffix = ".part"

// store is the one place the engine touches the disk: a NAME.part inside
// an os.Root for the download's folder, so neither the name nor a symlink
// can lead a write outside it. WriteAt and ReadAt are safe for concurrent
// use (pwrite and pread); the rest is called by the download's owner.
type store struct {
	root *os.Root
	name string // final name, relative, slash-separated
	part string
	f    *os.File // NAME.part, open for reading and writing; nil until openPart

	// writes counts the changes to f; synced is its value when the last
	// sync began (-1: none yet), so finish syncs only what is not already
	// durable.
	writes, synced atomic.Int64

	// ctx bounds the waits for a file another program holds open (on
	// Windows a player or a virus scanner blocks a rename or a removal
	// until it closes the file); nil: no bound. held, when set, hears
	// why the store waits, as a sentence, and "" when the wait is over.
	ctx  context.Context
	held func(why string)
}

// openStore opens dir as a root and makes the folders name needs inside it.
func openStore(dir, name string) (*store, error) {
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open folder: %w", err)
	}
	if d := path.Dir(name); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			root.Close()
			return nil, fmt.Errorf("make folder %s: %w", d, err)
		}
	}
	st := &store{root: root, name: name, part: name + partSuffix}
	st.synced.Store(-1)
	return st, nil
}

// setName points the store at another final name in the same folder,
// before the .part is opened.
func (s *store) setName(name string) { s.name, s.part = name, name+partSuffix }

// existing reports whether something is at the final name already, and its
// size. A symlink counts as something: it is never written through.
func (s *store) existing() (size int64, ok bool, err error) {
	fi, err := s.root.Lstat(s.name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if !fi.Mode().IsRegular() {
		return 0, true, fmt.Errorf("%s is not a regular file: %w", s.name, ErrExists)
	}
	return fi.Size(), true, nil
}

// openPart opens NAME.part and gives it size bytes. With keep it keeps what
// is there (a resume); otherwise it starts from an empty file. It reports
// whether an existing .part was kept.
func (s *store) openPart(size int64, keep bool) (kept bool, err error) {
	flag := os.O_RDWR | os.O_CREATE
	if keep {
		if _, err := s.root.Lstat(s.part); err == nil {
			kept = true
		}
	}
	if !kept {
		flag |= os.O_TRUNC
	}
	f, err := s.root.OpenFile(s.part, flag, 0o644)
	if err != nil {
		return false, fmt.Errorf("open %s: %w", s.part, err)
	}
	if kept {
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return false, err
		}
		if fi.Size() > size {
			if err := f.Truncate(size); err != nil {
				f.Close()
				return false, fmt.Errorf("truncate %s: %w", s.part, err)
			}
		}
	}
	if err := preallocate(f, size); err != nil {
		f.Close()
		return false, fmt.Errorf("reserve %d bytes for %s: %w", size, s.part, err)
	}
	s.f = f
	s.changed()
	return kept, nil
}

func (s *store) WriteAt(p []byte, off int64) (int, error) {
	s.writes.Add(1)
	return s.f.WriteAt(p, off)
}

// changed notes a change to f made other than through WriteAt (a
// truncation, another file).
func (s *store) changed() { s.writes.Add(1) }

func (s *store) ReadAt(p []byte, off int64) (int, error) { return s.f.ReadAt(p, off) }

// sync makes what was written durable.
func (s *store) sync() error {
	w := s.writes.Load()
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", s.part, err)
	}
	s.synced.Store(w)
	return nil
}

// clean reports whether nothing was written since the last sync began.
func (s *store) clean() bool { return s.synced.Load() == s.writes.Load() }

// startWriteback starts writing dirty pages of NAME.part to disk without
// waiting.
func (s *store) startWriteback() { startWriteback(s.f) }

// finish syncs NAME.part, unless the sync loop's last round did and
// nothing was written since (each sync costs the disk a cache flush),
// closes it and gives it the final name (see publish).
func (s *store) finish() error {
	if !s.clean() {
		if err := s.sync(); err != nil {
			return err
		}
	}
	err := s.f.Close()
	s.f = nil
	if err != nil {
		return fmt.Errorf("close %s: %w", s.part, err)
	}
	return s.publish(s.name)
}

// publish gives the closed NAME.part the final name name, never replacing
// a file that appeared there meanwhile: a hard link fails if the name is
// taken; file systems without hard links fall back to a rename after a
// check. It fails with ErrExists when the name is taken.
func (s *store) publish(name string) error {
	if err := s.root.Link(s.part, name); err == nil {
		if err := s.remove(s.part); err != nil {
			return fmt.Errorf("remove %s: %w", s.part, err)
		}
	} else {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s appeared during the download: %w", name, ErrExists)
		}
		if _, err := s.root.Lstat(name); err == nil {
			return fmt.Errorf("%s appeared during the download: %w", name, ErrExists)
		}
		err := s.wait(func() error { return s.root.Rename(s.part, name) },
			fmt.Sprintf("%s is open in another program; Braid renames it to %s when that program closes it", s.part, name))
		if err != nil {
			return fmt.Errorf("rename %s: %w", s.part, err)
		}
	}
	s.name = name
	s.syncDir()
	return nil
}

// partIsFinal reports whether NAME.part is the file at the final name
// itself: a second name that publish links and then removes, left when a
// run stopped between the two (a kill, a power loss).
func (s *store) partIsFinal() bool {
	fi, err := s.root.Lstat(s.name)
	if err != nil {
		return false
	}
	pi, err := s.root.Lstat(s.part)
	return err == nil && os.SameFile(fi, pi)
}

// remove removes the file name inside the folder, waiting while another
// program holds it open.
func (s *store) remove(name string) error {
	return s.wait(func() error { return rootfile.Remove(s.root, name) },
		fmt.Sprintf("%s is open in another program; Braid removes it when that program closes it", name))
}

// wait runs op until it succeeds or fails for another reason than a file
// held open by another program, telling s.held why while it waits.
func (s *store) wait(op func() error, why string) error {
	ctx := s.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return rootfile.Retry(ctx, op, func(waiting bool) {
		if s.held == nil {
			return
		}
		if waiting {
			s.held(why)
		} else {
			s.held("")
		}
	})
}

// syncDir makes the rename durable, with a sync of the folder that files
// landing beside it share (see syncFolder). It is best effort: some
// systems cannot sync a directory, and the file itself is already safe.
func (s *store) syncDir() {
	dir := path.Dir(s.name)
	syncFolder(filepath.Join(s.root.Name(), filepath.FromSlash(dir)), func() {
		d, err := s.root.Open(dir)
		if err != nil {
			return
		}
		d.Sync()
		d.Close()
	})
}

// close releases the .part (if still open) and the root.
func (s *store) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	s.root.Close()
}
