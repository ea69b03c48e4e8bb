package ui

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"

	"braid/engine/metalink"
)

// statesQueue fills b with a job in every state of DESIGN's vocabulary,
// as the bridge will report them, and returns the signed HTTP job.
func statesQueue(b *memBackend) (signed JobID) {
	sampleQueue(b)
	dir := "/home/user/Downloads"
	b.put(Detail{Job: Job{Name: "ubuntu-24.04-live-server-amd64.iso", Dir: dir, State: FetchingMetadata, Size: -1, ETA: -1, Peers: 4}})
	b.put(Detail{Job: Job{Name: "archlinux-2026.11.01-x86_64.iso", Dir: dir, State: Waiting, Size: 1200 << 20, Done: 300 << 20, ETA: -1,
		Err: "timeouts", NextTry: now().Add(42 * time.Second)}})
	b.put(Detail{Job: Job{Name: "linuxmint-22-cinnamon-64bit.iso", Dir: dir, State: Seeding, Size: 2900 << 20, Done: 2900 << 20, ETA: -1,
		Peers: 17, Seeds: 5, Ratio: 1.42, Upload: 850 << 10}})
	b.put(Detail{Job: Job{Name: "gimp-3.0.4.tar.xz", Dir: dir, State: Repairing, Size: 31 << 20, Done: 29 << 20, ETA: -1}})
	b.put(Detail{Job: Job{Name: "blender-4.5-linux-x64.tar.xz.sig", Dir: dir, State: Verifying, Size: 1 << 10, Done: 1 << 10, ETA: -1}})
	b.put(Detail{Job: Job{Name: "notes-2026.pdf", Dir: dir, State: Done, Size: 2 << 20, Done: 2 << 20, ETA: -1, Unverified: true, Outcome: "not verified"}})
	b.put(Detail{Job: Job{Name: "arxiv.org resource list (240 files)", Dir: dir, State: Synced, Size: 880 << 20, Done: 880 << 20, ETA: -1,
		Outcome: "240 files match the source"}})
	signed = b.put(Detail{Job: Job{Name: "debian-13.1.0-arm64-netinst.iso", Source: "https://cdimage.example.org/debian-13.1.0-arm64-netinst.iso.meta4",
		Dir: dir, State: Done, Size: 680 << 20, Done: 680 << 20, ETA: -1,
		Outcome: "verified (sha-256)", Signer: "Debian CD signing key <debian-cd@lists.debian.org>"},
		Publisher: "Debian", Identity: "Debian GNU/Linux", Version: "13.1.0", License: "DFSG",
		Description: "The Debian installer for 64-bit ARM, small image that fetches the rest over the network.",
		Files: []FileDetail{{Name: "debian-13.1.0-arm64-netinst.iso", Size: 680 << 20, Done: 680 << 20, State: FileVerified,
			Hashes:      []metalink.Hash{{Type: "sha-256", Value: "3f0a377ba0a4a460ecb616f6507ce0d8cfa3e704025d4fda3ed0c5ca05468728"}},
			PieceLength: 4 << 20, PieceHash: "sha-256", Signature: "application/pgp-signature", Verification: "sha-256 matched"}}})
	b.put(Detail{Job: Job{Name: "mystery-tool-0.9.tar.gz", Dir: dir, State: Done, Size: 4 << 20, Done: 4 << 20, ETA: -1,
		Outcome: "verified (sha-256)", Signer: "0x5A1B2C3D4E5F6071", SignerUnknown: true}})
	b.put(Detail{Job: Job{Name: "old-release.tar.gz", Dir: dir, State: Failed, Size: 12 << 20, Done: 3 << 20, ETA: -1, Err: "404 Not Found from every mirror"}})
	return signed
}

// TestStatesGolden draws the queue with a job in every state, and the
// details of a signed HTTP job, in light: the pictures docs/ shows. With
// BRAID_UPDATE_SCREENSHOT=1 they are copied to docs/.
func TestStatesGolden(t *testing.T) {
	now = func() time.Time { return time.Date(2026, 11, 23, 15, 0, 0, 0, time.Local) }
	t.Cleanup(func() { now = time.Now })
	b := newMemBackend()
	signed := statesQueue(b)
	w, _ := newTestWindow(t, b)
	w.Win.Resize(w.Win.Canvas().Size().AddWidthHeight(0, 110))
	w.Split.SetOffset(0.93)
	w.Tick()
	w.Win.Content().Refresh()
	assertGolden(t, "queue_states.png", w.Win.Canvas().Capture())

	w.Split.SetOffset(0.45)
	w.Select(signed)
	w.Details.Tabs.Select(w.Details.InfoTab)
	w.Tick()
	w.Win.Content().Refresh()
	assertGolden(t, "details_trust.png", w.Win.Canvas().Capture())
	found := false
	for i := 0; i < len(w.Details.Info.Objects); i += 2 {
		if l, ok := w.Details.Info.Objects[i].(*widget.Label); ok && l.Text == "Signed by" {
			found = true
		}
	}
	if !found {
		t.Error("the details of a signed job do not say who signed it")
	}
	if os.Getenv("BRAID_UPDATE_SCREENSHOT") == "1" {
		for _, n := range []string{"queue_states.png", "details_trust.png"} {
			src, err := os.ReadFile(filepath.Join("testdata", n))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := png.Decode(bytes.NewReader(src)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("..", "docs", n), src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
