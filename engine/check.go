package engine

import (
	"context"
	"io"
)

// check runs Request.Check over the first size bytes of f, the finished
// NAME.part.
func (d *download) check(ctx context.Context, f io.ReaderAt) error {
	if d.req.Check == nil {
		return nil
	}
	d.setState(StateVerifying)
	return d.req.Check(ctx, io.NewSectionReader(f, 0, d.size))
}

// checkFinal runs Request.Check over the file at its final name.
func (d *download) checkFinal(ctx context.Context) error {
	if d.req.Check == nil {
		return nil
	}
	f, err := d.st.root.Open(d.st.name)
	if err != nil {
		return err
	}
	defer f.Close()
	return d.check(ctx, f)
}
