package rpc

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"braid/engine/explain"
	"braid/engine/mirrortest"
	"braid/queue"
)

// waitFor polls tellStatus until ok says the answer is what the test
// waits for, and returns it.
func (b *braid) waitFor(t *testing.T, gid, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for {
		st := b.call(t, "aria2.tellStatus", gid).(map[string]any)
		if ok(st) {
			return st
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s: waited for %s: %v", gid, what, st)
		}
	}
}

// noRawText: what a client shows a user is a sentence, no Go error text.
func noRawText(t *testing.T, msg string) {
	t.Helper()
	if msg == "" || explain.RawFragment(msg) != "" || strings.Contains(msg, "HEAD") || !strings.HasSuffix(msg, ".") {
		t.Errorf("errorMessage %q is not a sentence", msg)
	}
}

// An addUri of a link that answers 404 is added and fails, as in aria2:
// the add answers a GID, the WebSocket says onDownloadError, and
// tellStopped lists it with status error, errorCode 3 and a sentence.
func TestAddURIOfMissingFileIsListed(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	gone := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(gone.Close)
	ws := dial(t, b)
	link := gone.URL + "/lost.bin"

	res := b.call(t, "aria2.addUri", []string{link})
	gid, ok := res.(string)
	if !ok || len(gid) != 16 {
		t.Fatalf("addUri of a 404 answered %v, want a GID", res)
	}
	if seen := notifications(t, ws, gid, "aria2.onDownloadStart", "aria2.onDownloadError"); len(seen) != 2 {
		t.Errorf("notifications %v, want aria2c's onDownloadStart, onDownloadError", seen)
	}

	stopped := b.call(t, "aria2.tellStopped", 0, 10).([]any)
	if len(stopped) != 1 {
		t.Fatalf("tellStopped lists %d downloads, want the failed one: %v", len(stopped), stopped)
	}
	st := stopped[0].(map[string]any)
	if st["gid"] != gid || st["status"] != "error" || st["errorCode"] != "3" {
		t.Errorf("the failed download: gid %v status %v errorCode %v, want %s error 3", st["gid"], st["status"], st["errorCode"], gid)
	}
	msg, _ := st["errorMessage"].(string)
	noRawText(t, msg)
	if !strings.Contains(msg, "not found") {
		t.Errorf("errorMessage %q does not say the file is not found", msg)
	}
	if d, _ := st["braidErrorDetail"].(string); !strings.Contains(d, "404") {
		t.Errorf("braidErrorDetail %q lost the server's answer", d)
	}
	if _, ok := st["bitfield"]; ok {
		t.Errorf("a download that never knew its pieces has a bitfield (aria2 leaves it out): %v", st["bitfield"])
	}
	files := st["files"].([]any)
	uris := files[0].(map[string]any)["uris"].([]any)
	if len(uris) != 1 || uris[0].(map[string]any)["uri"] != link {
		t.Errorf("the failed download's uris %v, want the link", uris)
	}
	if got := b.call(t, "aria2.tellActive").([]any); len(got) != 0 {
		t.Errorf("tellActive lists %v", got)
	}
	// A front end may remove the red row, as from aria2.
	b.call(t, "aria2.removeDownloadResult", gid)
	if jobs, err := b.q.List(); err != nil || len(jobs) != 0 {
		t.Errorf("after removeDownloadResult the queue holds %v (%v)", jobs, err)
	}
}

// A link whose server refuses the connection is a download that waits
// and tries again by itself (Braid's rule for the network, as in the
// window), with the reason as errorCode 6 and a sentence.
func TestAddURIOfRefusedPortWaits(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	link := "http://" + ln.Addr().String() + "/later.bin"
	ln.Close() // nothing listens there now: connections are refused

	gid := b.call(t, "aria2.addUri", []string{link}).(string)
	st := b.waitFor(t, gid, "waiting with a reason", func(st map[string]any) bool {
		return st["status"] == "waiting" && st["errorMessage"] != nil
	})
	if st["errorCode"] != "6" {
		t.Errorf("errorCode %v, want 6 (network problem)", st["errorCode"])
	}
	msg, _ := st["errorMessage"].(string)
	noRawText(t, msg)
	if !strings.Contains(msg, "refused") {
		t.Errorf("errorMessage %q does not say the connection was refused", msg)
	}
	if got := b.call(t, "aria2.tellStopped", 0, 10).([]any); len(got) != 0 {
		t.Errorf("a waiting download is in tellStopped: %v", got)
	}
	waiting := b.call(t, "aria2.tellWaiting", 0, 10).([]any)
	if len(waiting) != 1 || waiting[0].(map[string]any)["gid"] != gid {
		t.Errorf("tellWaiting %v, want %s", waiting, gid)
	}
}

