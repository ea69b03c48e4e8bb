package torrent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anacrolix/torrent/metainfo"
	"github.com/anacrolix/torrent/storage"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/rootfile"
)

// ErrUnsafePath is wrapped by the error for a torrent whose file paths
// would leave the download folder or cannot be created on every OS Braid
// runs on. Nothing is written for such a torrent.
var ErrUnsafePath = errors.New("the torrent names an unsafe path")

// ErrExists is wrapped when a file of the torrent is already at its final
// name and a piece of it does not match: a file at its final name is never
// overwritten.
var ErrExists = errors.New("a different file is already at this name")

// fileSpan is one file of a torrent as the storage lays it out.
type fileSpan struct {
	name   string // relative, slash-separated, passed metalink.SafeName
	offset int64  // in the torrent
	length int64
	pad    bool // a BEP 47 padding file: never written, reads as zeros
	first  int  // first piece holding a byte of the file
	end    int  // one past the last piece holding a byte of it
}

// layout checks every path of info with metalink.SafeName and returns
// where each file lies in the torrent.
func layout(info *metainfo.Info) ([]fileSpan, error) {
	if info.PieceLength <= 0 {
		return nil, fmt.Errorf("the torrent's piece length is %d", info.PieceLength)
	}
	base := info.BestName()
	if err := metalink.SafeName(base); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsafePath, err)
	}
	var spans []fileSpan
	// Names are compared folded to lower case on every system: Windows
	// and macOS keep "A.txt" and "a.txt" as one file, so a torrent that
	// holds both would write one over the other there, and a torrent's
	// names should mean the same on every system.
	seen := map[string]string{}
	for fi := range info.UpvertedFilesIter() {
		name := base
		if info.IsDir() {
			name = path.Join(base, strings.Join(fi.BestPath(), "/"))
			// path.Join would clean "a/../b" into "b": check the raw text.
			raw := base + "/" + strings.Join(fi.BestPath(), "/")
			if err := metalink.SafeName(raw); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrUnsafePath, err)
			}
		}
		if fi.Length < 0 {
			return nil, fmt.Errorf("%s: negative length %d", name, fi.Length)
		}
		pad := strings.Contains(fi.Attr, "p")
		if !pad {
			if other, ok := seen[strings.ToLower(name)]; ok {
				if other == name {
					return nil, fmt.Errorf("%w: %s appears twice", ErrUnsafePath, name)
				}
				return nil, fmt.Errorf("%w: %s and %s differ only in case, and are the same file on Windows and macOS", ErrUnsafePath, other, name)
			}
			seen[strings.ToLower(name)] = name
		}
		spans = append(spans, fileSpan{
			name:   name,
			offset: fi.TorrentOffset,
			length: fi.Length,
			pad:    pad,
			first:  int(fi.TorrentOffset / info.PieceLength),
			end:    int((fi.TorrentOffset + fi.Length + info.PieceLength - 1) / info.PieceLength),
		})
	}
	// A file is also a folder of another ("a" and "a/b"): refuse, since
	// one of them could not be created.
	for _, s := range spans {
		if s.pad {
			continue
		}
		for p := path.Dir(s.name); p != "."; p = path.Dir(p) {
			if _, ok := seen[strings.ToLower(p)]; ok {
				return nil, fmt.Errorf("%w: %s is both a file and a folder", ErrUnsafePath, p)
			}
		}
	}
	return spans, nil
}

// fileCheck is called with a finished file, before it gets its final
// name; an error keeps it at NAME.part and fails the job.
type fileCheck func(name string, f *os.File, size int64) error

// braidStorage is Braid's storage.ClientImpl: one torrent in one folder,
// written through os.Root, files as NAME.part until all their pieces
// verify, piece completion kept in a Completion.
type braidStorage struct {
	dir    string
	comp   Completion
	check  fileCheck
	refuse func(error)           // told when OpenTorrent refuses the torrent
	opened func(*torrentStorage) // told when it opened it
	// lim is the torrent's own download limit (Request.Limiter), paid
	// for every chunk written, until ctx (the job's) ends; nil: none.
	lim *engine.Limiter
	ctx context.Context
}

