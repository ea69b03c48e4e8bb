package main

import (
	"strings"
	"testing"

	"braid/queue"
)

// `queue in-order ID on|off` keeps whether a job downloads in order, as
// the window's "Download in order" does; bad input is a usage error with
// a sentence, a job that is not there a failure.
func TestQueueInOrder(t *testing.T) {
	t.Parallel()
	state, _ := queueFixture(t)
	inOrder := func(id int64) bool {
		t.Helper()
		q, err := queue.Open(state)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		on, err := q.InOrder(id)
		if err != nil {
			t.Fatal(err)
		}
		return on
	}
	code, out, errOut := runQueue(t, "--state", state, "in-order", "1", "on")
	if code != 0 || !strings.Contains(out, "job 1 downloads in order") {
		t.Fatalf("in-order on: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !inOrder(1) || inOrder(2) {
		t.Fatalf("after in-order 1 on: job 1 %v, job 2 %v; want on, off", inOrder(1), inOrder(2))
	}
	code, out, errOut = runQueue(t, "--state", state, "in-order", "1", "OFF")
	if code != 0 || !strings.Contains(out, "job 1 downloads in the fastest order") || inOrder(1) {
		t.Fatalf("in-order off: exit %d, stdout %q, stderr %q, in order %v", code, out, errOut, inOrder(1))
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"in-order", "1"}, 2, "want a job ID and on or off"},
		{[]string{"in-order", "x", "on"}, 2, `"x" is not a job ID`},
		{[]string{"in-order", "1", "sometimes"}, 2, `"sometimes" is neither on nor off`},
		{[]string{"in-order", "99", "on"}, 1, "no such job"},
	} {
		code, _, errOut := runQueue(t, append([]string{"--state", state}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("queue %q: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}
