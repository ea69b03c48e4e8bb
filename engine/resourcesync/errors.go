package resourcesync

import (
	"errors"
	"fmt"
)

// Sentinel errors of Parse, for errors.Is. Parse wraps them with the line
// and the detail a user needs.
var (
	// ErrTooLarge: the document is bigger than Limits.MaxBytes.
	ErrTooLarge = errors.New("document too large")
	// ErrTooDeep: elements are nested deeper than Limits.MaxDepth.
	ErrTooDeep = errors.New("elements nested too deep")
	// ErrTooMany: the document lists more entries than Limits.MaxEntries.
	ErrTooMany = errors.New("too many entries")
	// ErrEntity: the document declares XML entities (<!ENTITY>), the stuff
	// of entity-expansion bombs. No sitemap needs them.
	ErrEntity = errors.New("XML entity declarations are not accepted")
	// ErrNotResourceSync: the document is not XML, or its root element is
	// not a sitemap <urlset> or <sitemapindex>.
	ErrNotResourceSync = errors.New("not a ResourceSync document")
	// ErrTruncated: the document ends before its root element is closed.
	ErrTruncated = errors.New("document truncated")
	// ErrIndexDepth: sitemap indexes point at indexes deeper than
	// Limits.MaxIndexDepth, or in a loop.
	ErrIndexDepth = errors.New("sitemap indexes nested too deep")
	// ErrCapability: a document is not the kind it was expected to be (a
	// Change List where a Resource List was named, say).
	ErrCapability = errors.New("unexpected capability")
)

// SyntaxError is a problem at a known place in a document.
type SyntaxError struct {
	Line int    // 1-based line where the problem was found
	Msg  string // what is wrong
	Err  error  // one of the sentinel errors above, or nil
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("resourcesync: line %d: %s", e.Line, e.Msg)
}

// Unwrap returns the sentinel error, so errors.Is(err, ErrTooDeep) works.
func (e *SyntaxError) Unwrap() error { return e.Err }
