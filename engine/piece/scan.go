package piece

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"runtime"

	"golang.org/x/sync/errgroup"
)

// blockSize is the unit of reading. Both hashes read each block right
// after it is read into memory; at 256 KiB it is still in the core's cache
// for the second one. On the two-core benchmark machine 256 KiB measured
// faster than 64 KiB (channel hand-offs add up) and than 1 MiB (the second
// hash reads from memory).
const blockSize = 256 << 10

// buffersPerWorker is how many blocks each worker owns. Two let a worker
// read and hash its next block while the whole-file hasher is still on its
// last one; more did not measure faster.
const buffersPerWorker = 2

// scanner reads the first layout.Size bytes of r once, in parallel, and
// feeds every byte both to its piece's hash and, in file order, to one
// whole-file hash. Reading once matters: on two cores the two hashes are
// the whole cost, and a second read of the file would add a copy of every
// byte to it.
//
// Pieces are grouped into jobs of about blockSize bytes (one job per piece
// when pieces are larger). A feeder hands jobs to the workers in file order
// and, in the same order, to the whole-file hasher. A worker reads its job a
// block at a time into buffers it owns, hashes the pieces in the block and
// passes the block to the whole-file hasher, which gives it back when done.
// Memory is workers × buffersPerWorker × blockSize at most. This cannot
// deadlock: the job the whole-file hasher waits for was handed out before
// any later one, so its worker holds it and gets its buffers back from the
// hasher, which waits for nothing else.
type scanner struct {
	r       io.ReaderAt
	layout  Layout    // the pieces to read; layout.Size bytes are read
	typ     string    // piece hash type; "" reads without hashing pieces
	whole   hash.Hash // fed every byte in order; nil for none
	workers int       // <= 0: runtime.NumCPU()

	// done is called, from worker goroutines, as each piece's hash is
	// complete; sum is valid only during the call. Calls for different
	// pieces may run at once.
	done func(i int, sum []byte)
}

// job is a run of whole pieces, the first of them first, at bytes [off, end).
type job struct {
	first    int
	off, end int64
	// blocks carries the job's blocks, in order, to the whole-file hasher.
	// It holds buffersPerWorker, so a worker never waits to send.
	blocks chan block
}

// block is one read of a job and the channel that takes its buffer back.
type block struct {
	buf  []byte
	free chan<- []byte
}

func (s *scanner) run(ctx context.Context) error {
	count := s.layout.Count()
	if count == 0 {
		return nil
	}
	perJob := max(1, int(blockSize/s.layout.Length))
	jobCount := (count + perJob - 1) / perJob
	workers := s.workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, jobCount)
	bufSize := min(blockSize, int64(perJob)*s.layout.Length, s.layout.Size)

	g, ctx := errgroup.WithContext(ctx)
	jobs := make(chan *job)
	var order chan *job
	if s.whole != nil {
		order = make(chan *job, workers)
	}

	g.Go(func() error {
		defer close(jobs)
		if order != nil {
			defer close(order)
		}
		for first := 0; first < count; first += perJob {
			last := min(first+perJob, count) - 1
			off, _ := s.layout.Bounds(first)
			lastOff, lastN := s.layout.Bounds(last)
			j := &job{first: first, off: off, end: lastOff + lastN}
			if order != nil {
				j.blocks = make(chan block, buffersPerWorker)
				select {
				case order <- j:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})

	if order != nil {
		g.Go(func() error {
			for j := range order {
				for got := int64(0); got < j.end-j.off; {
					select {
					case b := <-j.blocks:
						s.whole.Write(b.buf)
						got += int64(len(b.buf))
						b.free <- b.buf
					case <-ctx.Done():
						return ctx.Err()
					}
				}
			}
			return nil
		})
	}

	for range workers {
		g.Go(func() error { return s.work(ctx, jobs, bufSize) })
	}
	return g.Wait()
}

// work reads and hashes jobs until jobs is closed or ctx ends.
func (s *scanner) work(ctx context.Context, jobs <-chan *job, bufSize int64) error {
	free := make(chan []byte, buffersPerWorker)
	for range buffersPerWorker {
		free <- make([]byte, bufSize)
	}
	var st *hashState
	if s.typ != "" {
		st = getHash(s.typ)
		defer putHash(s.typ, st)
	}
	for j := range jobs {
		p := j.first
		pOff, pN := s.layout.Bounds(p)
		for pos := j.off; pos < j.end; {
			var buf []byte
			select {
			case buf = <-free:
			case <-ctx.Done():
				return ctx.Err()
			}
			buf = buf[:min(bufSize, j.end-pos)]
			if err := readFull(s.r, buf, pos); err != nil {
				return fmt.Errorf("piece %d: %w", s.layout.Index(pos), err)
			}
			if j.blocks != nil {
				j.blocks <- block{buf: buf, free: free}
			}
			if st != nil {
				for data, at := buf, pos; len(data) > 0; {
					take := min(int64(len(data)), pOff+pN-at)
					st.h.Write(data[:take])
					data, at = data[take:], at+take
					if at == pOff+pN {
						s.done(p, st.h.Sum(st.sum[:0]))
						st.h.Reset()
						p++
						pOff, pN = s.layout.Bounds(p)
					}
				}
			}
			if j.blocks == nil {
				free <- buf
			}
			pos += int64(len(buf))
		}
	}
	return nil
}

// errShortRead: the file ended before the bytes its size promised, most
// likely because it shrank while it was being read.
var errShortRead = errors.New("file ended early (did it change while being read?)")

// readFull fills buf from r at off. A ReaderAt may return io.EOF with a
// full buffer at the end of its data; that is success.
func readFull(r io.ReaderAt, buf []byte, off int64) error {
	n, err := r.ReadAt(buf, off)
	switch {
	case n == len(buf):
		return nil
	case err == nil || errors.Is(err, io.EOF):
		return fmt.Errorf("read %d bytes at %d, got %d: %w", len(buf), off, n, errShortRead)
	default:
		return fmt.Errorf("read at %d: %w", off, err)
	}
}
