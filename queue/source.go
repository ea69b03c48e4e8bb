package queue

import "braid/engine/source"

// canonical is the one spelling of a source, so that a source is one job
// however it was written (source.Source.Canonical).
func canonical(s string) string { return source.Of(s).Canonical() }
