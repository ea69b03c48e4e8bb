package bridge

import (
	"context"
	"errors"
	"fmt"

	"fyne.io/fyne/v2/lang"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/torrent"
	"braid/engine/transport"
	"braid/engine/ziprange"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

var _ ui.ArchiveReader = (*Backend)(nil)

// maxArchives bounds the archive directories kept for pickers not (yet)
// added from.
const maxArchives = 8

// archives are the ZIP directories ReadArchive read, by the document of
// the archive, until the picker's members are added. Guarded by
// Backend.mu.
type archives struct {
	read map[*metalink.Document]*ziprange.Archive
	// docs are the archives' documents a member job keeps, when not the
	// document Open read: a torrent's archive as a file of its web seeds.
	docs  map[*metalink.Document]*metalink.Document
	order []*metalink.Document
}

// ReadArchive implements ui.ArchiveReader: the archive's end record and
// central directory, read by range from all its mirrors at once through
// the engine (engine.Ranges: where the document has piece hashes, the
// pieces are checked).
func (b *Backend) ReadArchive(ctx context.Context, source string, doc *metalink.Document) (ui.Archive, error) {
	if doc == nil || len(doc.Files) != 1 {
		return ui.Archive{}, errors.New(lang.L("only a source of one ZIP archive has files inside to choose"))
	}
	b.mu.Lock()
	origin := b.origins[doc]
	b.mu.Unlock()
	archiveDoc := doc
	if spec, ok := b.peekSpec(doc); ok {
		// A torrent of one ZIP: read from its web seeds, each piece
		// checked against the torrent's sha-1 hashes.
		f, err := torrentArchiveFile(spec)
		if err != nil {
			return ui.Archive{}, err
		}
		archiveDoc = &metalink.Document{Version: 4, Files: []metalink.File{f}}
	}
	req := &engine.Request{File: archiveDoc.Files[0], OriginETag: origin.ETag, Referer: origin.Referer}
	if s, err := b.q.Settings(); err == nil {
		req.Locations = s.Countries
	}
	ranges, err := b.svc.Client().OpenRanges(ctx, req)
	if err != nil {
		return ui.Archive{}, archiveError(err)
	}
	defer ranges.Close()
	a, err := ziprange.Open(ctx, ranges, ranges.Size())
	if err != nil {
		return ui.Archive{}, archiveError(err)
	}
	b.mu.Lock()
	if b.archives.read == nil {
		b.archives.read = map[*metalink.Document]*ziprange.Archive{}
		b.archives.docs = map[*metalink.Document]*metalink.Document{}
	}
	if _, ok := b.archives.read[doc]; !ok {
		b.archives.order = append(b.archives.order, doc)
	}
	b.archives.read[doc], b.archives.docs[doc] = a, archiveDoc
	if len(b.archives.order) > maxArchives {
		delete(b.archives.read, b.archives.order[0])
		delete(b.archives.docs, b.archives.order[0])
		b.archives.order = b.archives.order[1:]
	}
	b.mu.Unlock()
	out := ui.Archive{Size: a.Size}
	for _, m := range a.Members {
		out.Members = append(out.Members, ui.ArchiveMember{
			Name: m.Name, Size: m.Size, Compressed: m.CompressedSize,
			Method: ziprange.MethodName(m.Method), Folder: m.Dir, Refused: memberRefusal(m),
		})
	}
	return out, nil
}

// memberRefusal says why member m cannot be fetched, "" when it can.
func memberRefusal(m *ziprange.Member) string {
	var ne *metalink.NameError
	switch err := metalink.SafeName(m.Name); {
	case m.Encrypted:
		return ziprange.ErrEncrypted.Error()
	case m.Method != 0 && m.Method != 8:
		return (&ziprange.MethodError{Method: m.Method}).Error()
	case errors.As(err, &ne):
		return fmt.Sprintf(lang.L("its name is refused: %s"), ne.Rule)
	case err != nil:
		return err.Error()
	}
	return ""
}

// archiveError is why an archive's directory could not be read, in a
// sentence.
func archiveError(err error) error {
	if errors.Is(err, transport.ErrNoRanges) || errors.Is(err, ziprange.ErrNoRanges) {
		return errors.New(lang.L("the server does not send parts of files (byte ranges): the list inside cannot be read without downloading the whole archive"))
	}
	return err // ziprange's and the engine's errors are sentences
}

// addMembers adds one member job per member req names (runner.Add), of
// the archive whose directory ReadArchive read for req.Doc, sorted by
// the member's category as Add sorts a whole file; it returns the first
// job's ID.
func (b *Backend) addMembers(ctx context.Context, req ui.AddRequest, origin queue.Origin) (ui.JobID, error) {
	b.mu.Lock()
	a, doc := b.archives.read[req.Doc], b.archives.docs[req.Doc]
	b.mu.Unlock()
	if a == nil {
		return 0, fmt.Errorf(lang.L("add the files inside %s: the archive's list is no longer at hand; choose the files inside again"), queue.Redact(req.Source))
	}
	login := b.takeLogin(req.Doc) // login.go: every member's
	var first int64
	defer func() { // also for the members added before an error
		if first != 0 && !req.Paused {
			b.svc.Wake()
		}
		b.changed()
	}()
	for _, name := range req.Members {
		m := a.Member(name)
		if m == nil {
			return ui.JobID(first), fmt.Errorf(lang.L("the archive has no file %s"), name)
		}
		if why := memberRefusal(m); why != "" {
			return ui.JobID(first), fmt.Errorf("%s: %s", name, why)
		}
		record := runner.MemberRecord(m, a.Size)
		added, err := runner.Add(ctx, b.q, req.Source, runner.AddOptions{
			Dir: req.Dir, Sort: true, Doc: doc, Origin: origin, Member: &record,
			Login: login, Paused: req.Paused,
		})
		if err != nil {
			return ui.JobID(first), err
		}
		if first == 0 {
			first = added.ID
		}
	}
	return ui.JobID(first), nil
}

// peekSpec is the torrent Open resolved for doc, if any, kept for Add.
func (b *Backend) peekSpec(doc *metalink.Document) (*torrent.Spec, bool) {
	b.tor.mu.Lock()
	defer b.tor.mu.Unlock()
	spec, ok := b.tor.specs[doc]
	return spec, ok
}

// torrentArchiveFile is the one file of a torrent as a file of mirrors:
// its web seeds (BEP 19), and its pieces with their sha-1 hashes, as
// braid get --member reads a torrent of one ZIP. Peers are never asked.
func torrentArchiveFile(spec *torrent.Spec) (metalink.File, error) {
	f, err := spec.WebSeedFile()
	var multi *torrent.MultiFileError
	switch {
	case errors.As(err, &multi):
		return metalink.File{}, errors.New(lang.L("only a source of one ZIP archive has files inside to choose"))
	case errors.Is(err, torrent.ErrNoWebSeeds):
		return metalink.File{}, errors.New(lang.L("the torrent names no web seed: the files inside are read from web seeds by range, never from peers, so download the whole torrent"))
	case err != nil:
		return metalink.File{}, errors.New(lang.L("the torrent's list of files cannot be read"))
	}
	return f, nil
}
