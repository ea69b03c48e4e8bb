package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

var (
	_ Streamer = (*HTTPSource)(nil)
	_ Streamer = (*FTPSource)(nil)
)

// Streamer is a Source that can send the file from an offset to its end
// without being told its length: how a file of unknown size (a body sent
// chunked, without Content-Length) is fetched, on one connection.
type Streamer interface {
	Source
	// Stream returns the file's bytes from off to the end: the reader ends
	// with io.EOF only when the server said the file is complete, and with
	// io.ErrUnexpectedEOF when it stopped early. A mirror that cannot start
	// at off > 0 fails with ErrNoRanges before any byte is read. The Info
	// is what the answer said (Size -1 when it did not say).
	Stream(ctx context.Context, off int64) (io.ReadCloser, Info, error)
}

// Stream GETs the file from off (with an open-ended Range when off > 0).
func (s *HTTPSource) Stream(ctx context.Context, off int64) (io.ReadCloser, Info, error) {
	if f := s.ftpSource(); f != nil {
		return f.Stream(ctx, off)
	}
	req, err := s.newRequest(ctx, http.MethodGet)
	if err != nil {
		return nil, Info{Size: -1}, err
	}
	req.Header.Set("Want-Digest", wantDigest)
	if off > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", off))
	}
	resp, hops, err := s.do(req)
	var moved *movedToFTP
	if errors.As(err, &moved) {
		return moved.src.Stream(ctx, off)
	}
	where := fmt.Sprintf("%s: bytes %d-", s.url, off)
	if err != nil {
		return nil, Info{Size: -1}, fmt.Errorf("%s: %w", where, err)
	}
	info := probeFrom(resp, hops).Info
	switch {
	case resp.StatusCode == http.StatusOK && off > 0:
		discard(resp)
		return nil, info, fmt.Errorf("%s: mirror answered with the whole file: %w", where, ErrNoRanges)
	case resp.StatusCode == http.StatusOK:
		info.Size, info.Ranges = resp.ContentLength, acceptsRanges(resp.Header)
	case resp.StatusCode == http.StatusPartialContent:
		first, _, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || first != off {
			discard(resp)
			return nil, info, fmt.Errorf("%s: mirror sent Content-Range %q: %w", where, resp.Header.Get("Content-Range"), ErrMismatch)
		}
		info.Size, info.Ranges = total, true
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && off > 0 && rangeEnds(resp, off):
		// Nothing after off: the bytes before it were the whole file.
		discard(resp)
		info.Size = off
		return io.NopCloser(strings.NewReader("")), info, nil
	default:
		discard(resp)
		s.forget()
		return nil, info, statusError(resp, where)
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		discard(resp)
		return nil, info, fmt.Errorf("%s: body sent with Content-Encoding %s: %w", where, ce, ErrMismatch)
	}
	// net/http reports a body cut short, chunked or not, as
	// io.ErrUnexpectedEOF; io.EOF means the server ended it properly.
	return &streamBody{ctx: ctx, rc: resp.Body, where: where}, info, nil
}

// rangeEnds reports whether a 416 says the file is exactly off bytes long
// (Content-Range: bytes */off).
func rangeEnds(resp *http.Response, off int64) bool {
	v, ok := strings.CutPrefix(strings.TrimSpace(resp.Header.Get("Content-Range")), "bytes */")
	return ok && v == strconv.FormatInt(off, 10)
}

// Stream RETRs the file from off (REST) to its end.
func (s *FTPSource) Stream(ctx context.Context, off int64) (io.ReadCloser, Info, error) {
	info := Info{Size: -1, Ranges: true}
	s.parking.abortOne()
	c, err := s.conn(ctx)
	if err != nil {
		return nil, info, err
	}
	size, err := s.checkSize(c)
	if err != nil {
		c.end()
		s.pool.release(c, connBroken(err))
		return nil, info, err
	}
	info.Size = size
	resp, err := c.sc.RetrFrom(s.path, uint64(off))
	if err != nil {
		c.end()
		s.pool.release(c, connBroken(err))
		return nil, info, c.ctxErr(s.ftpError(fmt.Sprintf("bytes %d-: RETR", off), err))
	}
	body := &ftpBody{s: s, c: c, resp: resp, ctx: ctx, left: -1, off: off}
	return &streamBody{ctx: ctx, rc: &ftpStream{body}, where: fmt.Sprintf("%s: bytes %d-", s.mirror, off)}, info, nil
}

// ftpStream reads a RETR to its end: the data connection closing is the
// end of the file only if the server then says the transfer completed.
type ftpStream struct{ b *ftpBody }

func (f *ftpStream) Read(p []byte) (int, error) {
	if f.b.done {
		return 0, io.EOF
	}
	k, err := f.b.resp.Read(p)
	if err == io.EOF {
		f.b.done = true
		cerr := f.b.resp.Close() // the 226, or a 426/451 for a cut transfer
		f.b.c.end()
		f.b.s.pool.release(f.b.c, cerr != nil)
		if cerr != nil {
			return k, fmt.Errorf("transfer ended with %v: %w", cerr, io.ErrUnexpectedEOF)
		}
	}
	return k, err
}

func (f *ftpStream) Close() error {
	if f.b.done {
		return nil
	}
	f.b.left = 0
	return f.b.Close()
}

// streamBody wraps a stream's errors with the mirror and range.
type streamBody struct {
	ctx   context.Context
	rc    io.ReadCloser
	where string
}

func (b *streamBody) Read(p []byte) (int, error) {
	k, err := b.rc.Read(p)
	switch {
	case err == nil, err == io.EOF:
		return k, err
	case b.ctx.Err() != nil:
		return k, b.ctx.Err()
	}
	return k, fmt.Errorf("%s: %w", b.where, err)
}

func (b *streamBody) Close() error { return b.rc.Close() }
