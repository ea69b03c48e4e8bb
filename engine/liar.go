package engine

import (
	"bytes"
	"errors"
	"fmt"
)

// Finding the liar. A file without piece hashes is checked only as a
// whole, so when that check fails nothing says which mirror sent the bad
// bytes, and fetching the file again may take them from the same mirror.
// So each mirror in turn becomes the suspect: the pieces it filled are
// fetched from the other mirrors and compared with what it sent. When they
// differ and the file then matches its hash, the suspect lied, and it is
// dropped; when they do not differ it is cleared, and the next is checked.
// Suspects with the fewest pieces go first, so the cheap checks come first.

// checkNextSuspect starts the check of the next mirror not yet checked,
// and reports false when none is left to check. Called by run between
// fetches, when no connection is open.
func (d *download) checkNextSuspect() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.suspect != nil {
		d.suspect.banned = false
	}
	d.suspect = nil
	filled := make([]int, len(d.mirrors))
	for i, f := range d.filler {
		if f >= 0 && d.pieces[i] == PieceDone {
			filled[f]++
		}
	}
	var next *mirror
	for _, m := range d.mirrors {
		if d.checked[m.idx] || filled[m.idx] == 0 || m.state == MirrorDropped || m.src == nil {
			continue
		}
		if d.live() < 2 {
			break // nobody to compare with
		}
		if next == nil || filled[m.idx] < filled[next.idx] {
			next = m
		}
	}
	if next == nil {
		return d.checkEarlier()
	}
	d.checked[next.idx] = true
	d.suspect, next.banned = next, true
	d.differed.Store(false)
	d.attempt = 2
	for i, f := range d.filler {
		if f != int16(next.idx) || d.pieces[i] != PieceDone {
			continue
		}
		_, n := d.plan.Bounds(i)
		d.pieces[i], d.filler[i] = PieceMissing, -1
		d.done--
		d.doneB -= n
		next.useful -= n
	}
	d.restartHash()
	return true
}

// checkEarlier fetches again, once, the pieces an earlier run left in
// NAME.part, whose mirrors are not known: the last suspects left when
// every mirror's own pieces were checked. When no mirror could be checked
// (one mirror only), it fetches the whole file again, once: the bad bytes
// may have been the network's. Called with d.mu held.
func (d *download) checkEarlier() bool {
	if d.earlier {
		return false
	}
	d.earlier = true
	all := len(d.checked) == 0
	found := false
	for i, f := range d.filler {
		if (f < 0 || all) && d.pieces[i] == PieceDone {
			_, n := d.plan.Bounds(i)
			if f >= 0 {
				d.mirrors[f].useful -= n
			}
			d.pieces[i], d.filler[i] = PieceMissing, -1
			d.done--
			d.doneB -= n
			found = true
		}
	}
	if found {
		d.attempt = 2
		d.restartHash()
	}
	return found
}

// restartHash makes the whole-file hash start over from the first byte and
// the journal and the piece log forget the pieces no longer done. Called
// with d.mu held.
func (d *download) restartHash() {
	d.prefix = 0
	d.advancePrefix()
	d.hashed.Store(0)
	d.rewritePieceLog()
	d.pending, d.unjournaled = nil, nil
	if r, ok := d.req.Journal.(JournalResetter); ok {
		// The journal counts the suspect's pieces: forget them all, and
		// record the others again at the next sync.
		if err := r.Reset(d.file.Name); err != nil {
			d.lost = append(d.lost, &MirrorError{Mirror: "journal", Err: err})
		}
		for i, st := range d.pieces {
			if st == PieceDone {
				d.pending = append(d.pending, i)
			}
		}
	}
}

// convictSuspect drops the mirror under check when its bytes differed from
// the other mirrors' and the file matches its hash without them. Called
// by run once the file matched.
func (d *download) convictSuspect() {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := d.suspect
	if m == nil {
		return
	}
	m.banned = false
	if d.differed.Load() {
		d.dropMirror(m, fmt.Errorf("%w: its bytes differ from the other mirrors', and the file matches its %s hash without them", errLiar, d.whole.Type))
	}
}

// errLiar is why a mirror found to send wrong bytes was dropped.
var errLiar = errors.New("sent a corrupt copy")

// compareOld reports whether p differs from the bytes at off in NAME.part,
// the suspect's, which p is about to replace; scratch is a buffer at
// least as long as p.
func (d *download) compareOld(p []byte, off int64, scratch []byte) {
	if d.differed.Load() {
		return // one difference is all the check needs
	}
	old := scratch[:len(p)]
	if _, err := d.st.ReadAt(old, off); err != nil || !bytes.Equal(old, p) {
		d.differed.Store(true)
	}
}
