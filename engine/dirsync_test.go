package engine

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// Renames in one folder while its sync runs share the next sync: ten
// publishes arriving during one sync cost one more, not ten. Each
// returns only after a sync that began after it was called, and a
// publish after them all gets a sync of its own.
func TestSyncFolderShared(t *testing.T) {
	t.Parallel()
	folder := t.TempDir()
	var syncs atomic.Int32
	first := make(chan struct{})
	release := make(chan struct{})
	go syncFolder(folder, func() {
		syncs.Add(1)
		close(first)
		<-release // the first sync runs while the others arrive
	})
	<-first
	var wg sync.WaitGroup
	var covered atomic.Int32 // publishes that returned after the second sync
	for range 10 {
		wg.Go(func() {
			syncFolder(folder, func() { syncs.Add(1) })
			if syncs.Load() >= 2 {
				covered.Add(1)
			}
		})
	}
	// Every caller is waiting: the one sync they need has not begun.
	for {
		folderSyncs.Lock()
		users := folderSyncs.m[folder].users
		folderSyncs.Unlock()
		if users == 11 {
			break
		}
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	if n := syncs.Load(); n != 2 {
		t.Fatalf("%d syncs for 11 publishes arriving together, want 2", n)
	}
	if n := covered.Load(); n != 10 {
		t.Fatalf("%d of 10 publishes returned before a sync that began after them", 10-n)
	}
	syncFolder(folder, func() { syncs.Add(1) })
	if n := syncs.Load(); n != 3 {
		t.Fatalf("a later publish made %d syncs in all, want 3", n)
	}
	folderSyncs.Lock()
	defer folderSyncs.Unlock()
	if _, ok := folderSyncs.m[folder]; ok {
		t.Fatal("the folder's entry stayed after its last user")
	}
}