// A link whose host name does not exist (.invalid never does, RFC 2606)
// waits with errorCode 19, name resolution failed. It needs a resolver
// that answers "no such host" without the internet, as most do.
func TestAddURIOfUnknownHostWaits(t *testing.T) {
	t.Parallel()
	const host = "braid-rpc-test.invalid"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := net.DefaultResolver.LookupHost(ctx, host)
	var dns *net.DNSError
	if !errors.As(err, &dns) || !dns.IsNotFound {
		t.Skipf("this machine's resolver does not say %s is unknown (%v): the test would need the network", host, err)
	}
	b := newBraid(t, Options{})
	gid := b.call(t, "aria2.addUri", []string{"http://" + host + "/file.bin"}).(string)
	st := b.waitFor(t, gid, "waiting with a reason", func(st map[string]any) bool {
		return st["status"] == "waiting" && st["errorMessage"] != nil
	})
	if st["errorCode"] != "19" {
		t.Errorf("errorCode %v, want 19 (name resolution failed): %v", st["errorCode"], st)
	}
	noRawText(t, st["errorMessage"].(string))
}

// A metalink whose only mirror answers 404 is added, and fails when it
// runs, with aria2's code for a file not found.
func TestMetalinkFailingLaterHasCode(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	ws := dial(t, b)
	data := mirrortest.Bytes(50000, 4)
	gone := mirrortest.New(t, data, mirrortest.Status(404))
	doc := meta4("gone.bin", data, gone.URL())
	gid := b.call(t, "aria2.addMetalink", base64.StdEncoding.EncodeToString([]byte(doc))).([]any)[0].(string)
	notifications(t, ws, gid, "aria2.onDownloadError")
	st := b.waitStatus(t, gid, "error")
	if st["errorCode"] != "3" {
		t.Errorf("errorCode %v, want 3: %v", st["errorCode"], st)
	}
	noRawText(t, st["errorMessage"].(string))
}

// A failing add with headers is listed the same way, keeps them for when
// the user tries again (the job's network settings), and shows none of
// their values.
//
// Not parallel: it sets the queue's process-wide keyring
// (queue.UseKeyring), so the header stays out of the system's keyring.
func TestAddURIOfMissingFileWithHeaders(t *testing.T) {
	queue.UseKeyring(nil) // as on a machine without one: kept for the session
	t.Cleanup(func() { queue.UseKeyring(nil) })
	b := newBraid(t, Options{})
	gone := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(gone.Close)
	gid := b.call(t, "aria2.addUri", []string{gone.URL + "/h.bin"}, map[string]any{
		"header": []string{"X-Token: hunter2"}, "max-download-limit": "64K"}).(string)
	st := b.waitStatus(t, gid, "error")
	if st["errorCode"] != "3" {
		t.Errorf("errorCode %v, want 3", st["errorCode"])
	}
	if raw, _ := json.Marshal(st); strings.Contains(string(raw), "hunter2") {
		t.Errorf("tellStatus shows the header's value: %s", raw)
	}
	j := b.lastJob(t)
	if s, ok, _, err := b.q.Net(j.ID); err != nil || !ok || len(s.Headers) != 1 {
		t.Errorf("the failed job's headers: %v %v (%v)", s.Headers, ok, err)
	}
	if got := b.call(t, "aria2.getOption", gid).(map[string]any)["max-download-limit"]; got != "65536" {
		t.Errorf("the failed job's own limit: %v", got)
	}
}
