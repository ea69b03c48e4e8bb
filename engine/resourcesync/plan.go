package resourcesync

import (
	"slices"
	"time"
)

// ChangeSet is what a source's Change Lists say happened since a time.
type ChangeSet struct {
	// Entries are the changes at or after the time, oldest first; a
	// resource changed several times appears several times (Resources
	// keeps its last state).
	Entries []Entry
	// Covered is true when the lists account for every change since the
	// time: the earliest begins at or before it and each closed list is
	// followed by one that begins by its end. When false the destination
	// must compare the whole Resource List instead.
	Covered bool
	// Until is the time the destination is in sync with after applying
	// Entries: the last closed list's until or, for an open list, the
	// newest change seen (never earlier than the time asked for).
	Until time.Time
}

// ChangesSince collects from Change Lists (as read, in any order) the
// changes at or after since. A change exactly at since is taken again:
// applying a change twice is harmless (a file already right is not
// fetched), missing one is not.
func ChangesSince(lists []*Document, since time.Time) ChangeSet {
	cs := ChangeSet{Until: since}
	if len(lists) == 0 || since.IsZero() {
		return cs
	}
	sorted := slices.Clone(lists)
	slices.SortStableFunc(sorted, func(a, b *Document) int { return a.From.Compare(b.From) })
	cs.Covered = !sorted[0].From.IsZero() && !sorted[0].From.After(since)
	for i, d := range sorted {
		if i > 0 {
			prev := sorted[i-1]
			if !prev.Until.IsZero() && d.From.After(prev.Until) {
				cs.Covered = false // a gap between two lists
			}
		}
		if !d.Until.IsZero() && d.Until.Before(since) {
			continue // closed before the time asked for
		}
		for _, e := range d.Entries {
			if e.Lastmod.IsZero() || !e.Lastmod.Before(since) {
				cs.Entries = append(cs.Entries, e)
				if e.Lastmod.After(cs.Until) {
					cs.Until = e.Lastmod
				}
			}
		}
	}
	if last := sorted[len(sorted)-1]; !last.Until.IsZero() && last.Until.After(cs.Until) {
		cs.Until = last.Until
	}
	return cs
}
