package ui

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"braid/engine/metalink"
)

// ArchiveMember is one entry of a ZIP archive's directory, as the picker
// lists it.
type ArchiveMember struct {
	Name       string // its path inside the archive, slash-separated
	Size       int64  // bytes once extracted
	Compressed int64  // bytes in the archive
	Method     string // "stored", "deflate", or the method's name
	Folder     bool   // a folder entry: nothing to fetch
	// Refused says in a sentence why the member cannot be fetched
	// (encrypted, a method Braid cannot inflate, an unsafe name); ""
	// when it can.
	Refused string
}

// Archive is what an archive's directory lists.
type Archive struct {
	Size    int64 // the archive's bytes
	Members []ArchiveMember
}

// ArchiveReader is a Backend that reads the directory of a ZIP archive
// by range (its end record and central directory, a few small requests),
// and adds single members of it as jobs (AddRequest.Members): the picker
// of a source of one ZIP archive offers "Choose files inside" for it.
type ArchiveReader interface {
	// ReadArchive reads the directory of the archive doc describes (a
	// document of one file, the archive, as Open read it from source).
	// Its error is a sentence: not a ZIP archive, no byte ranges, and so
	// on.
	ReadArchive(ctx context.Context, source string, doc *metalink.Document) (Archive, error)
}

// Inside is the picker of an archive's members: the archive's document,
// and its directory.
type Inside struct {
	Doc     *metalink.Document // the archive's: one file
	Archive Archive
	// listed maps a row of the picker's Doc to its member.
	listed []int
}

// IsArchiveDoc reports whether doc is one ZIP archive to look inside: a
// document of one file named .zip that comes from mirrors or a torrent
// (whose web seeds the backend reads).
func IsArchiveDoc(doc *metalink.Document) bool {
	if doc == nil || len(doc.Files) != 1 {
		return false
	}
	f := doc.Files[0]
	return strings.EqualFold(path.Ext(f.Name), ".zip") && (len(f.URLs) > 0 || hasTorrent(f))
}

// NewInsidePicker builds the picker of the members of the archive doc
// describes (opened from source), as archive lists them: the files to
// tick, narrowed by a search of their paths, with the folder and filters
// from s. Folder entries are not listed; members that cannot be fetched
// are listed with the reason, and cannot be ticked. Nothing is ticked at
// first.
func NewInsidePicker(source string, doc *metalink.Document, archive Archive, s Settings, parent fyne.Window) *Picker {
	LoadTranslations()
	in := &Inside{Doc: doc, Archive: archive}
	var urls []metalink.URL
	if len(doc.Files) == 1 {
		urls = doc.Files[0].URLs
	}
	list := &metalink.Document{Version: doc.Version}
	for i, m := range archive.Members {
		if m.Folder {
			continue
		}
		in.listed = append(in.listed, i)
		list.Files = append(list.Files, metalink.File{Name: m.Name, Size: m.Size, URLs: urls})
	}
	p := &Picker{Source: source, Doc: list, parent: parent, Inside: in}
	return buildPicker(p, s)
}

// member is the archive member of row i of the picker's Doc.
func (p *Picker) member(i int) (ArchiveMember, bool) {
	if p.Inside == nil || i < 0 || i >= len(p.Inside.listed) {
		return ArchiveMember{}, false
	}
	return p.Inside.Archive.Members[p.Inside.listed[i]], true
}

// refused reports whether file i is an archive member that cannot be
// fetched.
func (p *Picker) refused(i int) bool {
	m, ok := p.member(i)
	return ok && m.Refused != ""
}

// filterInside is ApplyFilters for an archive's members: the search
// narrows the rows shown, and the ticks stay as the user set them.
func (p *Picker) filterInside() {
	n := len(p.Doc.Files)
	if len(p.Ticked) != n {
		p.Ticked = make([]bool, n)
		p.Why = make([]string, n)
		for i := range n {
			if m, _ := p.member(i); m.Refused != "" {
				p.Why[i] = fmt.Sprintf(lang.L("Cannot be fetched: %s"), m.Refused)
			}
		}
	}
	p.Shown = p.Shown[:0]
	for i, f := range p.Doc.Files {
		if pathMatches(p.Path.Text, f.Name) {
			p.Shown = append(p.Shown, i)
		}
	}
	p.Files.Refresh()
	p.updateSummary()
}

// memberMeta is the line under a member's name: its method and its bytes
// in the archive.
func (p *Picker) memberMeta(i int) string {
	m, ok := p.member(i)
	if !ok {
		return ""
	}
	return fmt.Sprintf(lang.L("%s · %s in the archive"), m.Method, bytesText(m.Compressed))
}

// TickMember ticks the member named name, as a tap on its box does; false
// when no member of that name can be ticked.
func (p *Picker) TickMember(name string, on bool) bool {
	i := slices.IndexFunc(p.Doc.Files, func(f metalink.File) bool { return f.Name == name })
	if i < 0 || (on && p.refused(i)) {
		return false
	}
	p.SetTicked(i, on)
	return true
}

// offerInside wires the plain picker p of a source of one ZIP archive
// to "Choose files inside", when the backend reads archives: the button
// reads the archive's directory off the UI goroutine and then shows the
// members' picker in place of p (hide closes p's dialog), or says in p
// why the archive could not be read.
func (w *Window) offerInside(p *Picker, hide func()) {
	ar, ok := w.Backend.(ArchiveReader)
	if !ok || p.Sync || p.Inside != nil || !IsArchiveDoc(p.Doc) {
		return
	}
	p.InsideButton.Show()
	p.OnInside = func() {
		p.InsideButton.Disable()
		p.InsideNote.Importance = widget.MediumImportance
		p.InsideNote.SetText(lang.L("Reading the archive's list of files…"))
		p.InsideNote.Show()
		source, doc := p.Source, p.Doc
		dir := strings.TrimSpace(p.Dir.Text)
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			archive, err := ar.ReadArchive(w.ctx, source, doc)
			w.do(func() {
				if !slices.Contains(w.Pickers, p) {
					return // closed meanwhile: Cancel, or the whole archive added
				}
				if err != nil {
					p.InsideButton.Enable()
					p.InsideNote.Importance = widget.DangerImportance
					p.InsideNote.SetText(fmt.Sprintf(lang.L("The files inside cannot be listed: %s"), err.Error()))
					p.InsideNote.Show()
					return
				}
				hide()
				w.showInside(source, doc, archive, dir)
			})
		}()
	}
}

// showInside shows the picker of an archive's members in a dialog of its
// own, adding the ticked members as member jobs.
func (w *Window) showInside(source string, doc *metalink.Document, archive Archive, dir string) {
	s := w.Settings
	s.Dir = dir
	if s.Dir == "" {
		s.Dir = w.saveDir()
	}
	p := NewInsidePicker(source, doc, archive, s, w.Win)
	name := source
	if len(doc.Files) == 1 {
		name = doc.Files[0].Name
	}
	w.showPicker(fmt.Sprintf(lang.L("Files inside %s"), path.Base(name)), p, nil)
}
