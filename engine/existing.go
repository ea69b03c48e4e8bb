package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"braid/engine/metalink"
	"braid/engine/piece"
)

// maxFreeNames bounds the numbered alternatives tried for a taken name.
const maxFreeNames = 1000

// place decides the name the file is saved under, claims it for this
// process and points the store at it. A file already at the name counts as
// this download only when a hash proves it (adopted is then true and the
// download is done); otherwise it is left alone and the file goes to the
// first free numbered alternative ("f (1).bin"), never over it. Without
// any hash nothing can prove it, so the file is fetched again beside it.
func (d *download) place(ctx context.Context) (adopted bool, err error) {
	want := d.file.Name
	if d.req.SaveAs != "" {
		if err := metalink.SafeName(d.req.SaveAs); err != nil {
			return false, fmt.Errorf("save as %s: %w", d.req.SaveAs, err)
		}
		want = d.req.SaveAs
	}
	var why string // why the wanted name was not used
	for n := 0; n < maxFreeNames; n++ {
		name := want
		if n > 0 {
			name = metalink.Numbered(d.file.Name, n)
			if name == want {
				continue
			}
		}
		if !claim(d.req.Dir, name) {
			if why == "" {
				why = "another download is saving to it"
			}
			continue
		}
		d.st.setName(name)
		size, ok, err := d.st.existing()
		switch {
		case err != nil && !errors.Is(err, ErrExists):
			release(d.req.Dir, name)
			return false, err
		case !ok && name == want:
			d.setSavedAs(name, "")
			return false, nil
		case !ok:
			// A fresh alternative: its .part may be another download's.
			if _, err := d.st.root.Lstat(d.st.part); !errors.Is(err, fs.ErrNotExist) {
				release(d.req.Dir, name)
				continue
			}
			d.req.Done = nil // what a journal recorded is of the other name's .part
			d.setSavedAs(name, fmt.Sprintf("%s was already there (%s); saved as %s instead", want, why, name))
			return false, nil
		case err == nil && name == want && d.req.Landed && size == d.size && d.whole.Type == "" && !d.plan.Verifiable():
			// This download's own file from an earlier run, by the
			// caller's record; with no hash to check it by, it stays what
			// it was: done, not verified.
			if err := d.checkFinal(ctx); err != nil {
				release(d.req.Dir, name)
				return false, fmt.Errorf("%s: %w", name, err)
			}
			d.takeOwn(name)
			return true, nil
		case err == nil:
			proven, reason, err := d.proveExisting(ctx, name, size)
			if err != nil {
				release(d.req.Dir, name)
				return false, err
			}
			if proven {
				d.setSavedAs(name, "")
				return true, nil
			}
			if why == "" {
				why = reason
			}
		default:
			if why == "" {
				why = "not a regular file"
			}
		}
		release(d.req.Dir, name)
	}
	return false, fmt.Errorf("%w: %s and %d numbered alternatives are taken", ErrNoFreeName, want, maxFreeNames)
}

// finish gives the verified NAME.part its final name; when another file
// took that name during the download (another program), the file goes to
// the first free numbered alternative instead, and the snapshot says so.
func (d *download) finish() error {
	err := d.st.finish()
	taken := d.st.name
	for n := 1; errors.Is(err, ErrExists) && n < maxFreeNames; n++ {
		alt := metalink.Numbered(d.file.Name, n)
		if alt == taken || !claim(d.req.Dir, alt) {
			continue
		}
		err2 := d.st.publish(alt)
		release(d.req.Dir, alt) // on disk now, or not ours
		if err2 == nil {
			d.setSavedAs(alt, fmt.Sprintf("%s appeared during the download; saved as %s instead", taken, alt))
			return nil
		}
		if !errors.Is(err2, ErrExists) {
			return err2
		}
	}
	return err
}

// setSavedAs records the name the file is saved under, and a note for the
// user when it is not the name they expect.
func (d *download) setSavedAs(name, note string) {
	d.mu.Lock()
	d.savedAs, d.note = name, note
	d.mu.Unlock()
}

// takeOwn marks every piece of the file at name done: it is this
// download's own, landed by an earlier run.
func (d *download) takeOwn(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := range d.pieces {
		d.pieces[i] = PieceDone
	}
	d.done, d.doneB, d.prefix = len(d.pieces), d.size, len(d.pieces)
	d.savedAs = name
	d.hashed.Store(d.size)
}

// proveExisting checks a file already at name against the file's hashes.
// It is the download only if a hash proves it; then every piece is done
// and nothing is fetched. reason says why it was not taken.
func (d *download) proveExisting(ctx context.Context, name string, size int64) (proven bool, reason string, err error) {
	if size != d.size {
		return false, fmt.Sprintf("%d bytes, expected %d", size, d.size), nil
	}
	if d.whole.Type == "" && !d.plan.Verifiable() {
		return false, "no hash is published that could prove it is this file", nil
	}
	d.setState(StateVerifying)
	f := d.file
	f.Name, f.Size = name, d.size
	rep, err := piece.VerifyFile(ctx, d.st.root, f, 0)
	if err != nil {
		return false, "", fmt.Errorf("check %s: %w", name, err)
	}
	if !rep.OK() {
		why := fmt.Sprintf("%d pieces do not match their hash", len(rep.Bad))
		if len(rep.Bad) == 0 {
			why = "its " + rep.HashType + " does not match"
		}
		return false, why, nil
	}
	by := rep.HashType
	if rep.Whole != piece.Match {
		by = rep.PieceType + " pieces"
	}
	if err := d.checkFinal(ctx); err != nil {
		return false, "", fmt.Errorf("%s: %w", name, err)
	}
	d.mu.Lock()
	for i := range d.pieces {
		d.pieces[i] = PieceDone
	}
	d.done, d.doneB, d.prefix = len(d.pieces), d.size, len(d.pieces)
	d.verifiedBy, d.adopted = by, true
	d.mu.Unlock()
	d.hashed.Store(d.size)
	return true, "", nil
}

// salvage finds the good pieces of a NAME.part left by an earlier run that
// did not say which pieces it finished (no journal), when the pieces can be
// checked, so that they are not fetched again. It returns nil when there is
// nothing to salvage.
func (d *download) salvage(ctx context.Context) *piece.Bitfield {
	if !d.plan.Verifiable() {
		return nil
	}
	f, err := d.st.root.Open(d.st.part)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	file := d.file
	file.Size = d.size
	rep, err := piece.Verify(ctx, f, min(fi.Size(), d.size), file, 0)
	if err != nil || rep.Good == nil || rep.Good.Count() == 0 {
		return nil
	}
	return rep.Good
}