var _ storage.ClientImpl = (*braidStorage)(nil)

// OpenTorrent checks the torrent's paths and opens its folder.
func (s *braidStorage) OpenTorrent(_ context.Context, info *metainfo.Info, ih metainfo.Hash) (storage.TorrentImpl, error) {
	ts, err := s.open(info, ih)
	if err != nil {
		if s.refuse != nil {
			s.refuse(err)
		}
		return storage.TorrentImpl{}, err
	}
	if s.opened != nil {
		s.opened(ts)
	}
	return storage.TorrentImpl{
		Piece: ts.piece,
		Close: ts.close,
	}, nil
}

func (s *braidStorage) open(info *metainfo.Info, ih metainfo.Hash) (*torrentStorage, error) {
	spans, err := layout(info)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return nil, err
	}
	ts := &torrentStorage{
		root:     root,
		ih:       ih.HexString(),
		info:     info,
		spans:    spans,
		comp:     s.comp,
		check:    s.check,
		lim:      s.lim,
		limCtx:   s.ctx,
		files:    make([]*openFile, len(spans)),
		done:     make([]bool, info.NumPieces()),
		recorded: make([]bool, info.NumPieces()),
	}
	// onDisk is how many bytes of each file are on disk, at either name.
	onDisk := make([]int64, len(spans))
	for i, sp := range spans {
		ts.files[i] = &openFile{}
		if sp.pad {
			continue
		}
		part, errPart := root.Stat(sp.name + partSuffix)
		final, errFinal := root.Stat(sp.name)
		ts.files[i].final = errFinal == nil && errors.Is(errPart, fs.ErrNotExist)
		ts.files[i].exists.Store(errFinal == nil || errPart == nil)
		switch {
		case errPart == nil:
			onDisk[i] = part.Size()
		case errFinal == nil:
			onDisk[i] = final.Size()
		}
	}
	recorded, err := s.comp.Load(ts.ih)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("piece completion: %w", err)
	}
	for i, ok := range recorded {
		if i >= len(ts.done) {
			continue
		}
		if ok && !ts.onDisk(i, onDisk) {
			// Recorded done, but its bytes are gone (the folder was
			// emptied, a file deleted or cut short): fetched again, not
			// trusted to a record of files no longer there.
			continue
		}
		ts.recorded[i] = true
		ts.done[i] = ok
	}
	return ts, nil
}

// onDisk reports whether every file that piece i spans holds the piece's
// bytes of it, by the files' lengths on disk.
func (ts *torrentStorage) onDisk(i int, lengths []int64) bool {
	off := int64(i) * ts.info.PieceLength
	end := min(off+ts.info.PieceLength, ts.info.TotalLength())
	for _, f := range ts.spansOf(off, end-off) {
		sp := ts.spans[f]
		if sp.pad {
			continue
		}
		if lengths[f] < min(end, sp.offset+sp.length)-sp.offset {
			return false
		}
	}
	return true
}

const partSuffix = ".part"

// openFile is the handle of one file, opened on first use.
type openFile struct {
	mu    sync.Mutex
	f     *os.File
	final bool // at its final name: read only
	// held, when not "", says that another program holds NAME.part open
	// and the rename waits for it (see finishFile).
	held string
	// exists: at either name (when opened, or written since). Atomic, so
	// Completion, called under the library's lock, never waits for disk
	// I/O under mu.
	exists atomic.Bool
}

// torrentStorage is one open torrent.
type torrentStorage struct {
	root  *os.Root
	ih    string
	info  *metainfo.Info
	spans []fileSpan
	files []*openFile
	comp  Completion
	check fileCheck
	// lim and limCtx: see braidStorage.
	lim    *engine.Limiter
	limCtx context.Context

	mu       sync.Mutex
	done     []bool // pieces verified (recorded, or in pending)
	recorded []bool // pieces whose state the Completion knows, or will
	err      error  // the first error that must fail the job
	closed   bool
	pending  []int       // verified pieces not synced and recorded yet
	flushing *time.Timer // runs flush; nil when nothing is pending
	notDone  int         // pieces marked not complete: each failed a hash check

	// held are the pieces being downloaded, in memory (piecebuf.go).
	held heldPieces
	// writingHeld, when set (tests), runs as MarkComplete begins to write
	// a held piece out.
	writingHeld func()

	// recording serialises the Completion's writes (flush, and
	// MarkNotComplete), so a piece recorded bad is never recorded good
	// after by a flush that took it before.
	recording sync.Mutex
}

