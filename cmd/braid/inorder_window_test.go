//go:build !headless

package main

import (
	"strconv"
	"testing"
	"time"

	"braid/queue"
)

// TestWindowDownloadInOrder sets a running download to download in order
// in the real window, with the mouse and the keyboard through the X
// server: a right click on its row shows "Download in order" (the fifth
// item: Pause, Resume, Stop seeding, Speed limit…, Download in order),
// Down five times and Enter choose it, and the queue then keeps the job
// in order. The same item, chosen again, turns it off.
func TestWindowDownloadInOrder(t *testing.T) {
	t.Parallel()
	rr := newRunningRow(t, "inorder", "film.mkv", 19)
	inOrder := func() (bool, error) {
		q, err := queue.Open(rr.r.state)
		if err != nil {
			return false, err
		}
		defer q.Close()
		return q.InOrder(rr.id)
	}
	for i, want := range []bool{true, false} {
		rr.openRowMenu()
		rr.keep(t, "row-menu-"+strconv.Itoa(i))
		rr.chooseItem(5)
		for end := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			on, err := inOrder()
			if err == nil && on == want {
				break
			}
			if time.Now().After(end) {
				rr.keep(t, "not-set")
				t.Fatalf("choice %d: the queue keeps the job in order %v (%v), want %v\n%s", i+1, on, err, want, rr.out.String())
			}
		}
	}
	// The window is killed when the test ends: quitting now would ask
	// about the download still running.
}
