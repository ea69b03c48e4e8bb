package rpc

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
)

// pausedQueue is a state folder whose queue holds n paused downloads,
// named f0.bin, f1.bin... in queue order, from a mirror that is not
// there; it returns the folder and their IDs.
func pausedQueue(t *testing.T, n int) (string, []int64) {
	t.Helper()
	state := t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var ids []int64
	for i := range n {
		name := fmt.Sprintf("f%d.bin", i)
		u := "http://127.0.0.1:9/" + name
		doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: name, Size: 1 << 20, URLs: []metalink.URL{{URL: u, Priority: 1}}}}}
		id, err := q.Add(queue.NewJob{Source: u, Dest: t.TempDir(), Doc: doc})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Pause(id, ""); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return state, ids
}

// waitingNames is tellWaiting's list, by file name.
func waitingNames(t *testing.T, b *braid) []string {
	t.Helper()
	var names []string
	for _, v := range b.call(t, "aria2.tellWaiting", 0, 100, []string{"gid", "files"}).([]any) {
		files := v.(map[string]any)["files"].([]any)
		path := files[0].(map[string]any)["path"].(string)
		names = append(names, path[len(path)-len("f0.bin"):])
	}
	return names
}

// TestIdleListIsReadOnceAndSeesEveryChange: over an idle queue, an aria2
// web UI's round of list calls reads the queue once for each kind of
// list, and the next round reads nothing; yet a change through the
// server, a change another command tells it of (Changed), and a change
// it is not told of (within listKeep) all show.
func TestIdleListIsReadOnceAndSeesEveryChange(t *testing.T) {
	t.Parallel()
	state, ids := pausedQueue(t, 3)
	b := openBraid(t, state, t.TempDir(), Options{})
	counted := &countingDownloads{QueueDownloads: b.dl}
	b.srv.d = counted

	round := func() {
		t.Helper()
		b.call(t, "aria2.tellActive", ariaNGKeys)
		b.call(t, "aria2.tellWaiting", 0, 1000, ariaNGKeys)
		b.call(t, "aria2.tellStopped", -1, 1000, ariaNGKeys)
		b.call(t, "aria2.getGlobalStat")
	}
	round()
	round()
	// One list with the files (the three tell calls), which serves
	// getGlobalStat too; the second round within listKeep reads none.
	if n := counted.lists.Load(); n != 1 {
		t.Errorf("two rounds over an idle queue listed it %d times, want 1", n)
	}

	if got, want := waitingNames(t, b), []string{"f0.bin", "f1.bin", "f2.bin"}; !slices.Equal(got, want) {
		t.Fatalf("waiting %v, want %v", got, want)
	}
	// Through the server: the last one to the front.
	b.call(t, "aria2.changePosition", gidOf(t, b, ids[2]), 0, "POS_SET")
	if got, want := waitingNames(t, b), []string{"f2.bin", "f0.bin", "f1.bin"}; !slices.Equal(got, want) {
		t.Errorf("after changePosition: waiting %v, want %v", got, want)
	}

	// Another command (braid queue move) changes the queue and tells
	// the server.
	other, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Move(ids[1], queue.At(0)); err != nil {
		t.Fatal(err)
	}
	b.srv.Changed()
	if got, want := waitingNames(t, b), []string{"f1.bin", "f2.bin", "f0.bin"}; !slices.Equal(got, want) {
		t.Errorf("after a move it was told of: waiting %v, want %v", got, want)
	}

	// A change it is not told of shows once the list it keeps is old.
	// Asked 10 times a second: the server answers DefaultRate requests a
	// second, and turns away more (429), as a client asking every 10 ms
	// for the 2 s the list is kept would be.
	if err := other.Move(ids[0], queue.At(0)); err != nil {
		t.Fatal(err)
	}
	want := []string{"f0.bin", "f1.bin", "f2.bin"}
	var got []string
	if !testkit.EventuallyEvery(listKeep+5*time.Second, 100*time.Millisecond, func() bool { got = waitingNames(t, b); return slices.Equal(got, want) }) {
		t.Errorf("a move it was not told of: waiting %v after %v, want %v", got, listKeep+5*time.Second, want)
	}
}

// gidOf is the GID the server gives job id.
func gidOf(t *testing.T, b *braid, id int64) string {
	t.Helper()
	j, err := b.q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return GID(j.ID, j.AddedAt)
}

// TestWorkingListKeepsItsDownloadsFresh: while a download runs, a list
// kept (here for as long as the test runs) is not read again, yet the
// download's progress moves from one call to the next; its end shows
// at once.
func TestWorkingListKeepsItsDownloadsFresh(t *testing.T) {
	t.Parallel()
	data := mirrortest.Bytes(2<<20, 3)
	m := mirrortest.New(t, data, mirrortest.Rate(256<<10))
	b := newBraid(t, Options{})
	counted := &countingDownloads{QueueDownloads: b.dl}
	b.srv.d = counted
	b.srv.keep = time.Hour
	gid := b.call(t, "aria2.addUri", []string{m.URL()}).(string)

	completed := func() (string, bool) {
		for _, v := range b.call(t, "aria2.tellActive", []string{"gid", "completedLength"}).([]any) {
			if s := v.(map[string]any); s["gid"] == gid {
				return s["completedLength"].(string), true
			}
		}
		return "", false
	}
	// Asked ten times a second, within the server's rate.
	if !testkit.EventuallyEvery(testkit.Patience, 100*time.Millisecond, func() bool { _, ok := completed(); return ok }) {
		t.Fatal("the download did not run")
	}
	first, _ := completed()
	reads := counted.lists.Load()
	if !testkit.EventuallyEvery(30*time.Second, 100*time.Millisecond, func() bool { now, ok := completed(); return ok && now != first }) {
		t.Fatalf("completedLength stayed %s while the download ran", first)
	}
	if n := counted.lists.Load() - reads; n != 0 {
		t.Errorf("the queue was listed %d times while one download ran, want 0: the list is kept", n)
	}
	if !testkit.EventuallyEvery(testkit.Patience, 100*time.Millisecond, func() bool {
		for _, v := range b.call(t, "aria2.tellStopped", 0, 10, []string{"gid", "status"}).([]any) {
			if s := v.(map[string]any); s["gid"] == gid {
				return s["status"] == "complete"
			}
		}
		return false
	}) {
		t.Fatal("the download was not told complete")
	}
}