// recordEvery is how long a verified piece may wait before its file is
// synced and the piece recorded in the Completion: a crash loses at most
// this much verification (the pieces are hashed again on restart, not
// fetched), as the HTTP engine's syncEvery. One fsync a second instead of
// one a piece: a 64 MiB torrent of 256 KiB pieces made 256 of them, a
// fifth of its CPU time.
const recordEvery = time.Second

func (ts *torrentStorage) piece(p metainfo.Piece) storage.PieceImpl {
	i := p.Index()
	return &pieceImpl{ts: ts, index: i, off: int64(i) * ts.info.PieceLength, length: p.Length()}
}

func (ts *torrentStorage) close() error {
	ts.mu.Lock()
	ts.closed = true
	if ts.flushing != nil {
		ts.flushing.Stop()
	}
	ts.mu.Unlock()
	var errs []error
	// Unfinished pieces go to disk, as if never held: a restart hashes
	// them and keeps those that are whole.
	for i, hp := range ts.held.close() {
		p := ts.piece(ts.info.Piece(i)).(*pieceImpl)
		errs = append(errs, p.writeHeld(hp))
	}
	// What verified is kept, so a restart resumes exactly.
	if err := ts.flush(); err != nil {
		errs = append(errs, err)
	}
	for _, f := range ts.files {
		f.mu.Lock()
		if f.f != nil {
			errs = append(errs, f.f.Close())
			f.f = nil
		}
		f.mu.Unlock()
	}
	errs = append(errs, ts.root.Close())
	return errors.Join(errs...)
}

// failure is the error that stops the job, if any.
func (ts *torrentStorage) failure() error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.err
}

// failedChecks returns how many times a piece failed its hash check.
func (ts *torrentStorage) failedChecks() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.notDone
}

func (ts *torrentStorage) fail(err error) {
	ts.mu.Lock()
	if ts.err == nil {
		ts.err = err
	}
	ts.mu.Unlock()
}

// spansOf returns the indices of the files overlapping [off, off+n).
func (ts *torrentStorage) spansOf(off, n int64) []int { return spansOf(ts.spans, off, n) }

// spansOf returns the indices of the spans, in torrent order, that
// overlap [off, off+n); empty files overlap nothing.
func spansOf(spans []fileSpan, off, n int64) []int {
	i := sort.Search(len(spans), func(i int) bool { return spans[i].offset+spans[i].length > off })
	var out []int
	for ; i < len(spans) && spans[i].offset < off+n; i++ {
		if spans[i].length > 0 {
			out = append(out, i)
		}
	}
	return out
}

// handle opens file i for writing (at NAME.part, creating folders) or for
// reading (NAME.part or NAME, whichever holds it). It returns nil, nil for
// a read of a file not created yet. Call with f.mu held.
func (ts *torrentStorage) handle(i int, write bool) (*os.File, error) {
	f, sp := ts.files[i], ts.spans[i]
	if f.f != nil {
		if write && f.final {
			return nil, fmt.Errorf("%s: %w", sp.name, ErrExists)
		}
		return f.f, nil
	}
	if f.final {
		if write {
			return nil, fmt.Errorf("%s: %w", sp.name, ErrExists)
		}
		h, err := ts.root.Open(sp.name)
		if err != nil {
			return nil, err
		}
		f.f = h
		return h, nil
	}
	flags := os.O_RDWR
	if write {
		flags |= os.O_CREATE
		if dir := path.Dir(sp.name); dir != "." {
			if err := ts.root.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
		}
	}
	h, err := ts.root.OpenFile(sp.name+partSuffix, flags, 0o644)
	if !write && errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f.f = h
	f.exists.Store(true)
	return h, nil
}

// pieceImpl is one piece: reads and writes go to the files it spans.
type pieceImpl struct {
	ts     *torrentStorage
	index  int
	off    int64 // in the torrent
	length int64
}

