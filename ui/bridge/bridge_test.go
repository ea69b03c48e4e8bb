package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
	"braid/ui"
)

const pieceLen = 64 << 10

// openQueue opens a queue in a fresh folder for one test.
func openQueue(t *testing.T) *queue.Queue {
	t.Helper()
	return queuetest.Open(t, queue.Open, t.TempDir())
}

func newBackend(t *testing.T, q *queue.Queue) *Backend {
	t.Helper()
	b := New(q, nil)
	t.Cleanup(func() { b.Close() })
	return b
}

// payload is n bytes that differ from piece to piece.
func payload(n int) []byte { return mirrortest.Bytes(n, 12) }

// ownPayload is n bytes of t's own, so a torrent of them is t's own: two
// tests that run in parallel with one torrent (the same name and
// payload) can meet, as when a leecher of one redialed a port the
// other's client had been given since, and was all that client had as
// a peer (its download stalled, a failure seen under load).
func ownPayload(t *testing.T, n int) []byte {
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	return mirrortest.Bytes(n, h.Sum64())
}

// describeData returns the metalink description of data, with piece hashes,
// and the given mirrors.
func describeData(t *testing.T, name string, data []byte, urls ...string) metalink.File {
	t.Helper()
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), name, pieceLen, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, u := range urls {
		f.URLs = append(f.URLs, metalink.URL{URL: u, Priority: i + 1, Location: "DE"})
	}
	return f
}

