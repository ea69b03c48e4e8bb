package queue

import (
	"database/sql"
	"errors"
	"fmt"

	"braid/engine/metalink"
	"braid/engine/piece"
)

// A member job fetches one member of a ZIP archive, not the archive
// (issue 36): the job's source is the archive's, its document the
// archive's (one file: the archive, with its mirrors and piece hashes),
// and its one file row the member, under the member's path, so every
// face lists it by the member's name and size. The member's pieces are
// the archive's pieces that cover the bytes the member occupies (its local
// header and compressed bytes), which is what a run fetches.

// Member is what the archive's directory said of a member when its job
// was added.
type Member struct {
	Name           string // its path inside the archive, slash-separated
	Size           int64  // bytes once inflated
	CompressedSize int64  // bytes in the archive
	Method         uint16 // 0 stored, 8 deflate
	CRC32          uint32
	HeaderOffset   int64 // where its local header starts in the archive; -1 unknown
	ArchiveSize    int64 // the archive's bytes
}

// localHeader is the fixed part of a ZIP local file header; its name
// follows, and an extra field the directory does not tell the length of.
const localHeader = 30

// Span is the archive's byte range [start, end) the member occupies as
// far as the directory tells: its local header, its name and its
// compressed bytes (the local extra field, which only the local header
// gives, can move the end a little further). start is -1 when the
// directory gave no offset.
func (m Member) Span() (start, end int64) {
	if m.HeaderOffset < 0 {
		return -1, -1
	}
	end = m.HeaderOffset + localHeader + int64(len(m.Name)) + m.CompressedSize
	if m.ArchiveSize > 0 {
		end = min(end, m.ArchiveSize)
	}
	return m.HeaderOffset, end
}

// Covering is the archive's pieces of length bytes that hold the member's
// Span: the first piece's index and how many. With no offset known it
// counts the pieces its compressed bytes need, from 0.
func (m Member) Covering(length int64) (first, count int) {
	if length <= 0 {
		return 0, 0
	}
	start, end := m.Span()
	if start < 0 {
		n := (m.CompressedSize + length - 1) / length
		return 0, int(max(n, 1))
	}
	first = int(start / length)
	last := int(max(end-1, start) / length)
	return first, last - first + 1
}

// ArchiveFile is the archive a member job reads: its document's one file.
func (j Job) ArchiveFile() (metalink.File, bool) {
	if j.Doc == nil || len(j.Doc.Files) != 1 {
		return metalink.File{}, false
	}
	return j.Doc.Files[0], true
}

// addMember adds a job that fetches member j.Member of the ZIP archive
// j.Doc describes (a document of one file, the archive: a plain URL
// resolved, or a metalink of one file) into j.Dest, in state. j.Source is
// the archive's source as the user gave it. The job's one file is the
// member; its mirrors are the archive's.
func (q *Queue) addMember(j NewJob, state State) (int64, error) {
	source, doc, m := j.Source, j.Doc, j.Member
	shown := Redact(source)
	op := fmt.Sprintf("add member %s of %s", m.Name, shown)
	if doc == nil || len(doc.Files) != 1 {
		return 0, fmt.Errorf("%s: the archive's document must list one file, the archive", op)
	}
	if err := metalink.SafeName(m.Name); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	length := piece.PlanFor(doc.Files[0]).Length
	if length <= 0 {
		length = piece.DefaultLength
	}
	_, count := m.Covering(length)
	bits, err := piece.NewBitfield(count).MarshalBinary()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return q.insertJob(op, j, state, memberKey(source, m.Name), func(tx *sql.Tx, id int64, doc *metalink.Document, ins *fileInserter) error {
		// The member's row: its name and size; the archive's mirrors.
		if err := ins.insert(id, 0, metalink.File{Name: m.Name, Size: m.Size, URLs: doc.Files[0].URLs}, true); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE pieces SET length = ?, count = ?, bits = ?
			WHERE file = (SELECT id FROM files WHERE job = ? AND name = ?)`, length, count, bits, id, m.Name); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO job_members (job, member, size, compressed, method, crc32, header_offset, archive_size)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, m.Name, m.Size, m.CompressedSize, m.Method, m.CRC32, m.HeaderOffset, m.ArchiveSize)
		return err
	})
}

// memberKey is a member job's source key: the archive's canonical
// source and the member, so that the archive's own job, or another
// member's, is never taken for it (JobFor).
func memberKey(source, name string) string {
	return canonical(source) + "\x00member\x00" + name
}

// memberJob returns the member job id fetches; false when id is not a
// member job.
func (q *Queue) memberJob(id int64) (Member, bool, error) {
	var m Member
	err := q.db.QueryRow(`SELECT member, size, compressed, method, crc32, header_offset, archive_size
		FROM job_members WHERE job = ?`, id).Scan(&m.Name, &m.Size, &m.CompressedSize, &m.Method, &m.CRC32, &m.HeaderOffset, &m.ArchiveSize)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Member{}, false, nil
	case err != nil:
		return Member{}, false, err
	}
	return m, true, nil
}

// memberJobs are the jobs that fetch archive members, by job.
func (q *Queue) memberJobs() (map[int64]Member, error) {
	rows, err := q.db.Query(`SELECT job, member, size, compressed, method, crc32, header_offset, archive_size FROM job_members`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]Member{}
	for rows.Next() {
		var id int64
		var m Member
		if err := rows.Scan(&id, &m.Name, &m.Size, &m.CompressedSize, &m.Method, &m.CRC32, &m.HeaderOffset, &m.ArchiveSize); err != nil {
			return nil, err
		}
		out[id] = m
	}
	return out, rows.Err()
}

// memberProgress counts a member's progress in its own bytes: its pieces
// are the archive's, which hold its packed bytes, so the share of them
// kept is the share of the member done.
func memberProgress(f *File) {
	if !f.Verified && f.Pieces > 0 && f.Size >= 0 {
		f.DoneBytes = f.Size * int64(f.Done) / int64(f.Pieces)
	}
}