var _ storage.PieceImpl = (*pieceImpl)(nil)

// ReadAt reads from the files the piece spans. Bytes a file does not hold
// yet (not created, or beyond its end) read as zeros, so hashing an
// unfinished piece fails instead of erroring.
func (p *pieceImpl) ReadAt(b []byte, off int64) (int, error) {
	if off >= p.length {
		return 0, io.EOF
	}
	short := false
	if off+int64(len(b)) > p.length {
		b, short = b[:p.length-off], true
	}
	hp := p.ts.held.get(p.index)
	if hp == nil || !hp.read(b, off) {
		if err := p.readFiles(b, off); err != nil {
			return 0, err
		}
		if hp != nil {
			hp.overlay(b, off)
		}
	}
	if short {
		return len(b), io.EOF
	}
	return len(b), nil
}

// readFiles reads [off, off+len(b)) of the piece from its files.
func (p *pieceImpl) readFiles(b []byte, off int64) error {
	start := p.off + off
	for _, i := range p.ts.spansOf(start, int64(len(b))) {
		sp := p.ts.spans[i]
		lo, hi := max(start, sp.offset), min(start+int64(len(b)), sp.offset+sp.length)
		part := b[lo-start : hi-start]
		clear(part)
		if sp.pad {
			continue
		}
		if err := p.ts.readFile(i, part, lo-sp.offset); err != nil {
			return err
		}
	}
	return nil
}

func (ts *torrentStorage) readFile(i int, b []byte, off int64) error {
	f := ts.files[i]
	f.mu.Lock()
	defer f.mu.Unlock()
	ts.mu.Lock()
	closed := ts.closed
	ts.mu.Unlock()
	if closed {
		return ts.readClosed(i, b, off)
	}
	h, err := ts.handle(i, false)
	if err != nil || h == nil {
		return err
	}
	_, err = h.ReadAt(b, off)
	if err == io.EOF {
		err = nil // the rest was cleared
	}
	return err
}

// readClosed reads file i after the storage closed. The torrent library
// may still read for a peer's request it took before the torrent was
// dropped, and anacrolix/torrent v1.59.1 panics (servePeerRequest's
// panicif) when such a read fails on a closed torrent: the whole program
// would end. The file is opened for this one read, and closed again.
// Called with the file's lock held.
func (ts *torrentStorage) readClosed(i int, b []byte, off int64) error {
	root, err := os.OpenRoot(ts.root.Name())
	if err != nil {
		return err
	}
	defer root.Close()
	name := ts.spans[i].name
	if !ts.files[i].final {
		name += partSuffix
	}
	h, err := root.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // not written yet: zeros, as before the close
	}
	if err != nil {
		return err
	}
	defer h.Close()
	if _, err := h.ReadAt(b, off); err != nil && err != io.EOF {
		return err
	}
	return nil
}

// WriteAt holds the bytes in memory until the piece verifies (see
// piecebuf.go), or, for a piece too long to hold or beyond the bound of
// memory, writes them to the files the piece spans.
func (p *pieceImpl) WriteAt(b []byte, off int64) (int, error) {
	if !p.ts.held.write(p.index, p.length, b, off) {
		if err := p.writeFiles(b, off); err != nil {
			return 0, err
		}
	}
	// The torrent's own limit: the peer (or web seed) connection that
	// brought the chunk waits here before it reads the next, so the
	// torrent gets no more than its rate, whatever the client's limit.
	// Its rate may change at any time (SetRate); the torrent runs on.
	// The job ending ends the wait; the chunk is written either way.
	_ = p.ts.lim.Pay(p.ts.limCtx, len(b))
	return len(b), nil
}

// writeFiles writes b at off in the piece to the files the piece spans,
// at NAME.part. Padding files take nothing.
func (p *pieceImpl) writeFiles(b []byte, off int64) error {
	start := p.off + off
	for _, i := range p.ts.spansOf(start, int64(len(b))) {
		sp := p.ts.spans[i]
		if sp.pad {
			continue
		}
		lo, hi := max(start, sp.offset), min(start+int64(len(b)), sp.offset+sp.length)
		if err := p.ts.writeFile(i, b[lo-start:hi-start], lo-sp.offset); err != nil {
			return fmt.Errorf("%s: %w", sp.name, err)
		}
	}
	return nil
}

