package resourcesync

import (
	"context"

	"braid/engine/metalink"
)

// Resolve reads every Resource List of source (a base URL, Source
// Description, Capability List or Resource List) into one
// metalink.Document, the model the window's picker shows: each resource a
// file named by its path below Base(source), refused ones as Rejected.
// Describedby metalinks are not fetched here (a sync fetches them for the
// files it downloads).
func (f *Fetcher) Resolve(ctx context.Context, source string) (*metalink.Document, error) {
	base, err := Base(source)
	if err != nil {
		return nil, err
	}
	sets, err := f.Discover(ctx, source)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	var warnings []string
	for _, s := range sets {
		if s.ResourceList == "" {
			continue
		}
		doc, err := f.List(ctx, s.ResourceList)
		if err != nil {
			return nil, err
		}
		entries = append(entries, doc.Entries...)
		warnings = append(warnings, doc.Warnings...)
	}
	rs, refused := Resources(entries, base)
	return ToDocument(rs, refused, warnings), nil
}
