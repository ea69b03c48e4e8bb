package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/piece"
)

const repairUsage = `Usage: braid repair --metalink M [-d DIR]

Verifies every file of the metalink M found in DIR and fetches only the
pieces that fail their hash again, from the mirrors the metalink lists. The
repair is made on a copy (in a .braid-repair-* folder inside DIR) that
replaces the file only once it verifies: at any moment the file is either
the old one or the repaired, verified one. A file too short is completed,
bytes past its end are cut off.

A file whose metalink has no piece hashes can only be completed when it is
short; otherwise only a full download (braid get) can fix it.
Exit status: 0 every file verified, 1 a file is missing or could not be
repaired, 2 usage error.

Flags:
`

// errRepair marks a file that repair cannot fix; its message says why and
// what the user can do instead.
var errRepair = errors.New("cannot repair")

// cmdRepair is `braid repair --metalink M [-d DIR]`.
func cmdRepair(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("braid repair", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprint(stderr, repairUsage)
		fset.PrintDefaults()
	}
	mpath := fset.String("metalink", "", "the .meta4 or .metalink `file` describing the files")
	dir := fset.String("d", ".", "the folder holding the files")
	maxConn := fset.Int("max-conn", 0, "most connections at once (default 16)")
	perMirror := fset.Int("max-conn-per-mirror", 0, "most connections to one mirror (default 1)")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *mpath == "" || fset.NArg() > 0 || *maxConn < 0 || *perMirror < 0 {
		fmt.Fprintln(stderr, "braid repair: want --metalink M and no other arguments")
		fset.Usage()
		return 2
	}
	doc, root, err := openTarget(*mpath, *dir)
	if err != nil {
		fmt.Fprintf(stderr, "braid repair: %v\n", err)
		return 1
	}
	defer root.Close()

	r := &repairer{
		client: &engine.Client{MaxConns: *maxConn, MaxConnsPerMirror: *perMirror},
		root:   root,
		dir:    *dir,
		out:    stdout,
	}
	code := 0
	if len(doc.Files) == 0 {
		fmt.Fprintln(stderr, "braid repair: the metalink has no file Braid can check")
		code = 1
	}
	for _, f := range doc.Files {
		if err := r.repair(ctx, f); err != nil {
			fmt.Fprintf(stdout, "%s: NOT REPAIRED: %v\n", f.Name, err)
			code = 1
		}
		if ctx.Err() != nil {
			return 1
		}
	}
	for _, rej := range doc.Rejected {
		fmt.Fprintf(stdout, "%s: SKIPPED (%s)\n", rej.Name, rej.Reason)
	}
	return code
}

// repairer repairs the files of one folder. Its methods run one at a time.
type repairer struct {
	client *engine.Client
	root   *os.Root // the folder, DIR
	dir    string   // its path, for the engine, which opens its own root
	out    io.Writer
}

// repair verifies f and, when it is bad, repairs it. It returns nil when
// the file is verified at the end.
func (r *repairer) repair(ctx context.Context, f metalink.File) error {
	rep, err := piece.VerifyFileFull(ctx, r.root, f, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: it is not in %s (braid get fetches it)", errRepair, r.dir)
	case err != nil:
		return err
	case rep.OK():
		fmt.Fprintf(r.out, "%s: OK, nothing to repair\n", f.Name)
		return nil
	}

	var done *piece.Bitfield // pieces to keep; the engine fetches the rest
	switch {
	case rep.TruncateRepairs:
		return r.truncate(ctx, f, rep)
	case rep.Whole == piece.Unknown && !rep.PiecesKnown():
		return fmt.Errorf("%w: the metalink has no hash Braid can check, so good bytes cannot be told from bad", errRepair)
	case rep.PiecesKnown() && len(rep.Bad) == 0:
		return fmt.Errorf("%w: every piece matches its %s hash but the whole file does not match its %s hash: the metalink's hashes disagree",
			errRepair, rep.PieceType, rep.HashType)
	case rep.PiecesKnown():
		done = rep.Good
	case len(rep.Missing) > 0 && rep.Trailing == 0:
		// Without piece hashes the bytes present cannot be checked one by
		// one, but a short file is most likely a download cut off: fetch
		// the end and let the whole-file hash judge the result.
		done = piece.NewBitfield(rep.Layout.Count())
		for i := range rep.Missing[0] {
			done.Set(i)
		}
		fmt.Fprintf(r.out, "%s: no piece hashes; fetching the missing %d bytes, then checking the whole-file %s\n",
			f.Name, rep.Expected-rep.Size, rep.HashType)
	default:
		return fmt.Errorf("%w: the whole file does not match its %s hash and the metalink has no piece hashes Braid can use, "+
			"so the bad bytes cannot be located; only a full download can fix it: remove it and run braid get", errRepair, rep.HashType)
	}
	if len(f.URLs) == 0 {
		return fmt.Errorf("%w: the metalink lists no mirror for it", errRepair)
	}
	return r.fetch(ctx, f, rep, done)
}