// waitForJob is testkit.WaitFor, saying at the timeout what the job's row and
// live torrent showed: a stall's cause is then in the failure. It waits a
// minute: a torrent's first start from the test seeder once took more
// than 30 s in the Windows run (Wine, on a loaded machine), with no
// failure to show; a minute still ends a real stall.
func waitForJob(t *testing.T, b *Backend, id ui.JobID, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			j := jobByID(t, b, id)
			msg := fmt.Sprintf("timed out waiting for %s; the row: %v, %d of %d bytes, error %q", what, j.State, j.Done, j.Size, j.Err)
			if qj, err := b.q.Get(int64(id)); err == nil {
				msg += fmt.Sprintf("; the queue: %s, error %q", qj.State, qj.Error)
			}
			if tj, ok := b.runner.LiveTorrent(int64(id)); ok {
				s := tj.Snapshot()
				msg += fmt.Sprintf("; the torrent: phase %v, %d of %d pieces verified, %d bytes, %d peers, error %v", s.Phase, s.Verified, len(s.Pieces), s.Bytes, s.Peers, s.Err)
			} else {
				msg += "; no torrent running for it"
			}
			// Whether or not the job runs a torrent now: the client's
			// account shows a torrent that ended or never started too.
			if cl, err := b.runner.TorrentClient(); err == nil {
				var st strings.Builder
				cl.WriteStatus(&st)
				msg += "\nBraid's BitTorrent client's status:\n" + st.String()
			}
			t.Fatal(msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func jobByID(t *testing.T, b *Backend, id ui.JobID) ui.Job {
	t.Helper()
	jobs, err := b.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if j.ID == id {
			return j
		}
	}
	t.Fatalf("job %d not listed", id)
	return ui.Job{}
}

func TestCommands(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	dir := t.TempDir()
	doc := &metalink.Document{Version: 4, Files: []metalink.File{
		describeData(t, "a.bin", payload(100_000), "https://a.example/a.bin", "https://b.example/a.bin"),
		describeData(t, "b.bin", payload(50_000), "https://a.example/b.bin"),
	}}
	doc.Files[0].Publisher = metalink.Party{Name: "Example Org"}
	doc.Files[0].Version = "2.0"
	ctx := context.Background()
	first, err := b.Add(ctx, ui.AddRequest{Source: "x.meta4", Doc: doc, Files: []string{"a.bin"}, Dir: dir, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.Add(ctx, ui.AddRequest{Source: "y.meta4", Doc: doc, Dir: dir, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	j := jobByID(t, b, first)
	if j.Name != "a.bin" || j.Size != 100_000 || j.State != ui.Paused || j.Dir != dir || j.Source != "x.meta4" {
		t.Errorf("first job %+v", j)
	}
	if j := jobByID(t, b, second); j.Name != "a.bin (+1 more)" || j.Size != 150_000 {
		t.Errorf("second job %+v", j)
	}

	if err := b.Resume(first); err != nil {
		t.Fatal(err)
	}
	if j := jobByID(t, b, first); j.State != ui.Queued {
		t.Errorf("resumed job is %v", j.State)
	}
	if err := b.Pause(first); err != nil {
		t.Fatal(err)
	}
	if err := b.Move(second, 0); err != nil {
		t.Fatal(err)
	}
	jobs, _ := b.Jobs()
	if jobs[0].ID != second || jobs[1].ID != first {
		t.Errorf("order after move: %d, %d", jobs[0].ID, jobs[1].ID)
	}

	d, err := b.Detail(first, true)
	if err != nil {
		t.Fatal(err)
	}
	if d.Publisher != "Example Org" || d.Version != "2.0" || len(d.Files) != 1 {
		t.Fatalf("detail %+v", d)
	}
	f := d.Files[0]
	if f.PieceHash != "sha-256" || f.PieceLength != pieceLen || len(f.Hashes) == 0 || f.Pieces.Len() != 2 {
		t.Errorf("file detail %+v", f)
	}
	if hosts := []string{f.Mirrors[0].Host, f.Mirrors[1].Host}; !slices.Equal(hosts, []string{"a.example", "b.example"}) {
		t.Errorf("mirror hosts %q", hosts)
	}
	if d, _ := b.Detail(first, false); d.Files[0].Pieces.Len() != 0 {
		t.Error("pieces copied though not asked for")
	}

	if err := b.Remove(first); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Detail(first, false); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("detail of a removed job: %v", err)
	}
	if jobs, _ := b.Jobs(); len(jobs) != 1 {
		t.Errorf("%d jobs after remove", len(jobs))
	}
	if err := b.Resume(second + 100); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("resume of a missing job: %v", err)
	}
}

func TestSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	b := newBackend(t, openQueue(t))
	s, err := b.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if s.Dir == "" || len(s.OS) == 0 {
		t.Errorf("defaults missing: %+v", s)
	}
	want := ui.Settings{Dir: "/data", Languages: []string{"de", "en"}, OS: []string{"Linux-x64"}, Countries: []string{"DE"},
		MaxConns: 12, MaxConnsPerMirror: 2, SpeedLimit: 1 << 20, StartOnLaunch: false}
	if err := b.SetSettings(want); err != nil {
		t.Fatal(err)
	}
	got, err := b.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Languages, want.Languages) || got.Dir != want.Dir || got.MaxConnsPerMirror != 2 ||
		got.MaxConns != 12 || got.SpeedLimit != 1<<20 || got.StartOnLaunch || !slices.Equal(got.Countries, want.Countries) {
		t.Errorf("settings %+v, want %+v", got, want)
	}
	c := b.svc.Client()
	if c.MaxConns != 12 || c.MaxConnsPerMirror != 2 || c.Limit != 1<<20 {
		t.Errorf("engine client %+v does not follow the settings", c)
	}
	if qs, err := b.q.Settings(); err != nil || qs.MaxConnsPerMirror != 2 {
		t.Errorf("the queue's settings have MaxConnsPerMirror %d, %v; want 2", qs.MaxConnsPerMirror, err)
	}
}

// TestDownloadVerifyRepair runs the whole life of a job through the
// bridge with real parts: the runner downloads from two loopback mirrors
// into a real folder, Verify finds the file good, a damaged byte makes it
// a checksum mismatch, and Repair fetches only the bad piece again.
func TestDownloadVerifyRepair(t *testing.T) {
	t.Parallel()
	data := payload(40 * pieceLen)
	m1 := mirrortest.New(t, data, mirrortest.Rate(400<<10))
	m2 := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(400<<10))
	f := describeData(t, "data.bin", data, m1.URL(), m2.URL())
	q := openQueue(t)
	b := newBackend(t, q)
	dir := t.TempDir()
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	id, err := b.Add(context.Background(), ui.AddRequest{Source: "data.meta4", Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}

	// While it runs, Active reports it live and Detail shows the engine's
	// own view: mirrors by host and a piece map.
	sawLive := false
	testkit.WaitFor(t, "the download to finish", func() bool {
		for _, j := range b.Active() {
			if j.ID == id && j.State == ui.Running && j.Done > 0 {
				if d, err := b.Detail(id, true); err == nil && d.Files[0].Pieces.Len() == 40 && len(d.Files[0].Mirrors) == 2 {
					sawLive = true
				}
			}
		}
		return jobByID(t, b, id).State == ui.Done
	})
	if !sawLive {
		t.Error("never saw live progress with pieces and mirrors")
	}
	got, err := os.ReadFile(filepath.Join(dir, "data.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded file differs (%v)", err)
	}
	// Finished this session, its map still says which mirror filled what.
	d, err := b.Detail(id, true)
	if err != nil {
		t.Fatal(err)
	}
	byMirror := map[int16]int{}
	for i, s := range d.Files[0].Pieces.State {
		if s != ui.PieceDone {
			t.Fatalf("piece %d of a finished file is %v", i, s)
		}
		byMirror[d.Files[0].Pieces.Mirror[i]]++
	}
	if byMirror[ui.NoMirror] > 0 || len(byMirror) != 2 || len(d.Files[0].Mirrors) != 2 {
		t.Errorf("pieces by mirror %v, mirrors %d: want both mirrors credited", byMirror, len(d.Files[0].Mirrors))
	}
	// The Mirrors tab, without the map, says what each sent too (it said
	// 0 B for both once the download had ended).
	if d, err = b.Detail(id, false); err != nil {
		t.Fatal(err)
	}
	var sent int64
	for _, m := range d.Files[0].Mirrors {
		if m.Bytes <= 0 {
			t.Errorf("mirror %s sent %d bytes, by the Mirrors tab of a download it helped", m.Host, m.Bytes)
		}
		sent += m.Bytes
	}
	if sent < int64(len(data)) {
		t.Errorf("the mirrors sent %d bytes in all, fewer than the file's %d", sent, len(data))
	}

	if err := b.Verify(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "verify", func() bool { return len(b.Active()) == 0 })
	if j := jobByID(t, b, id); j.State != ui.Done || j.Mismatch {
		t.Fatalf("verified job %+v", j)
	}
	if d, _ := b.Detail(id, false); d.Files[0].State != ui.FileVerified || !strings.HasPrefix(d.Files[0].Verification, "verified (sha-256); Verify checked it again at ") {
		t.Errorf("file %+v", d.Files[0])
	}
	// Info counts the pieces without the segment map loaded.
	if d, _ := b.Detail(id, false); d.Files[0].PieceCount != len(data)/pieceLen {
		t.Errorf("Info would say %d pieces, want %d", d.Files[0].PieceCount, len(data)/pieceLen)
	}
	if j := jobByID(t, b, id); j.Outcome != "verified (sha-256)" {
		t.Errorf("the verified job says %q", j.Outcome)
	}

	// Damage piece 7.
	damaged := slices.Clone(data)
	damaged[7*pieceLen+100] ^= 0xff
	if err := os.WriteFile(filepath.Join(dir, "data.bin"), damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.Verify(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "verify", func() bool { return len(b.Active()) == 0 })
	j := jobByID(t, b, id)
	if j.State != ui.Failed || !j.Mismatch || j.Err != "What arrived does not match the file's hash." || !strings.Contains(j.ErrDetail, "(1 bad piece)") {
		t.Fatalf("damaged job %+v", j)
	}
	if d, _ := b.Detail(id, false); d.Files[0].State != ui.FileMismatch {
		t.Errorf("damaged file shows %v", d.Files[0].State)
	}
	// The segment map shows the bad piece bad, not every piece done.
	if d, _ := b.Detail(id, true); len(d.Files[0].Pieces.State) <= 7 || d.Files[0].Pieces.State[7] != ui.PieceBad ||
		!strings.Contains(d.Files[0].Pieces.Summary(), "1 failed the hash") {
		t.Errorf("the damaged file's segment map says %q", d.Files[0].Pieces.Summary())
	}

	// The repair mends the file in place: it never leaves its name (no
	// NAME.part, the same file on disk) and only the bad piece is fetched.
	before, err := os.Stat(filepath.Join(dir, "data.bin"))
	if err != nil {
		t.Fatal(err)
	}
	served := m1.BytesServed() + m2.BytesServed()
	if err := b.Repair(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the repair", func() bool {
		if _, err := os.Stat(filepath.Join(dir, "data.bin.part")); err == nil {
			t.Fatal("the repair renamed the file to data.bin.part")
		}
		return jobByID(t, b, id).State == ui.Done
	})
	after, err := os.Stat(filepath.Join(dir, "data.bin"))
	if err != nil || !os.SameFile(before, after) {
		t.Errorf("the repaired file is not the one that was damaged (%v)", err)
	}
	// The engine's repair names the hash that proved the mended file
	// (its sha-256 pieces here: they cover the whole-file hash).
	qj, err := q.Get(int64(id))
	if err != nil || !strings.HasPrefix(qj.Files[0].VerifiedBy, "sha-256") {
		t.Fatalf("the queue records the repaired file verified by %q (%v)", qj.Files[0].VerifiedBy, err)
	}
	if j := jobByID(t, b, id); j.Mismatch || j.Outcome != qj.Checked() || j.Unverified {
		t.Errorf("the repaired job: mismatch %v, outcome %q", j.Mismatch, j.Outcome)
	}
	got, err = os.ReadFile(filepath.Join(dir, "data.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("repaired file differs (%v)", err)
	}
	if again := m1.BytesServed() + m2.BytesServed() - served; again > 2*pieceLen {
		t.Errorf("repair fetched %d bytes for one bad piece of %d", again, pieceLen)
	}
}

func TestVerifyRefusesRunningJob(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	doc := &metalink.Document{Version: 4, Files: []metalink.File{describeData(t, "x.bin", payload(1000), "https://a.example/x.bin")}}
	id, err := b.Add(context.Background(), ui.AddRequest{Source: "x", Doc: doc, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Verify(id); err == nil || !strings.Contains(err.Error(), "pause it first") {
		t.Errorf("verify of a queued job: %v", err)
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	b := newBackend(t, openQueue(t))
	data := payload(1000)
	f := describeData(t, "x.bin", data, "https://a.example/x.bin")
	var buf bytes.Buffer
	if err := metalink.Write(&buf, &metalink.Document{Version: 4, Files: []metalink.File{f}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.meta4")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	served := mirrortest.New(t, buf.Bytes(), mirrortest.Path("/pub/x.meta4"), mirrortest.Header("Content-Type", "application/metalink4+xml"))
	plain := mirrortest.New(t, data, mirrortest.Path("/pub/file.iso"))
	tests := []struct {
		source  string
		name    string
		size    int64
		wantErr string
	}{
		{path, "x.bin", 1000, ""},
		{served.URL(), "x.bin", 1000, ""},
		{plain.URL(), "file.iso", 1000, ""},
		// The system's words for a missing file differ ("no such file",
		// "File not found."); the name and errors.Is are the same.
		{filepath.Join(t.TempDir(), "missing.meta4"), "", 0, "missing.meta4"},
		{filepath.Join(t.TempDir(), "missing.torrent"), "", 0, "read the torrent"},
		{"magnet:?xt=urn:btih:00", "", 0, "read the torrent"},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			doc, err := b.Open(context.Background(), tt.source)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				if strings.HasPrefix(filepath.Base(tt.source), "missing.meta4") && !errors.Is(err, os.ErrNotExist) {
					t.Errorf("err %v is not os.ErrNotExist", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Files) != 1 || doc.Files[0].Name != tt.name || doc.Files[0].Size != tt.size || doc.Origin == "" {
				t.Errorf("doc %+v", doc)
			}
		})
	}
}
