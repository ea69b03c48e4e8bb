package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"slices"
	"sync"
	"time"

	"braid/engine/metalink"
)

// memBackend is an in-memory Backend for the window's tests: a queue of
// jobs whose progress a test moves by hand. It records every command so a
// test can assert what the window asked for. The real queue and engine
// are tested in their packages and through bridge.go.
type memBackend struct {
	mu       sync.Mutex
	jobs     []*memJob
	nextID   JobID
	settings Settings
	schedule Schedule
	calls    []string
	failNext error // returned by the next command, then cleared

	activeReads int // calls of Active, for the ticker tests
	jobsReads   int
}

type memJob struct {
	Detail
}

var _ Backend = (*memBackend)(nil)

func newMemBackend() *memBackend {
	return &memBackend{settings: Settings{Dir: "/home/user/Downloads", Languages: []string{"en"}, OS: []string{"Linux-x64"}}}
}

func (b *memBackend) called(format string, args ...any) error {
	b.calls = append(b.calls, fmt.Sprintf(format, args...))
	err := b.failNext
	b.failNext = nil
	return err
}

func (b *memBackend) Calls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.calls)
}

func (b *memBackend) find(id JobID) (*memJob, int) {
	for i, j := range b.jobs {
		if j.ID == id {
			return j, i
		}
	}
	return nil, -1
}

// put adds a job as a test describes it and returns its ID.
func (b *memBackend) put(d Detail) JobID {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	d.ID = b.nextID
	b.jobs = append(b.jobs, &memJob{Detail: d})
	return d.ID
}

// update changes a job as the engine would.
func (b *memBackend) update(id JobID, f func(*Detail)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if j, _ := b.find(id); j != nil {
		f(&j.Detail)
	}
}

func (b *memBackend) Jobs() ([]Job, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.jobsReads++
	out := make([]Job, len(b.jobs))
	for i, j := range b.jobs {
		out[i] = j.Job
	}
	return out, nil
}

func (b *memBackend) Active() []Job {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.activeReads++
	var out []Job
	for _, j := range b.jobs {
		if j.State == Running || j.State == Verifying {
			out = append(out, j.Job)
		}
	}
	return out
}

func (b *memBackend) Detail(id JobID, pieces bool) (Detail, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	j, _ := b.find(id)
	if j == nil {
		return Detail{}, fmt.Errorf("job %d: no such job", id)
	}
	d := j.Detail
	d.Files = slices.Clone(d.Files)
	if !pieces {
		for i := range d.Files {
			d.Files[i].Pieces = PieceMap{}
		}
	}
	return d, nil
}

func (b *memBackend) Open(_ context.Context, source string) (*metalink.Document, error) {
	if u, err := url.Parse(source); err == nil && u.Host != "" {
		return &metalink.Document{Version: 4, Files: []metalink.File{{
			Name: path.Base(u.Path),
			Size: -1,
			URLs: []metalink.URL{{URL: source, Priority: metalink.LowestPriority}},
		}}}, nil
	}
	f, err := os.Open(source)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return metalink.Parse(f)
}

func (b *memBackend) Add(_ context.Context, req AddRequest) (JobID, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.called("add %s %v paused=%v dir=%s", req.Source, req.Files, req.Paused, req.Dir); err != nil {
		return 0, err
	}
	if len(req.Files) == 0 {
		return 0, errors.New("no file selected")
	}
	b.nextID++
	d := Detail{Job: Job{ID: b.nextID, Source: req.Source, Dir: req.Dir, State: Queued, ETA: -1}}
	if req.Paused {
		d.State = Paused
	}
	for _, f := range req.Doc.Files {
		if !slices.Contains(req.Files, f.Name) {
			continue
		}
		fd := FileDetail{Name: f.Name, Size: f.Size, Hashes: f.Hashes, ETA: -1}
		for _, u := range f.URLs {
			fd.Mirrors = append(fd.Mirrors, MirrorDetail{URL: u.URL, Host: hostOf(u.URL), Location: u.Location, Priority: u.Priority})
		}
		d.Files = append(d.Files, fd)
		d.Size += f.Size
	}
	d.Name = d.Files[0].Name
	if len(d.Files) > 1 {
		d.Name += fmt.Sprintf(" (+%d more)", len(d.Files)-1)
	}
	b.jobs = append(b.jobs, &memJob{Detail: d})
	return d.ID, nil
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Host
}

func (b *memBackend) setState(op string, id JobID, from []JobState, to JobState) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.called("%s %d", op, id); err != nil {
		return err
	}
	j, _ := b.find(id)
	if j == nil {
		return fmt.Errorf("job %d: no such job", id)
	}
	if !slices.Contains(from, j.State) {
		return fmt.Errorf("job %d is %s", id, j.State)
	}
	j.State, j.Speed, j.ETA = to, 0, -1
	return nil
}

func (b *memBackend) Pause(id JobID) error {
	return b.setState("pause", id, []JobState{Queued, Running}, Paused)
}

func (b *memBackend) Resume(id JobID) error {
	return b.setState("resume", id, []JobState{Paused, Failed}, Queued)
}