// writeHeld writes the bytes held of the piece to its files.
func (p *pieceImpl) writeHeld(hp *heldPiece) error {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	for _, r := range hp.have {
		if err := p.writeFiles(hp.b[r[0]:r[1]], r[0]); err != nil {
			return err
		}
	}
	return nil
}

func (ts *torrentStorage) writeFile(i int, b []byte, off int64) error {
	f := ts.files[i]
	f.mu.Lock()
	defer f.mu.Unlock()
	h, err := ts.handle(i, true)
	if err != nil {
		return err
	}
	_, err = h.WriteAt(b, off)
	return err
}

// MarkComplete is called once the piece passed its hash: its bytes held
// in memory are written to its files, it is done at once, and recorded
// within recordEvery, after its bytes are synced (see flush); then every
// file it completes is checked and renamed to its final name.
func (p *pieceImpl) MarkComplete() error {
	ts := p.ts
	// Written before it is dropped: a read meanwhile (a stream reads
	// blocks as they arrive) finds the bytes held or on disk.
	if hp := ts.held.get(p.index); hp != nil {
		if ts.writingHeld != nil {
			ts.writingHeld()
		}
		err := p.writeHeld(hp)
		ts.held.drop(p.index)
		if err != nil {
			ts.fail(err)
			return err
		}
	}
	spans := ts.spansOf(p.off, p.length)
	ts.mu.Lock()
	ts.done[p.index], ts.recorded[p.index] = true, true
	ts.pending = append(ts.pending, p.index)
	if ts.flushing == nil && !ts.closed {
		ts.flushing = time.AfterFunc(recordEvery, func() {
			if err := ts.flush(); err != nil {
				ts.fail(err)
			}
		})
	}
	ts.mu.Unlock()
	for _, i := range spans {
		if ts.fileDone(i) {
			if err := ts.finishFile(i); err != nil {
				ts.fail(err)
				return err
			}
		}
	}
	return nil
}

// MarkNotComplete records that the piece must be fetched again.
func (p *pieceImpl) MarkNotComplete() error {
	ts := p.ts
	ts.held.drop(p.index)
	ts.recording.Lock()
	defer ts.recording.Unlock()
	ts.mu.Lock()
	was := ts.done[p.index] || !ts.recorded[p.index]
	ts.done[p.index], ts.recorded[p.index] = false, true
	ts.notDone++
	ts.pending = slices.DeleteFunc(ts.pending, func(i int) bool { return i == p.index })
	ts.mu.Unlock()
	if !was {
		return nil
	}
	return ts.comp.Set(ts.ih, []int{p.index}, false)
}

// flush syncs the files of the pieces verified since the last flush and
// records those pieces in the Completion.
func (ts *torrentStorage) flush() error {
	ts.recording.Lock()
	defer ts.recording.Unlock()
	ts.mu.Lock()
	pieces := ts.pending
	ts.pending, ts.flushing = nil, nil
	ts.mu.Unlock()
	if len(pieces) == 0 {
		return nil
	}
	files := map[int]bool{}
	for _, piece := range pieces {
		for _, i := range ts.spansOf(int64(piece)*ts.info.PieceLength, ts.info.Piece(piece).Length()) {
			files[i] = true
		}
	}
	for i := range files {
		if err := ts.syncFile(i); err != nil {
			return err
		}
	}
	// One transaction for them all: one per piece cost a commit each,
	// a tenth of a torrent's CPU (1,024 pieces of 256 KiB).
	if err := ts.comp.Set(ts.ih, pieces, true); err != nil {
		return fmt.Errorf("record %d verified pieces: %w", len(pieces), err)
	}
	return nil
}