// truncate repairs a file whose only fault is bytes past its end.
func (r *repairer) truncate(ctx context.Context, f metalink.File, rep *piece.Report) error {
	st, err := r.stage(f, rep.Expected)
	if err != nil {
		return err
	}
	defer st.remove()
	staged := f
	staged.Name = st.part
	check, err := piece.VerifyFileFull(ctx, r.root, staged, 0)
	if err != nil {
		return err
	}
	if !check.OK() {
		return fmt.Errorf("the copy cut to %d bytes does not verify (did the file change meanwhile?)", rep.Expected)
	}
	if err := st.replace(st.part); err != nil {
		return err
	}
	fmt.Fprintf(r.out, "%s: repaired: cut off %d bytes past the end; verified\n", f.Name, rep.Trailing)
	return nil
}

// fetch lets the engine fetch every piece not in done into a copy of the
// file, and puts the verified result in the file's place.
func (r *repairer) fetch(ctx context.Context, f metalink.File, rep *piece.Report, done *piece.Bitfield) error {
	keep := min(rep.Size, rep.Expected)
	if done.Count() == 0 {
		keep = 0 // every piece is bad: the engine starts afresh
	}
	st, err := r.stage(f, keep)
	if err != nil {
		return err
	}
	defer st.remove()
	dl := r.client.Do(ctx, &engine.Request{Dir: filepath.Join(r.dir, filepath.FromSlash(st.dir)), File: f, Done: done})
	if err := dl.Err(); err != nil {
		return err
	}
	if err := st.replace(path.Join(st.dir, f.Name)); err != nil {
		return err
	}
	var fetched int64
	for _, m := range dl.Snapshot().Mirrors {
		fetched += m.Bytes
	}
	what := "whole-file " + rep.HashType
	if rep.PiecesKnown() {
		what = fmt.Sprintf("%d of %d pieces fetched again", rep.Layout.Count()-done.Count(), rep.Layout.Count())
	}
	fmt.Fprintf(r.out, "%s: repaired: %s, %d bytes from mirrors; verified\n", f.Name, what, fetched)
	return nil
}

// stagedFile is a copy of a file being repaired, in a folder of its own
// inside DIR: on the same file system, so the repaired copy can be renamed
// over the file in one step, and out of the way of the file's own NAME.part
// (a download of it may be paused there).
type stagedFile struct {
	root *os.Root
	full string // the staging folder's path, for removal
	dir  string // the staging folder, relative to the root
	name string // the file's name, relative to the root
	part string // the copy, NAME.part inside dir, relative to the root
	mode fs.FileMode
}

// stage copies the first n bytes of the file to
// dir/NAME.part, where the engine resumes from it. On Linux io.Copy between
// files uses copy_file_range, which shares the blocks on file systems that
// can (btrfs, XFS) and copies in the kernel elsewhere.
func (r *repairer) stage(f metalink.File, n int64) (*stagedFile, error) {
	full, err := os.MkdirTemp(r.dir, ".braid-repair-*")
	if err != nil {
		return nil, fmt.Errorf("make a folder for the repair: %w", err)
	}
	st := &stagedFile{root: r.root, full: full, dir: filepath.Base(full), name: f.Name}
	st.part = path.Join(st.dir, f.Name) + ".part"
	if err := st.copy(n); err != nil {
		st.remove()
		return nil, err
	}
	return st, nil
}

func (st *stagedFile) copy(n int64) error {
	src, err := st.root.Open(filepath.FromSlash(st.name))
	if err != nil {
		return err
	}
	defer src.Close()
	info, err := src.Stat()
	if err != nil {
		return err
	}
	st.mode = info.Mode().Perm()
	if d := path.Dir(st.part); d != st.dir {
		if err := st.root.MkdirAll(filepath.FromSlash(d), 0o755); err != nil {
			return err
		}
	}
	dst, err := st.root.OpenFile(filepath.FromSlash(st.part), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, io.LimitReader(src, n)); err != nil {
		dst.Close()
		return fmt.Errorf("copy %s for the repair: %w", st.name, err)
	}
	if err := dst.Sync(); err != nil {
		dst.Close()
		return fmt.Errorf("copy %s for the repair: %w", st.name, err)
	}
	return dst.Close()
}

// replace renames the verified file from (relative to the root) over the
// file, keeping the file's permissions, and makes the rename durable.
func (st *stagedFile) replace(from string) error {
	from = filepath.FromSlash(from)
	if err := st.root.Chmod(from, st.mode); err != nil {
		return err
	}
	if f, err := st.root.Open(from); err == nil {
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	if err := st.root.Rename(from, filepath.FromSlash(st.name)); err != nil {
		return fmt.Errorf("put the repaired file in place: %w", err)
	}
	// Best effort: a folder that cannot be synced still has the rename,
	// only its durability across a power cut is up to the file system.
	if d, err := st.root.Open(filepath.FromSlash(path.Dir(st.name))); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// remove deletes the staging folder and what is left in it.
func (st *stagedFile) remove() { os.RemoveAll(st.full) }
