package metalink

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
	// ErrEntity: the document declares XML entities (<!ENTITY>), the
	// stuff of entity-expansion bombs. No Metalink needs them.
	ErrEntity = errors.New("XML entity declarations are not accepted")
	// ErrNotMetalink: the document is not XML, or its root element is not a
	// Metalink 3 or 4 <metalink>.
	ErrNotMetalink = errors.New("not a Metalink document")
	// ErrTruncated: the document ends before its root element is closed,
	// as a partly downloaded file does.
	ErrTruncated = errors.New("document truncated")
	// ErrEncoding: the document declares a character encoding Braid does
	// not know.
	ErrEncoding = errors.New("unsupported character encoding")
	// ErrNoFiles: the document is well formed but lists no <file> at all.
	ErrNoFiles = errors.New("document lists no files")
	// ErrUnsafeName: a server-supplied file name could escape the download
	// folder or misbehave on some operating system; see SafeName.
	ErrUnsafeName = errors.New("unsafe file name")
)

// SyntaxError is a problem at a known place in the document: malformed XML,
// a truncated document, nesting beyond the limit, an entity declaration, a
// root element that is not Metalink.
type SyntaxError struct {
	Line int    // 1-based line of the document where the problem was found
	Msg  string // what is wrong and, where it helps, what was expected
	Err  error  // one of the sentinel errors above, or nil
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("metalink: line %d: %s", e.Line, e.Msg)
}

// Unwrap returns the sentinel error, so errors.Is(err, ErrTooDeep) works.
func (e *SyntaxError) Unwrap() error { return e.Err }

// NameError says why SafeName refused a name.
type NameError struct {
	Name string // the name exactly as given
	Rule string // the rule it breaks, in words a user understands
}

func (e *NameError) Error() string {
	return fmt.Sprintf("unsafe file name %q: %s", e.Name, e.Rule)
}

// Unwrap returns ErrUnsafeName.
func (e *NameError) Unwrap() error { return ErrUnsafeName }
