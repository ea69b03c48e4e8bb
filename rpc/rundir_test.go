package rpc

import (
	"path/filepath"
	"testing"

	"braid/queue"
)

// changeGlobalOption's dir lasts for the RPC server's run, as in aria2:
// the next adds over the RPC go there, and the download folder kept in
// the settings (the window's, the command line's) is unchanged, for this
// run's other faces and for the next run.
func TestChangedDirLastsForTheRun(t *testing.T) {
	t.Parallel()
	for _, fromFlag := range []bool{false, true} {
		name := "from the settings"
		if fromFlag {
			name = "from queue run -d"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			state := t.TempDir()
			b := openBraid(t, state, t.TempDir(), Options{})
			saved := t.TempDir()
			if err := b.q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = saved }); err != nil {
				t.Fatal(err)
			}
			if !fromFlag {
				b.dl.SetDir("") // braid queue run without -d
			}
			runDir := filepath.Join(t.TempDir(), "for-this-run")
			b.call(t, "aria2.changeGlobalOption", map[string]any{"dir": runDir})
			if got := b.call(t, "aria2.getGlobalOption").(map[string]any)["dir"]; got != runDir {
				t.Errorf("getGlobalOption dir %v, want %s", got, runDir)
			}
			gid := b.call(t, "aria2.addUri", []string{"http://127.0.0.1:1/next.bin"}, map[string]any{"pause": "true"}).(string)
			if got := b.call(t, "aria2.tellStatus", gid, []string{"dir"}).(map[string]any)["dir"]; got != runDir {
				t.Errorf("the next add went to %v, want %s", got, runDir)
			}
			s, err := b.q.Settings()
			if err != nil || s.DownloadDir != saved {
				t.Errorf("the stored download folder is %q (%v), want it unchanged: %s", s.DownloadDir, err, saved)
			}
			// Another face of the same queue (the window) still saves in
			// the user's folder.
			other := &QueueDownloads{Queue: b.q}
			if g, err := other.GlobalOptions(); err != nil || g.Dir != saved {
				t.Errorf("another face's folder %q (%v), want %s", g.Dir, err, saved)
			}
		})
	}
}
