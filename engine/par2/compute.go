package par2

import (
	"context"
	"encoding/binary"
	"runtime"
	"sync"
)

// DefaultMemory is how much the slices being made may hold at once: past
// it, the work runs in passes over parts of the slices.
const DefaultMemory = 64 << 20

// sliceSource reads the bytes [off, off+len(b)) of one input of a linear
// combination (an input slice or a recovery slice), zeros past its end.
type sliceSource func(b []byte, off int64) error

// combine computes outputs[k] = sum over i of coef[k][i] * inputs[i] over
// GF(2^16), a part of every slice at a time, and hands each finished part to
// write. The parts are as large as memory allows: outputs × part ≤ memory.
// Inputs are read by one goroutine ahead of the workers, which split the
// outputs between them, so reading and multiplying overlap.
func combine(ctx context.Context, sliceSize int64, inputs []sliceSource, coef [][]uint16, memory int64, write func(k int, off int64, b []byte) error) error {
	nOut := len(coef)
	if nOut == 0 {
		return nil
	}
	if memory <= 0 {
		memory = DefaultMemory
	}
	part := memory / int64(nOut)
	part &^= 7
	if part < 1024 {
		part = 1024 // below this, building the tables costs more than using them
	}
	if part > sliceSize {
		part = sliceSize
	}
	outs := make([][]byte, nOut)
	for k := range outs {
		outs[k] = make([]byte, part)
	}
	workers := runtime.GOMAXPROCS(0)
	if workers > nOut {
		workers = nOut
	}
	tables := make([]*mulTable, workers)
	for w := range tables {
		tables[w] = &mulTable{}
	}

	for a := int64(0); a < sliceSize; a += part {
		n := part
		if rest := sliceSize - a; rest < n {
			n = rest
		}
		for k := range outs {
			clear(outs[k][:n])
		}
		if err := combinePart(ctx, a, n, inputs, coef, outs, tables); err != nil {
			return err
		}
		for k := range outs {
			if err := write(k, a, outs[k][:n]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Cache blocking: the inputs come in batches of about batchBytes, and the
// workers walk the batch a column block at a time, so a block of each input
// and of the output stay in cache while every input of the batch is added.
// Without it, each input slice streamed every output (outputs × slice bytes,
// 50 MB for 100 recovery slices of 512 KiB) through memory: making the
// parity of 1 GiB was memory-bound, several times slower.
const (
	batchBytes = 8 << 20
	maxBatch   = 64
	blockBytes = 32 << 10
)

// combinePart adds every input's part [a, a+n) into the outputs.
func combinePart(ctx context.Context, a, n int64, inputs []sliceSource, coef [][]uint16, outs [][]byte, tables []*mulTable) error {
	type batch struct {
		first int // number of the batch's first input
		bufs  [][]byte
	}
	g := int(min(maxBatch, max(1, batchBytes/n)))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	free := make(chan [][]byte, 2)
	for range 2 {
		bufs := make([][]byte, g)
		for i := range bufs {
			bufs[i] = make([]byte, n)
		}
		free <- bufs
	}
	ready := make(chan batch, 1)
	readErr := make(chan error, 1)
	go func() {
		defer close(ready)
		for first := 0; first < len(inputs); first += g {
			var bufs [][]byte
			select {
			case bufs = <-free:
			case <-ctx.Done():
				readErr <- ctx.Err()
				return
			}
			cnt := min(g, len(inputs)-first)
			for j := range cnt {
				if err := inputs[first+j](bufs[j], a); err != nil {
					readErr <- err
					return
				}
			}
			select {
			case ready <- batch{first, bufs[:cnt]}:
			case <-ctx.Done():
				readErr <- ctx.Err()
				return
			}
		}
		readErr <- nil
	}()

	var wg sync.WaitGroup
	nOut := len(outs)
	for b := range ready {
		for w, t := range tables {
			lo, hi := w*nOut/len(tables), (w+1)*nOut/len(tables)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for c := int64(0); c < n; c += blockBytes {
					e := min(n, c+blockBytes)
					for k := lo; k < hi; k++ {
						out := outs[k][c:e]
						for j, in := range b.bufs {
							switch cf := coef[k][b.first+j]; cf {
							case 0:
							case 1:
								xorInto(out, in[c:e])
							default:
								t.fill(cf)
								t.mulAdd(out, in[c:e])
							}
						}
					}
				}
			}()
		}
		wg.Wait()
		free <- b.bufs[:cap(b.bufs)]
	}
	if err := <-readErr; err != nil {
		return err
	}
	return ctx.Err()
}

func xorInto(dst, src []byte) {
	dst = dst[:len(src)]
	n := len(src) &^ 7
	for i := 0; i < n; i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])^binary.LittleEndian.Uint64(src[i:]))
	}
	for i := n; i < len(src); i++ {
		dst[i] ^= src[i]
	}
}

// invert returns the inverse of the square matrix m over GF(2^16), or false
// if m is singular. Gauss–Jordan elimination on a copy.
func invert(m [][]uint16) ([][]uint16, bool) {
	n := len(m)
	a := make([][]uint16, n)
	inv := make([][]uint16, n)
	for i := range m {
		a[i] = append([]uint16(nil), m[i]...)
		inv[i] = make([]uint16, n)
		inv[i][i] = 1
	}
	for col := 0; col < n; col++ {
		p := -1
		for r := col; r < n; r++ {
			if a[r][col] != 0 {
				p = r
				break
			}
		}
		if p < 0 {
			return nil, false
		}
		a[col], a[p] = a[p], a[col]
		inv[col], inv[p] = inv[p], inv[col]
		if d := a[col][col]; d != 1 {
			di := gfInv(d)
			for j := 0; j < n; j++ {
				a[col][j] = gfMul(a[col][j], di)
				inv[col][j] = gfMul(inv[col][j], di)
			}
		}
		for r := 0; r < n; r++ {
			if r == col || a[r][col] == 0 {
				continue
			}
			f := a[r][col]
			for j := 0; j < n; j++ {
				a[r][j] ^= gfMul(f, a[col][j])
				inv[r][j] ^= gfMul(f, inv[col][j])
			}
		}
	}
	return inv, true
}
