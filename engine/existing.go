package engine

import (
	"context"
	"fmt"

	"braid/engine/piece"
)

// checkExisting handles a file already at the final name: if it verifies,
// the download is done without fetching a byte; otherwise it is left alone
// and the download fails, since a file at its final name is never
// overwritten. Without any hash the size is all there is to check.
func (d *download) checkExisting(ctx context.Context, size int64) error {
	name := d.file.Name
	refuse := func(why string) error {
		return fmt.Errorf("%s: %w (%s); check it with braid verify, fix it with braid repair, or remove it", name, ErrExists, why)
	}
	if size != d.size {
		return refuse(fmt.Sprintf("%d bytes, expected %d", size, d.size))
	}
	d.setState(StateVerifying)
	f := d.file
	f.Size = d.size
	rep, err := piece.VerifyFile(ctx, d.st.root, f, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	checked := rep.HashType != "" || rep.PiecesKnown()
	if checked && !rep.OK() {
		why := fmt.Sprintf("%d pieces do not match their hash", len(rep.Bad))
		if rep.Whole == piece.Mismatch && len(rep.Bad) == 0 {
			why = rep.HashType + " does not match"
		}
		return refuse(why)
	}
	if err := d.checkFinal(ctx); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	d.mu.Lock()
	for i := range d.pieces {
		d.pieces[i] = PieceDone
	}
	d.done, d.doneB, d.prefix = len(d.pieces), d.size, len(d.pieces)
	d.mu.Unlock()
	if rep.HashType != "" {
		d.hashed.Store(d.size)
	}
	return nil
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
