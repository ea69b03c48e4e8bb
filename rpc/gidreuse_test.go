package rpc

import (
	"testing"

	"braid/engine/mirrortest"
)

// TestGIDNeverReused: a removed download's GID, and the job ID inside it,
// never name a later download, however quickly it is added, in the same
// run and after a restart; the old GID stays "not found".
func TestGIDNeverReused(t *testing.T) {
	t.Parallel()
	state, dir := t.TempDir(), t.TempDir()
	m := mirrortest.New(t, mirrortest.Bytes(1000, 1))
	b := openBraid(t, state, dir, Options{})
	add := func() string {
		t.Helper()
		return b.call(t, "aria2.addUri", []string{m.URL()}, map[string]any{"pause": "true"}).(string)
	}
	seen := map[int64]string{}
	check := func(gid string) {
		t.Helper()
		id, _, err := parseGID(gid)
		if err != nil {
			t.Fatal(err)
		}
		if old, ok := seen[id]; ok {
			t.Fatalf("GID %s carries job ID %d, which removed GID %s had", gid, id, old)
		}
		seen[id] = gid
	}
	var removed []string
	for range 3 {
		gid := add() // added, removed at once: no time between them
		check(gid)
		b.call(t, "aria2.remove", gid)
		removed = append(removed, gid)
	}
	b.close()

	b = openBraid(t, state, dir, Options{})
	check(add())
	for _, gid := range removed {
		if msg := b.callErr(t, "aria2.tellStatus", gid); msg != "GID "+gid+" is not found" {
			t.Errorf("removed GID %s after a restart: %q", gid, msg)
		}
	}
}