func (b *memBackend) Remove(id JobID) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.called("remove %d", id); err != nil {
		return err
	}
	_, i := b.find(id)
	if i < 0 {
		return fmt.Errorf("job %d: no such job", id)
	}
	b.jobs = slices.Delete(b.jobs, i, i+1)
	return nil
}

func (b *memBackend) Move(id JobID, index int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.called("move %d %d", id, index); err != nil {
		return err
	}
	j, i := b.find(id)
	if j == nil {
		return fmt.Errorf("job %d: no such job", id)
	}
	b.jobs = slices.Delete(b.jobs, i, i+1)
	b.jobs = slices.Insert(b.jobs, min(index, len(b.jobs)), j)
	return nil
}

func (b *memBackend) Verify(id JobID) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.called("verify %d", id)
}

func (b *memBackend) Repair(id JobID) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.called("repair %d", id)
}

func (b *memBackend) Settings() (Settings, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.settings, nil
}

func (b *memBackend) Schedule() (Schedule, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.schedule, nil
}

func (b *memBackend) SetSchedule(s Schedule) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.called("schedule"); err != nil {
		return err
	}
	b.schedule = s
	return nil
}

func (b *memBackend) SetSettings(s Settings) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.called("settings"); err != nil {
		return err
	}
	b.settings = s
	return nil
}

// sampleQueue fills b with a queue caught mid-afternoon: a download
// running over three mirrors, one waiting, one paused, one done, one that
// failed its checksum.
func sampleQueue(b *memBackend) (running JobID) {
	hashes := []metalink.Hash{{Type: "sha-256", Value: "3f0a377ba0a4a460ecb616f6507ce0d8cfa3e704025d4fda3ed0c5ca05468728"}}
	p := smallMap()
	done := int64(0)
	for _, s := range p.State {
		if s == PieceDone {
			done += 1 << 20
		}
	}
	running = b.put(Detail{
		Job: Job{Name: "debian-13.1.0-amd64-DVD-1.iso", Source: "https://cdimage.example.org/debian-13.1.0-amd64-DVD-1.iso.meta4",
			Dir: "/home/user/Downloads", State: Running, Size: 140 << 20, Done: done, Speed: 6.4 * (1 << 20), ETA: 9 * time.Second},
		Publisher: "Debian", Identity: "Debian", Version: "13.1.0", Origin: "https://cdimage.example.org/debian-13.1.0-amd64-DVD-1.iso.meta4",
		Files: []FileDetail{{
			Name: "debian-13.1.0-amd64-DVD-1.iso", Size: 140 << 20, Done: done, Speed: 6.4 * (1 << 20), ETA: 9 * time.Second, State: FileRunning,
			Hashes: hashes, PieceLength: 1 << 20, PieceHash: "sha-256", Signature: "application/pgp-signature",
			Mirrors: []MirrorDetail{
				{URL: "https://mirror.example.org/debian.iso", Host: "mirror.example.org", Location: "DE", Priority: 1, State: MirrorActive, Speed: 3.1 * (1 << 20), Bytes: 40 << 20},
				{URL: "ftp://ftp.example.net/debian.iso", Host: "ftp.example.net", Location: "NL", Priority: 1, State: MirrorActive, Speed: 2.2 * (1 << 20), Bytes: 35 << 20, Strikes: 1},
				{URL: "https://dl.example.de:8080/debian.iso", Host: "dl.example.de:8080", Location: "DE", Priority: 2, State: MirrorActive, Speed: 1.1 * (1 << 20), Bytes: 15 << 20},
				{URL: "https://slow.example.com/debian.iso", Host: "slow.example.com", Location: "US", Priority: 3, State: MirrorDropped, Err: "size 4 GiB, expected 140 MiB"},
			},
			Pieces: p,
		}},
	})
	b.put(Detail{Job: Job{Name: "ubuntu-24.04-desktop-amd64.iso", Dir: "/home/user/Downloads", State: Queued, Size: 6 << 30, ETA: -1}})
	b.put(Detail{Job: Job{Name: "fedora-workstation-41.iso (+1 more)", Dir: "/home/user/Downloads", State: Paused, Size: 2300 << 20, Done: 800 << 20, ETA: -1}})
	b.put(Detail{Job: Job{Name: "go1.26.linux-amd64.tar.gz", Dir: "/home/user/Downloads", State: Done, Size: 75 << 20, Done: 75 << 20, ETA: -1},
		Files: []FileDetail{{Name: "go1.26.linux-amd64.tar.gz", Size: 75 << 20, Done: 75 << 20, State: FileVerified, Hashes: hashes, Verification: "sha-256 matched"}}})
	b.put(Detail{Job: Job{Name: "blender-4.5-linux-x64.tar.xz", Dir: "/home/user/Downloads", State: Failed, Size: 360 << 20, Done: 360 << 20, ETA: -1,
		Mismatch: true, Err: "sha-256 mismatch"},
		Files: []FileDetail{{Name: "blender-4.5-linux-x64.tar.xz", Size: 360 << 20, Done: 360 << 20, State: FileMismatch, Hashes: hashes, Verification: "sha-256 did not match"}}})
	return running
}
