package torrent

import (
	"errors"
	"fmt"

	"github.com/anacrolix/torrent/types"
)

// Priority is how much a running torrent wants one of its files.
type Priority uint8

const (
	// Skip: none of the file's pieces are asked for (pieces it shares
	// with a wanted neighbour still are).
	Skip Priority = iota
	// Normal: fetched like the torrent's other files.
	Normal
	// High: its pieces are asked for before the Normal files'.
	High
)

func (p Priority) library() types.PiecePriority {
	switch p {
	case Normal:
		return types.PiecePriorityNormal
	case High:
		return types.PiecePriorityHigh
	}
	return types.PiecePriorityNone
}

// ErrNoFileLeft is returned by SetPriority for a change that would leave
// a torrent with no file to fetch.
var ErrNoFileLeft = errors.New("at least one file must stay selected")

// ErrFinished is returned by SetPriority once the torrent has every file
// it was asked for (seeding or done): a file is added by resuming the job
// with it selected.
var ErrFinished = errors.New("the torrent has finished downloading")

// ErrNoFiles is returned by SetPriority before the torrent's file list
// is known (a magnet link whose metadata has not arrived).
var ErrNoFiles = errors.New("the torrent's files are not known yet")

// SetPriority changes how much the running torrent wants the file name,
// at once and without restarting it: Skip stops asking for its pieces
// (the job then completes without it), Normal or High fetch it (again).
// Files already at their final name stay there. It returns ErrNoFileLeft
// rather than skip the last wanted file.
func (j *Job) SetPriority(name string, p Priority) error {
	// The library's calls take its client lock, under which its callbacks
	// take j.mu (filled): j.mu is never held across them.
	files := j.t.Files()
	j.mu.Lock()
	span, err := j.choose(name, p, len(files))
	j.mu.Unlock()
	if err != nil {
		return err
	}
	if j.req.InOrder {
		// The files keep priority None: the orderer's windows follow the
		// selection at its next tick (inorder.go).
		return nil
	}
	files[span].SetPriority(p.library())
	return nil
}

// choose records p for file name in the job's selection and returns the
// file's span. j.mu is held.
func (j *Job) choose(name string, p Priority, nfiles int) (int, error) {
	if j.ts == nil || j.selected == nil {
		return 0, ErrNoFiles
	}
	if j.phase != PhaseDownloading {
		return 0, fmt.Errorf("%s: %w", name, ErrFinished)
	}
	span := -1
	for i, sp := range j.ts.spans {
		if sp.name == name && !sp.pad {
			span = i
		}
	}
	if span < 0 {
		return 0, fmt.Errorf("%s: no such file in the torrent", name)
	}
	if span >= nfiles {
		return 0, fmt.Errorf("%s: the library lists %d files", name, nfiles)
	}
	want := p != Skip
	if !want {
		left := false
		for i, on := range j.selected {
			left = left || (on && i != span)
		}
		if !left {
			return 0, fmt.Errorf("%s: %w", name, ErrNoFileLeft)
		}
	}
	sel := append([]bool(nil), j.selected...)
	sel[span] = want
	j.selected = sel
	for k := range j.files {
		if j.files[k].Name == name {
			j.files[k].Selected = want
		}
	}
	return span, nil
}

// Wanted returns the names of the files the torrent fetches now (its
// selection, as changed by SetPriority); nil until the file list is
// known.
func (j *Job) Wanted() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.selected == nil {
		return nil
	}
	var out []string
	for _, f := range j.files {
		if f.Selected {
			out = append(out, f.Name)
		}
	}
	return out
}
