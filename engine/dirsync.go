package engine

import (
	"path/filepath"
	"sync"
)

// A published file's new name is made durable by a sync of its folder.
// Files landing together in one folder share that sync: a publish waits
// for a sync of its folder that began after its rename, which one sync
// serves for every rename before it. A batch of 10,000 small files made
// one per file.

// folderSyncs are the folders being synced, by path.
var folderSyncs = struct {
	sync.Mutex
	m map[string]*folderSync
}{m: map[string]*folderSync{}}

// folderSync is the syncs of one folder: one runs at a time.
type folderSync struct {
	cond              *sync.Cond // on folderSyncs' mutex
	started, finished uint64     // syncs begun and ended
	running           bool
	users             int // callers holding it; dropped from the map at 0
}

// syncFolder makes every rename in folder done before the call durable,
// calling do (which syncs it) itself or waiting for a caller's do that
// began after the call.
func syncFolder(folder string, do func()) {
	folder = filepath.Clean(folder)
	all := &folderSyncs
	all.Lock()
	defer all.Unlock()
	g := all.m[folder]
	if g == nil {
		g = &folderSync{cond: sync.NewCond(&all.Mutex)}
		all.m[folder] = g
	}
	g.users++
	defer func() {
		if g.users--; g.users == 0 {
			delete(all.m, folder)
		}
	}()
	need := g.started + 1 // the next sync to begin covers this rename
	for g.finished < need {
		if g.running {
			g.cond.Wait()
			continue
		}
		g.started++
		g.running = true
		all.Unlock()
		do()
		all.Lock()
		g.finished = g.started
		g.running = false
		g.cond.Broadcast()
	}
}
