package queue

import (
	"errors"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/queue/queuetest"
)

// TestAddMember: a member job keeps the archive's document and the
// member's record, lists under the member's name and size with the
// archive's mirrors, with the archive's pieces that cover the member; the
// archive's own link finds no job in it, a paused add stays paused, a
// name the metalink rules refuse is refused, and removing the job
// forgets the member.
func TestAddMember(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	const link = "http://user:secret@mirror.example/sets/a.zip"
	doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: "a.zip", Size: 40 << 20,
		URLs: []metalink.URL{{URL: link, Priority: 1}}}}}
	m := Member{Name: "data/b.csv", Size: 9 << 20, CompressedSize: 3 << 20, Method: 8, CRC32: 0xdeadbeef,
		HeaderOffset: 5<<20 - 10, ArchiveSize: 40 << 20}
	id, err := q.Add(NewJob{Source: link, Dest: t.TempDir(), Doc: doc, Member: m, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != Paused || j.Name() != "data/b.csv" || len(j.Files) != 1 || j.Files[0].Size != 9<<20 {
		t.Fatalf("the job: %s %q %+v", j.State, j.Name(), j.Files)
	}
	if strings.Contains(j.Source, "secret") || j.Source != Redact(link) {
		t.Errorf("the source is stored as %q", j.Source)
	}
	if a, ok := j.ArchiveFile(); !ok || a.Name != "a.zip" || a.URLs[0].URL == link {
		t.Errorf("the archive's file: %+v (its credentials must not be stored)", a)
	}
	if len(j.Files[0].Mirrors) != 1 || j.Files[0].Mirrors[0].URL != Redact(link) {
		t.Errorf("the member's mirrors: %+v", j.Files[0].Mirrors)
	}
	// 1 MiB pieces: the member starts 10 bytes before 5 MiB and runs on
	// for its header, name and 3 MiB: pieces 4 to 8.
	first, count := m.Covering(1 << 20)
	if first != 4 || count != 5 || j.Files[0].Pieces != count {
		t.Errorf("covering pieces %d+%d, stored %d", first, count, j.Files[0].Pieces)
	}
	if j.Member == nil || *j.Member != m {
		t.Errorf("Get's Member = %+v; want %+v", j.Member, m)
	}
	if jobs, err := q.List(); err != nil || len(jobs) != 1 || jobs[0].Member == nil || *jobs[0].Member != m {
		t.Errorf("List: %+v, %v; want the member %+v", jobs, err, m)
	}
	if all, err := q.memberJobs(); err != nil || len(all) != 1 || all[id] != m {
		t.Errorf("memberJobs = %v, %v", all, err)
	}
	if other, found, err := q.JobFor(link, ""); err != nil || found {
		t.Errorf("the archive's link finds job %d (%v): a member job is not the archive's", other, err)
	}
	if _, err := q.Add(NewJob{Source: link, Dest: t.TempDir(), Doc: doc, Member: Member{Name: "../evil", Size: 1}}); err == nil {
		t.Error("a member named ../evil was added")
	}
	if err := q.Remove(id); err != nil {
		t.Fatal(err)
	}
	if all, err := q.memberJobs(); len(all) != 0 || err != nil {
		t.Errorf("after Remove the member is still kept: %v, %v", all, err)
	}
	if _, err := q.Get(id); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Remove: %v", err)
	}
}
