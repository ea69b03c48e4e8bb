package torrent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/anacrolix/torrent/metainfo"

	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
)

// Transmission is the only seeder, a client Braid did not write. It
// announces reqq 512 and holds 511 requests; before fitRequestQueue the
// download stalled for good at 16,744,448 bytes, so the file is larger
// than that.
func TestFromTransmission(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("transmission-daemon")
	if err != nil {
		t.Skip("needs transmission-daemon (Debian: transmission-daemon)")
	}
	data := randomBytes(t, 20<<20+12345)
	// A daemon that sends nothing at all is tried again on fresh ports:
	// on a loaded machine the port freePort found can be taken by another
	// test before the daemon binds it. A download that starts and stalls
	// is the bug this test is for, and fails at once.
	for attempt := 1; ; attempt++ {
		dir := t.TempDir()
		mi := torrenttest.Make(t, filepath.Join(dir, "data"), "trx.bin", 256<<10, []testFile{{Data: data}})
		peer := startTransmission(t, bin, dir, mi)
		spec := specOf(t, mi)
		spec.Peers = []string{peer}
		dest := t.TempDir()
		j, err := run(t, newTestClient(t), &Request{Dir: dest, Spec: spec})
		if j == nil {
			t.Fatal(err)
		}
		if err != nil {
			got := j.Snapshot().Bytes
			if got == 0 && attempt < 3 {
				t.Logf("attempt %d: nothing from transmission-daemon at %s (%v); again on other ports", attempt, peer, err)
				continue
			}
			t.Fatalf("%v after %d of %d bytes", err, got, len(data))
		}
		sameFile(t, dest, "trx.bin", data)
		if s := j.Snapshot(); s.Mirrors[0].Useful != int64(len(data)) {
			t.Fatalf("peers delivered %d useful bytes, want %d", s.Mirrors[0].Useful, len(data))
		}
		return
	}
}

// startTransmission runs transmission-daemon on loopback with its own
// config folder under dir, seeding mi from dir/data, and returns its peer
// address once it seeds. It is stopped by t.Cleanup.
func startTransmission(t *testing.T, bin, dir string, mi *metainfo.MetaInfo) string {
	t.Helper()
	cfg, watch := filepath.Join(dir, "cfg"), filepath.Join(dir, "watch")
	for _, d := range []string{cfg, watch} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	peerPort, rpcPort := testkit.FreePort(t), testkit.FreePort(t)
	settings := map[string]any{
		"bind-address-ipv4": "127.0.0.1", "bind-address-ipv6": "::1",
		"peer-port": peerPort, "peer-port-random-on-start": false,
		"dht-enabled": false, "lpd-enabled": false, "pex-enabled": false,
		"port-forwarding-enabled": false,
		"rpc-enabled":             true, "rpc-bind-address": "127.0.0.1", "rpc-port": rpcPort,
		"rpc-authentication-required": false, "rpc-whitelist": "127.0.0.1",
		"rpc-host-whitelist-enabled": false,
		"download-dir":               filepath.Join(dir, "data"), "incomplete-dir-enabled": false,
		"watch-dir-enabled": true, "watch-dir": watch, "start-added-torrents": true,
		"ratio-limit-enabled": false, "message-level": 1,
	}
	b, err := json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(watch, "trx.torrent"))
	if err != nil {
		t.Fatal(err)
	}
	if err := mi.Write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd := exec.Command(bin, "--foreground", "--config-dir", cfg)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	rpc := &transmissionRPC{url: fmt.Sprintf("http://127.0.0.1:%d/transmission/rpc", rpcPort)}
	deadline := time.Now().Add(time.Minute)
	for {
		done, err := rpc.seeding()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("transmission-daemon does not seed: %v\n%s", err, logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Sprintf("127.0.0.1:%d", peerPort)
}

// transmissionRPC asks transmission-daemon's JSON RPC about its torrents.
type transmissionRPC struct {
	url, session string
}

// seeding reports whether every torrent the daemon has is complete and
// seeding (status 6).
func (r *transmissionRPC) seeding() (bool, error) {
	body := `{"method":"torrent-get","arguments":{"fields":["percentDone","status"]}}`
	for range 2 {
		req, err := http.NewRequest(http.MethodPost, r.url, strings.NewReader(body))
		if err != nil {
			return false, err
		}
		req.Header.Set("X-Transmission-Session-Id", r.session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, err
		}
		var out struct {
			Result    string
			Arguments struct {
				Torrents []struct {
					PercentDone float64
					Status      int
				}
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if resp.StatusCode == http.StatusConflict { // the session id to use
			r.session = resp.Header.Get("X-Transmission-Session-Id")
			continue
		}
		if err != nil {
			return false, fmt.Errorf("%s: %w", resp.Status, err)
		}
		ts := out.Arguments.Torrents
		if len(ts) == 0 {
			return false, fmt.Errorf("no torrent yet (%s)", out.Result)
		}
		for _, tr := range ts {
			if tr.PercentDone < 1 || tr.Status != 6 {
				return false, fmt.Errorf("at %.0f%%, status %d", tr.PercentDone*100, tr.Status)
			}
		}
		return true, nil
	}
	return false, fmt.Errorf("no session id")
}
