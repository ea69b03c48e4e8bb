// Package transporttest is the conformance suite every transport.Source
// must pass, in the manner of restic's internal/backend/test: one set of
// checks of the Source contract, run against each protocol over a real
// server.
package transporttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"braid/engine/transport"
)

// MinSize is the smallest data Run and RunCut accept: the checks need
// room for distinct start, middle and end ranges.
const MinSize = 64 << 10

// Run checks that sources made by newSource serve data as the Source
// contract promises: ranges at the start, middle and end and of zero
// length, many ranges at once, cancellation through the context, closing
// before the end (after which the source still works), ranges past the end
// of the file refused with ErrMismatch, and Stat for a Stater. newSource
// must return a fresh Source over a server holding exactly data, with the
// expected size set to len(data); it is called once per subtest.
func Run(t *testing.T, data []byte, newSource func(t *testing.T, data []byte) transport.Source) {
	t.Helper()
	if len(data) < MinSize {
		t.Fatalf("transporttest: data of %d bytes; need at least %d", len(data), MinSize)
	}
	size := int64(len(data))

	t.Run("Mirror", func(t *testing.T) {
		m := newSource(t, data).Mirror()
		if m == "" || strings.Contains(m, "@") {
			t.Fatalf("Mirror() = %q: want a URL without credentials", m)
		}
	})

	t.Run("Ranges", func(t *testing.T) {
		src := newSource(t, data)
		for _, r := range []struct {
			name   string
			off, n int64
		}{
			{"whole", 0, size},
			{"start", 0, 1000},
			{"first byte", 0, 1},
			{"middle", size / 3, size / 4},
			{"end", size - 5000, 5000},
			{"last byte", size - 1, 1},
			{"zero at start", 0, 0},
			{"zero in middle", size / 2, 0},
			{"zero at end", size, 0},
			{"again start", 0, 4096},
		} {
			t.Run(r.name, func(t *testing.T) {
				got, err := readRange(context.Background(), src, r.off, r.n)
				if err != nil {
					t.Fatalf("ReadRange(%d, %d): %v", r.off, r.n, err)
				}
				if !bytes.Equal(got, data[r.off:r.off+r.n]) {
					t.Fatalf("ReadRange(%d, %d): %d bytes differ from the file", r.off, r.n, len(got))
				}
			})
		}
	})

	t.Run("ExactlyNThenEOF", func(t *testing.T) {
		src := newSource(t, data)
		rc, err := src.ReadRange(context.Background(), 100, 10)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		buf := make([]byte, 64) // larger than the range
		total := 0
		for {
			k, err := rc.Read(buf[total:])
			total += k
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if total > 10 {
				break
			}
		}
		if total != 10 || !bytes.Equal(buf[:10], data[100:110]) {
			t.Fatalf("read %d bytes, want exactly the 10 of the range", total)
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		src := newSource(t, data)
		const workers = 8
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for i := range workers {
			off := size * int64(i) / workers
			n := size/workers + int64(i) // overlapping, uneven ranges
			n = min(n, size-off)
			wg.Go(func() {
				got, err := readRange(context.Background(), src, off, n)
				switch {
				case err != nil:
					errs <- fmt.Errorf("range %d+%d: %w", off, n, err)
				case !bytes.Equal(got, data[off:off+n]):
					errs <- fmt.Errorf("range %d+%d: bytes differ", off, n)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})

	t.Run("CancelMidRead", func(t *testing.T) {
		src := newSource(t, data)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		rc, err := src.ReadRange(ctx, 0, size)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		if _, err := io.ReadFull(rc, make([]byte, 100)); err != nil {
			t.Fatalf("first bytes: %v", err)
		}
		cancel()
		n, err := io.Copy(io.Discard, rc)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("read after cancel: %d more bytes, err %v; want context.Canceled", n, err)
		}
		rc.Close()
		got, err := readRange(context.Background(), src, 10, 1000)
		if err != nil || !bytes.Equal(got, data[10:1010]) {
			t.Fatalf("range after a cancelled one: %v", err)
		}
	})

	t.Run("CancelledBeforeStart", func(t *testing.T) {
		src := newSource(t, data)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		got, err := readRange(ctx, src, 0, 1000)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("range with a cancelled context: %d bytes, err %v; want context.Canceled", len(got), err)
		}
	})

	t.Run("CloseBeforeEnd", func(t *testing.T) {
		src := newSource(t, data)
		for i := range 3 {
			rc, err := src.ReadRange(context.Background(), int64(i)*1000, size-int64(i)*1000)
			if err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
			buf := make([]byte, 500)
			if _, err := io.ReadFull(rc, buf); err != nil || !bytes.Equal(buf, data[i*1000:i*1000+500]) {
				t.Fatalf("round %d: first bytes: %v", i, err)
			}
			if err := rc.Close(); err != nil {
				t.Fatalf("round %d: Close before the end: %v", i, err)
			}
			if err := rc.Close(); err != nil {
				t.Fatalf("round %d: second Close: %v", i, err)
			}
		}
		got, err := readRange(context.Background(), src, size/2, size/2)
		if err != nil || !bytes.Equal(got, data[size/2:]) {
			t.Fatalf("range after early closes: %v", err)
		}
	})

	t.Run("PastEnd", func(t *testing.T) {
		src := newSource(t, data)
		for _, r := range [][2]int64{{size - 10, 20}, {size, 1}, {size + 100, 10}} {
			_, err := readRange(context.Background(), src, r[0], r[1])
			if !errors.Is(err, transport.ErrMismatch) {
				t.Errorf("ReadRange(%d, %d) past the %d-byte file: %v, want ErrMismatch", r[0], r[1], size, err)
			}
		}
		if _, err := src.ReadRange(context.Background(), -1, 10); err == nil {
			t.Error("ReadRange(-1, 10) succeeded")
		}
	})

	t.Run("Stat", func(t *testing.T) {
		src, ok := newSource(t, data).(transport.Stater)
		if !ok {
			t.Skip("not a Stater")
		}
		info, err := src.Stat(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if info.Size != size || !info.Ranges {
			t.Fatalf("Stat = size %d ranges %v, want %d and true", info.Size, info.Ranges, size)
		}
	})
}

// RunCut checks that a Source whose server drops every transfer after cut
// bytes fails with io.ErrUnexpectedEOF after delivering exactly those
// bytes, never a short read that looks complete. newCut must return a
// Source over a server holding data (expected size len(data)) that sends
// at most cut bytes per transfer.
func RunCut(t *testing.T, data []byte, newCut func(t *testing.T, data []byte, cut int64) transport.Source) {
	t.Helper()
	if len(data) < MinSize {
		t.Fatalf("transporttest: data of %d bytes; need at least %d", len(data), MinSize)
	}
	size := int64(len(data))
	cut := size / 3
	src := newCut(t, data, cut)
	for _, r := range [][2]int64{{0, size}, {1000, size - 2000}} {
		off, n := r[0], r[1]
		got, err := readRange(context.Background(), src, off, n)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("ReadRange(%d, %d) cut after %d bytes: err %v, want io.ErrUnexpectedEOF", off, n, cut, err)
		}
		if int64(len(got)) != cut || !bytes.Equal(got, data[off:off+cut]) {
			t.Errorf("ReadRange(%d, %d) cut after %d bytes: delivered %d bytes (or wrong ones)", off, n, cut, len(got))
		}
	}
	got, err := readRange(context.Background(), src, 50, 100)
	if err != nil || !bytes.Equal(got, data[50:150]) {
		t.Errorf("short range within the cut: %v", err)
	}
}

// readRange reads a whole range; an error may come from ReadRange or from
// reading, and the bytes read before it are returned with it.
func readRange(ctx context.Context, src transport.Source, off, n int64) ([]byte, error) {
	rc, err := src.ReadRange(ctx, off, n)
	if err != nil {
		return nil, err
	}
	got, err := io.ReadAll(rc)
	if cerr := rc.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close: %w", cerr)
	}
	return got, err
}
