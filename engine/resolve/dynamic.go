package resolve

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"braid/engine/metalink"
	"braid/engine/redact"
)

// Errors of Refetch and Compare; test with errors.Is.
var (
	// ErrNotDynamic: the document does not say that its origin may hold a
	// newer one (RFC 5854 <origin dynamic="true">, Metalink 3
	// type="dynamic" with an origin).
	ErrNotDynamic = errors.New("the metalink is not dynamic")
	// ErrFileGone: the origin's document no longer lists the file.
	ErrFileGone = errors.New("the origin's metalink no longer lists the file")
)

// Update is what fetching a dynamic document again found for one file.
type Update struct {
	// Document is the document as the origin serves it now.
	Document *metalink.Document
	// File is the file to download from now on: for the same version the
	// file as it was with the new mirrors added (its verified pieces stay
	// good); for a new version the origin's file.
	File metalink.File
	// NewVersion: the origin now describes other bytes (another size,
	// whole-file hash or piece hashes): the publisher has a new version,
	// and nothing fetched of the old one is of use.
	NewVersion bool
	// Added are the mirrors the file did not have, in the origin's order.
	Added []metalink.URL
}

// Refetch fetches doc again from its origin. It fails with ErrNotDynamic
// for a document that is not dynamic, and with Resolve's errors when the
// origin cannot be read or serves no metalink.
func Refetch(ctx context.Context, doc *metalink.Document, opts Options) (*metalink.Document, error) {
	if doc == nil || !doc.Dynamic || doc.Origin == "" {
		return nil, ErrNotDynamic
	}
	res, err := Resolve(ctx, doc.Origin, opts)
	if err != nil {
		return nil, fmt.Errorf("refresh the metalink: %w", err)
	}
	if res.Kind == KindPlainURL {
		return nil, fmt.Errorf("refresh the metalink: its origin %s does not serve a metalink", redact.URL(doc.Origin))
	}
	return res.Document, nil
}

// Compare tells what fresh, the document as its origin serves it now,
// changes for the file f of doc: new mirrors, or a new version. It fails
// with ErrFileGone when fresh has no file of f's name (nor are both
// one-file documents).
func Compare(doc *metalink.Document, f metalink.File, fresh *metalink.Document) (*Update, error) {
	at := slices.IndexFunc(fresh.Files, func(g metalink.File) bool { return g.Name == f.Name })
	if at < 0 && len(doc.Files) == 1 && len(fresh.Files) == 1 {
		at = 0 // a one-file document whose file took a new name
	}
	if at < 0 {
		return nil, fmt.Errorf("%s: %w", f.Name, ErrFileGone)
	}
	nf := fresh.Files[at]
	if nf.Name != f.Name || !sameBytes(f, nf) {
		return &Update{Document: fresh, File: nf, NewVersion: true}, nil
	}
	up := &Update{Document: fresh, File: f}
	up.File.URLs = slices.Clone(f.URLs)
	if nf.Signature != nil {
		up.File.Signature = nf.Signature // the publisher may have signed anew
	}
	have := map[string]bool{}
	for _, u := range f.URLs {
		have[redact.URL(u.URL)] = true
	}
	for _, u := range nf.URLs {
		if key := redact.URL(u.URL); !have[key] {
			have[key] = true
			up.Added = append(up.Added, u)
			up.File.URLs = append(up.File.URLs, u)
		}
	}
	sortURLs(up.File.URLs)
	return up, nil
}

// sameBytes reports whether two descriptions of a file are of the same
// bytes: the same size where both say, no whole-file hash of one type
// with two values, and the same pieces where both have them.
func sameBytes(a, b metalink.File) bool {
	if a.Size >= 0 && b.Size >= 0 && a.Size != b.Size {
		return false
	}
	for _, h := range a.Hashes {
		for _, g := range b.Hashes {
			if h.Type == g.Type && h.Value != g.Value {
				return false
			}
		}
	}
	if a.Pieces != nil && b.Pieces != nil && a.Pieces.Type == b.Pieces.Type && a.Pieces.Length == b.Pieces.Length {
		return reflect.DeepEqual(a.Pieces.Hashes, b.Pieces.Hashes)
	}
	return true
}
