package ui

import (
	"testing"

	"braid/engine/explain"
)

// TestEveryKindHasItsSentence: a kind the engine adds without a sentence
// here reaches the user as the generic "the details say why".
func TestEveryKindHasItsSentence(t *testing.T) {
	generic := Sentence(explain.Unknown)
	seen := map[string]explain.Kind{}
	// Past the last kind, String says "unknown" again.
	for k := explain.Unknown + 1; k.String() != explain.Unknown.String(); k++ {
		s := Sentence(k)
		if s == generic {
			t.Errorf("kind %q has no sentence of its own", k)
		}
		if other, ok := seen[s]; ok {
			t.Errorf("kinds %q and %q share the sentence %q", other, k, s)
		}
		seen[s] = k
	}
	if _, ok := seen[Sentence(explain.DiskError)]; !ok {
		t.Errorf("the walk over the kinds never reached %q", explain.DiskError)
	}
}