// Completion tells the client what is known of the piece. A piece never
// recorded is "unknown, hash it" when one of its files is on disk (a
// crash between writing and recording, or a file already there), and
// "not complete" otherwise, which spares hashing a fresh download.
func (p *pieceImpl) Completion() storage.Completion {
	ts := p.ts
	ts.mu.Lock()
	done, known := ts.done[p.index], ts.recorded[p.index]
	ts.mu.Unlock()
	if known {
		return storage.Completion{Ok: true, Complete: done}
	}
	for _, i := range ts.spansOf(p.off, p.length) {
		if ts.files[i].exists.Load() && !ts.spans[i].pad {
			return storage.Completion{Ok: false}
		}
	}
	return storage.Completion{Ok: true, Complete: false}
}

func (ts *torrentStorage) syncFile(i int) error {
	f := ts.files[i]
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil || f.final {
		return nil
	}
	if err := f.f.Sync(); err != nil {
		return fmt.Errorf("%s: sync: %w", ts.spans[i].name, err)
	}
	return nil
}

// fileDone reports whether every piece of file i is done and the file is
// still at NAME.part.
func (ts *torrentStorage) fileDone(i int) bool {
	sp := ts.spans[i]
	if sp.pad {
		return false
	}
	return ts.piecesDone(sp)
}

// piecesDone reports whether every piece of the span sp is done.
func (ts *torrentStorage) piecesDone(sp fileSpan) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for p := sp.first; p < sp.end; p++ {
		if !ts.done[p] {
			return false
		}
	}
	return true
}

// finishFile checks a complete file and gives it its final name. When
// another program holds NAME.part open (Windows: a player, a virus
// scanner) the rename waits: the file keeps its .part name, f.held says
// why, and the job's loop calls finishFile again (see retryHeld) until
// that program closes it. The job never fails for it.
func (ts *torrentStorage) finishFile(i int) error {
	f, sp := ts.files[i], ts.spans[i]
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.final {
		return nil
	}
	if f.held == "" { // checked already when it is only waiting to be renamed
		if f.f == nil { // an empty file, or every byte in padding
			h, err := ts.handle(i, true)
			if err != nil {
				return fmt.Errorf("%s: %w", sp.name, err)
			}
			f.f = h
		}
		if err := f.f.Truncate(sp.length); err != nil {
			return fmt.Errorf("%s: %w", sp.name, err)
		}
		if err := f.f.Sync(); err != nil {
			return fmt.Errorf("%s: sync: %w", sp.name, err)
		}
		if ts.check != nil {
			if err := ts.check(sp.name, f.f, sp.length); err != nil {
				return err
			}
		}
	}
	// A file that appeared at the final name meanwhile is someone
	// else's: never overwritten.
	if _, err := ts.root.Lstat(sp.name); err == nil {
		return fmt.Errorf("%s: %w; the download stays at %s%s", sp.name, ErrExists, sp.name, partSuffix)
	}
	if f.f != nil {
		if err := f.f.Close(); err != nil {
			return fmt.Errorf("%s: %w", sp.name, err)
		}
		f.f = nil
	}
	if err := ts.root.Rename(sp.name+partSuffix, sp.name); err != nil {
		if rootfile.Held(err) {
			f.held = fmt.Sprintf("%s%s is open in another program; Braid renames it to %s when that program closes it", sp.name, partSuffix, sp.name)
			return nil
		}
		return fmt.Errorf("%s: %w", sp.name, err)
	}
	f.held = ""
	f.final = true
	return nil
}

// retryHeld tries again to rename the files another program held open,
// and returns why one still waits ("" when none does).
func (ts *torrentStorage) retryHeld() (string, error) {
	var why string
	for i, f := range ts.files {
		f.mu.Lock()
		held := f.held != ""
		f.mu.Unlock()
		if !held {
			continue
		}
		if err := ts.finishFile(i); err != nil {
			return "", err
		}
		f.mu.Lock()
		if why == "" {
			why = f.held
		}
		f.mu.Unlock()
	}
	return why, nil
}

// finished reports whether file i is at its final name and every piece
// of it verified: a file found there when the torrent opened counts only
// once its pieces have been checked.
func (ts *torrentStorage) finished(i int) bool {
	f := ts.files[i]
	f.mu.Lock()
	final := f.final
	f.mu.Unlock()
	sp := ts.spans[i]
	if !final || sp.length == 0 {
		return final
	}
	return ts.piecesDone(sp)
}
