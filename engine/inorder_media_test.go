package engine

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
)

// A video downloading in order can be read while it arrives: the pieces
// are written straight into NAME.part as they complete (no buffer of the
// engine's holds them back), so once the first pieces are whole, ffprobe
// reads the container's header and streams from the growing .part, long
// before the rest is there. The video is made by ffmpeg (lavfi's test
// pattern under noise, so it is about 5 MB of Matroska) and served by two
// throttled mirrors.
func TestInOrderPartPlaysWhileItArrives(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("ffmpeg and ffprobe are Linux programs here; Wine has none (the .part's sharing on Windows is held_windows_test's)")
	}
	ffmpeg, err1 := exec.LookPath("ffmpeg")
	ffprobe, err2 := exec.LookPath("ffprobe")
	if err1 != nil || err2 != nil {
		t.Skip("ffmpeg and ffprobe are not installed (Debian: apt-get install ffmpeg); this test makes a video with one and reads it with the other")
	}
	t.Parallel()
	src := filepath.Join(t.TempDir(), "clip.mkv")
	mk := exec.Command(ffmpeg, "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=25", "-vf", "noise=alls=60:allf=t",
		"-c:v", "mpeg4", "-q:v", "2", "-g", "25", "-f", "matroska", src)
	if b, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, b)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	const pl = 64 << 10
	a := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(512<<10))
	b := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"), mirrortest.Rate(512<<10))
	dir := t.TempDir()
	f := fileFor("clip.mkv", data, pl, urls(a, b)...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dl := (&Client{}).Do(ctx, &Request{Dir: dir, File: f, InOrder: true})
	part := filepath.Join(dir, "clip.mkv"+partSuffix)

	// Wait for the first 256 KiB to be whole: the header and the first
	// frames.
	const want = 256 << 10
	var whole int64
	var snap Snapshot
	for whole < want {
		select {
		case <-dl.Done():
			t.Fatalf("the download ended (%v) before the test could read the .part; %d bytes is too small a video", dl.Err(), len(data))
		case <-time.After(20 * time.Millisecond):
		}
		dl.SnapshotInto(&snap)
		whole = 0
		for _, st := range snap.Pieces {
			if st != PieceDone {
				break
			}
			whole += pl
		}
	}
	done := 0
	for _, st := range snap.Pieces {
		if st == PieceDone {
			done++
		}
	}
	if done*2 > len(snap.Pieces) {
		t.Fatalf("%d of %d pieces were done already: the test would not show a growing file", done, len(snap.Pieces))
	}
	got, err := os.ReadFile(part)
	if err != nil {
		t.Fatalf("the growing file: %v", err)
	}
	if len(got) < want || !bytes.Equal(got[:want], data[:want]) {
		t.Fatalf("the first %d bytes of %s differ from the video's while its first pieces are done", want, part)
	}
	probe := exec.Command(ffprobe, "-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "default=noprint_wrappers=1", part)
	out, err := probe.CombinedOutput()
	t.Logf("ffprobe on %s with %d of %d pieces done:\n%s", filepath.Base(part), done, len(snap.Pieces), out)
	if err != nil {
		t.Fatalf("ffprobe could not read the growing file: %v\n%s", err, out)
	}
	for _, w := range []string{"codec_name=mpeg4", "width=320", "height=240"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("ffprobe does not find %s in the growing file", w)
		}
	}
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "clip.mkv", data)
}
