package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// `queue limit ID RATE` gives a job a speed limit of its own, which
// `queue list` shows in its LIMIT column and --json as speed_limit (bytes
// per second); 0 or none removes it; bad input is a usage error with a
// sentence, a job that is not there a failure.
func TestQueueLimit(t *testing.T) {
	t.Parallel()
	state, _ := queueFixture(t)
	code, out, errOut := runQueue(t, "--state", state, "limit", "1", "500K")
	if code != 0 || !strings.Contains(out, "job 1 downloads at most 500 KiB/s") {
		t.Fatalf("limit: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	_, out, _ = runQueue(t, "--state", state, "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "LIMIT") || !strings.Contains(lines[1], "500 KiB/s") ||
		strings.Contains(lines[2], "KiB/s") {
		t.Fatalf("list after the limit:\n%s", out)
	}
	_, out, _ = runQueue(t, "--state", state, "list", "--json")
	var jobs []queueJob
	if err := json.Unmarshal([]byte(out), &jobs); err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].SpeedLimit != 500<<10 || jobs[1].SpeedLimit != 0 || strings.Count(out, `"speed_limit"`) != 1 {
		t.Fatalf("list --json: %s", out)
	}

	for _, none := range []string{"none", "0", "NONE"} {
		if code, _, errOut := runQueue(t, "--state", state, "limit", "1", "2M"); code != 0 {
			t.Fatalf("limit 2M: exit %d: %s", code, errOut)
		}
		code, out, errOut := runQueue(t, "--state", state, "limit", "1", none)
		if code != 0 || !strings.Contains(out, "no speed limit of its own") {
			t.Fatalf("limit %s: exit %d, stdout %q, stderr %q", none, code, out, errOut)
		}
		if _, out, _ := runQueue(t, "--state", state, "list", "--json"); strings.Contains(out, "speed_limit") {
			t.Fatalf("limit %s left a limit:\n%s", none, out)
		}
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"limit", "1"}, 2, "want a job ID and a rate"},
		{[]string{"limit", "x", "1M"}, 2, `"x" is not a job ID`},
		{[]string{"limit", "1", "fast"}, 2, `"fast" is not a rate such as 500K or 10M`},
		{[]string{"limit", "1", "-5K"}, 2, "is not a rate"},
		{[]string{"limit", "1", ""}, 2, "want a rate such as 500K"},
		{[]string{"limit", "99", "1M"}, 1, "no such job"},
	} {
		code, _, errOut := runQueue(t, append([]string{"--state", state}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("queue %q: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}
