package ui

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"braid/engine/metalink"
)

// Picker is the screen that opens a metalink: what the document is, its
// files with ticks set by the language and OS filters, where the files go,
// and Start or Add paused. Its parts are exported so tests can reach them;
// everything about it runs on the UI goroutine.
type Picker struct {
	Source string
	Doc    *metalink.Document

	// Ticked and Why are the picker's state, one entry per file of Doc:
	// whether the file will be downloaded, and when the filters left it out,
	// why. A filter change recomputes both; a tap on a file's box changes
	// Ticked alone.
	Ticked []bool
	Why    []string

	Title       *TipLabel        // identity, or the ticked files' names
	Subtitle    *widget.RichText // version and publisher
	Description *widget.Label

	Languages *Entry // comma lists; empty means any
	OS        *Entry
	Countries *Entry
	// Sync marks the picker of a ResourceSync source: Start syncs the
	// folder with every resource listed, and Path narrows the list shown
	// to the resources whose path contains its text (or matches it, with
	// * and ?). Shown lists the indexes in Doc.Files of the rows shown.
	Sync  bool
	Path  *Entry
	Shown []int
	// parity is the document's PAR2 parity sets by the name of the file
	// each mends (metalink.ParitySets), and parityFile marks their files:
	// they are not files to choose but a line under the file they mend.
	// A sync lists every resource as it is.
	parity     map[string]metalink.ParitySet
	parityFile []bool
	// Inside, when set, makes this the picker of an archive's members
	// (pickerinside.go): Doc lists the members, Path narrows the list, and
	// Start adds the ticked members as member jobs of the archive.
	// InsideButton is the plain picker's "Choose files inside", shown for
	// a source of one ZIP archive when the backend reads archives, and
	// InsideNote says why the archive could not be read.
	Inside       *Inside
	InsideButton *widget.Button
	InsideNote   *widget.Label
	// OnInside is called when the user presses Choose files inside.
	OnInside func()

	Files   *widget.List
	Summary *widget.Label // "2 of 5 files · 1.4 GiB"
	// Mirrors lists the mirrors of the ticked files (host, location,
	// priority, protocol) on the tab MirrorsItem, which counts them.
	Mirrors     *widget.List
	MirrorsItem *container.TabItem
	lists       *container.AppTabs
	mirrors     []pickerMirror
	identity    string // the document's name for itself, "" when none
	opened      pickerOpened
	Dir         *Entry
	Browse      *widget.Button

	Start     *widget.Button
	AddPaused *widget.Button
	Cancel    *widget.Button

	// Content is the whole screen, to put in a dialog or a window.
	Content fyne.CanvasObject

	// OnAdd is called when the user presses Start or Add paused; OnCancel
	// when they give up. Either may be nil.
	OnAdd    func(AddRequest)
	OnCancel func()

	parent fyne.Window
}

// NewPicker builds the picker for doc, opened from source, with the filters
// and folder taken from s. parent is the window the folder chooser opens
// over.
func NewPicker(source string, doc *metalink.Document, s Settings, parent fyne.Window) *Picker {
	LoadTranslations()
	return newPicker(source, doc, s, parent, false)
}

func newPicker(source string, doc *metalink.Document, s Settings, parent fyne.Window, sync bool) *Picker {
	return buildPicker(&Picker{Source: source, Doc: doc, parent: parent, Sync: sync}, s)
}

// buildPicker builds p's screen: p has its Source, Doc, parent and mode
// (Sync, Inside) set.
func buildPicker(p *Picker, s Settings) *Picker {
	doc, sync := p.Doc, p.Sync
	p.parityFile = make([]bool, len(doc.Files))
	if !sync {
		p.parity = metalink.ParitySets(doc.Files)
		for _, set := range p.parity {
			if set.Index >= 0 {
				p.parityFile[set.Index] = true
			}
			for _, v := range set.Volumes {
				p.parityFile[v.File] = true
			}
		}
	}
	p.buildHeader()

	p.Languages = filterEntry(strings.Join(s.Languages, ", "), lang.L("any language"))
	p.OS = filterEntry(strings.Join(s.OS, ", "), lang.L("any system"))
	p.Countries = filterEntry(strings.Join(s.Countries, ", "), lang.L("anywhere"))
	p.opened = pickerOpened{langs: p.Languages.Text, os: p.OS.Text}
	var filters fyne.CanvasObject = container.NewGridWithColumns(3,
		filterColumn(lang.L("Languages"), p.Languages, offered(lang.L("Offered"), doc, func(f metalink.File) []string { return f.Languages })),
		filterColumn(lang.L("Systems"), p.OS, offered(lang.L("Offered"), doc, func(f metalink.File) []string { return f.OS })),
		filterColumn(lang.L("Mirrors near"), p.Countries, offered(lang.L("Mirrors in"), doc, func(f metalink.File) []string {
			var out []string
			for _, u := range f.URLs {
				out = append(out, u.Location)
			}
			return out
		})+"; "+lang.L("tried first, never a filter")),
	)
	p.Path = filterEntry("", lang.L("any path: iso/, *.pdf"))
	switch {
	case sync:
		filters = filterColumn(lang.L("Path"), p.Path, lang.L("narrows the list shown; a sync keeps every listed resource"))
	case p.Inside != nil:
		filters = filterColumn(lang.L("Search"), p.Path, lang.L("narrows the list shown; ticked files stay ticked"))
	}
	for _, e := range []*Entry{p.Languages, p.OS, p.Countries, p.Path} {
		e.OnChanged = func(string) { p.ApplyFilters() }
	}

	p.Files = widget.NewList(
		func() int { return len(p.Shown) },
		p.createRow,
		p.updateRow,
	)
	p.Summary = widget.NewLabel("")
	p.Summary.TextStyle.Bold = true

	p.Dir = NewEntry()
	p.Dir.SetText(s.Dir)
	p.Dir.SetPlaceHolder(lang.L("folder to save into"))
	p.Dir.OnChanged = func(string) { p.updateButtons() }
	p.Browse = widget.NewButtonWithIcon(lang.L("Choose…"), theme.FolderOpenIcon(), p.browse)

	p.Cancel = widget.NewButton(lang.L("Cancel"), p.cancel)
	for _, e := range []*Entry{p.Languages, p.OS, p.Countries, p.Path, p.Dir} {
		e.OnSubmitted = func(string) { p.Accept() }
		e.OnEscape = p.cancel
	}
	p.AddPaused = widget.NewButtonWithIcon(lang.L("Add paused"), theme.MediaPauseIcon(), func() { p.finish(true) })
	p.Start = widget.NewButtonWithIcon(lang.L("Start"), theme.DownloadIcon(), func() { p.finish(false) })
	p.Start.Importance = widget.HighImportance
	if sync {
		p.Start.SetText(lang.L("Sync"))
		p.Start.SetIcon(theme.ViewRefreshIcon())
		p.AddPaused.Hide()
	}

	header := container.NewVBox(p.Title, p.Subtitle, p.Description)
	if len(doc.Rejected) > 0 {
		header.Add(p.rejectedNote())
	}
	p.InsideButton = widget.NewButtonWithIcon(lang.L("Choose files inside"), theme.FolderOpenIcon(), func() {
		if p.OnInside != nil {
			p.OnInside()
		}
	})
	p.InsideButton.Hide() // shown by the window for one ZIP archive
	p.InsideNote = widget.NewLabel("")
	p.InsideNote.Wrapping = fyne.TextWrapWord
	p.InsideNote.Importance = widget.DangerImportance
	p.InsideNote.Hide()
	header.Add(p.InsideNote)
	top := container.NewVBox(header, widget.NewSeparator(), filters, widget.NewSeparator())
	if viaTorrent(doc) {
		// A torrent's files have no languages, systems or mirrors to
		// choose by: only the files themselves.
		top = container.NewVBox(header, widget.NewSeparator())
	}
	dest := container.NewBorder(nil, nil, widget.NewLabel(lang.L("Save to")), p.Browse, p.Dir)
	buttons := container.NewHBox(p.Cancel, layout.NewSpacer(), p.InsideButton, p.AddPaused, p.Start)
	bottom := container.NewVBox(widget.NewSeparator(), p.Summary, dest, buttons)
	p.Content = container.NewBorder(top, bottom, nil, nil, p.buildLists())

	p.ApplyFilters()
	return p
}

// Prefs are the filters as the entries now say.
func (p *Picker) Prefs() metalink.Prefs {
	return metalink.Prefs{
		Languages: splitList(p.Languages.Text),
		OS:        splitList(p.OS.Text),
		Locations: splitList(p.Countries.Text),
	}
}

// ApplyFilters ticks the files the filters select and notes why the others
// are left out. It runs on every keystroke in a filter entry.
func (p *Picker) ApplyFilters() {
	if p.Inside != nil {
		p.filterInside()
		return
	}
	given, defaults := p.selectPrefs()
	choices, _ := metalink.Select(p.Doc.Files, given, defaults)
	n := len(p.Doc.Files)
	p.Ticked = slices.Grow(p.Ticked[:0], n)[:n]
	p.Why = slices.Grow(p.Why[:0], n)[:n]
	p.Shown = p.Shown[:0]
	for i := range p.Doc.Files {
		if p.Sync {
			// A sync keeps the whole list: every resource is ticked.
			p.Ticked[i], p.Why[i] = true, ""
			if pathMatches(p.Path.Text, p.Doc.Files[i].Name) {
				p.Shown = append(p.Shown, i)
			}
			continue
		}
		p.Ticked[i], p.Why[i] = choices[i].Selected, choiceWhy(choices[i].Why)
		if p.parityFile[i] {
			// Shown under the file it mends (updateRow), never ticked:
			// it is fetched only when the file needs mending.
			p.Ticked[i] = false
			continue
		}
		p.Shown = append(p.Shown, i)
	}
	p.Files.Refresh()
	p.updateSummary()
}

// SetTicked ticks or unticks file i, as a tap on its box does.
func (p *Picker) SetTicked(i int, on bool) {
	if i < 0 || i >= len(p.Ticked) || p.Ticked[i] == on || p.Sync || p.parityFile[i] || (on && p.refused(i)) {
		return
	}
	p.Ticked[i] = on
	if row := slices.Index(p.Shown, i); row >= 0 {
		p.Files.RefreshItem(row)
	}
	p.updateSummary()
}

// Request is what Start (paused false) or Add paused would hand over now.
func (p *Picker) Request(paused bool) AddRequest {
	var names []string
	for i, f := range p.Doc.Files {
		if p.Ticked[i] {
			names = append(names, f.Name)
		}
	}
	if p.Inside != nil {
		return AddRequest{Source: p.Source, Doc: p.Inside.Doc, Members: names,
			Dir: strings.TrimSpace(p.Dir.Text), Prefs: p.Prefs(), Paused: paused}
	}
	return AddRequest{
		Sync:   p.Sync,
		Source: p.Source,
		Doc:    p.Doc,
		Files:  names,
		Dir:    strings.TrimSpace(p.Dir.Text),
		Prefs:  p.Prefs(),
		Paused: paused,
	}
}

// Accept is what Enter does: Start, when Start is enabled.
func (p *Picker) Accept() {
	if !p.Start.Disabled() {
		p.finish(false)
	}
}

func (p *Picker) cancel() {
	if p.OnCancel != nil {
		p.OnCancel()
	}
}

// key gives Enter and Escape to the picker from a widget in it that has
// the focus.
func (p *Picker) key(name fyne.KeyName) bool {
	switch name {
	case fyne.KeyReturn, fyne.KeyEnter:
		p.Accept()
	case fyne.KeyEscape:
		p.cancel()
	default:
		return false
	}
	return true
}

func (p *Picker) finish(paused bool) {
	req := p.Request(paused)
	if len(req.Files)+len(req.Members) == 0 || req.Dir == "" {
		return
	}
	if p.OnAdd != nil {
		p.OnAdd(req)
	}
}

func (p *Picker) browse() {
	chooseFolder(p.parent, lang.L("Save to"), p.Dir.Text, p.Dir.SetText)
}

func (p *Picker) updateSummary() {
	files, known := 0, true
	var size int64
	listed := 0 // the files to choose from: not the parity sets
	for i, f := range p.Doc.Files {
		if !p.parityFile[i] {
			listed++
		}
		if !p.Ticked[i] {
			continue
		}
		files++
		if f.Size < 0 {
			known = false
		} else {
			size += f.Size
		}
	}
	s := fmt.Sprintf(lang.L("%s of %s files"), count(files), count(listed))
	if listed == 1 {
		s = lang.L("1 file")
		if files == 0 {
			s = lang.L("The file is left out")
		}
	}
	if files > 0 {
		s += " · " + bytesText(size)
		if !known {
			s += " " + lang.L("and more")
		}
	}
	if p.Sync {
		s = fmt.Sprintf(lang.N("%s files kept in sync · %s", files), count(files), bytesText(size))
		if len(p.Shown) < len(p.Doc.Files) {
			s += " · " + fmt.Sprintf(lang.L("%s shown"), count(len(p.Shown)))
		}
	}
	p.Summary.SetText(s)
	p.updateButtons()
	p.updateTitle()
	if p.lists != nil {
		p.updateMirrors()
	}
}

func (p *Picker) updateButtons() {
	ok := strings.TrimSpace(p.Dir.Text) != "" && slices.Contains(p.Ticked, true)
	for _, b := range []*widget.Button{p.Start, p.AddPaused} {
		if ok {
			b.Enable()
		} else {
			b.Disable()
		}
	}
}

// buildHeader names the document by what its first describing file says:
// metalinks repeat identity, version and publisher on every file.
func (p *Picker) buildHeader() {
	var id, version, desc string
	var pub, licence metalink.Party
	for _, f := range p.Doc.Files {
		id = cmp.Or(id, f.Identity)
		version = cmp.Or(version, f.Version)
		desc = cmp.Or(desc, f.Description)
		if pub.Name == "" {
			pub = f.Publisher
		}
		if licence.Name == "" {
			licence = f.License
		}
	}
	// Without an identity the title names the ticked files; see
	// updateTitle.
	p.identity = id
	title := id
	var sub []string
	if version != "" {
		sub = append(sub, fmt.Sprintf(lang.L("Version %s"), version))
	}
	if pub.Name != "" {
		sub = append(sub, fmt.Sprintf(lang.L("Published by %s"), pub.Name))
	}
	if licence.Name != "" {
		sub = append(sub, fmt.Sprintf(lang.L("Licence: %s"), licence.Name))
	}
	if len(sub) == 0 {
		sub = append(sub, p.Source)
	}
	p.Title = NewTitle(title)
	p.Subtitle = newDim(strings.Join(sub, " · "), theme.SizeNameText)
	p.Description = widget.NewLabel(desc)
	p.Description.Wrapping = fyne.TextWrapWord
	if desc == "" {
		p.Description.Hide()
	}
}

func (p *Picker) rejectedNote() fyne.CanvasObject {
	var lines []string
	for _, r := range p.Doc.Rejected {
		lines = append(lines, fmt.Sprintf("%s: %s", r.Name, engineText(r.Reason)))
	}
	l := widget.NewLabel(fmt.Sprintf(lang.L("%s refused for safety: %s"), countL("%s files", len(lines)), strings.Join(lines, "; ")))
	l.Importance = widget.DangerImportance
	l.Wrapping = fyne.TextWrapWord
	return l
}

// pickerRow is one file in the picker's list.
type pickerRow struct {
	row
	check *keyCheck
	name  *widget.Label
	meta  *widget.RichText
	why   *widget.Label
	// parity is the file's PAR2 parity set, when the document lists one:
	// "parity for NAME (120 recovery blocks, 52 MiB)".
	parity *widget.RichText
	size   *widget.Label
	index  int
}

func (p *Picker) createRow() fyne.CanvasObject {
	r := &pickerRow{
		name:   widget.NewLabel(""),
		meta:   newDim("", theme.SizeNameCaptionText),
		why:    widget.NewLabel(""),
		parity: newDim("", theme.SizeNameCaptionText),
		size:   widget.NewLabel(""),
	}
	r.check = newKeyCheck(func(on bool) { p.SetTicked(r.index, on) }, p.key)
	r.parity.Hide() // shown by updateRow for a file with a parity set
	r.name.TextStyle.Bold = true
	r.name.Truncation = fyne.TextTruncateEllipsis
	r.why.SizeName = theme.SizeNameCaptionText
	r.why.Importance = widget.WarningImportance
	r.why.Truncation = fyne.TextTruncateEllipsis
	lines := container.New(layout.NewCustomPaddedVBoxLayout(-2*theme.Padding()), r.name, r.meta, r.parity, r.why)
	r.size.Alignment = fyne.TextAlignTrailing
	r.content = container.New(&columns{widths: []float32{32, 0, 90}}, r.check, lines, r.size)
	r.ExtendBaseWidget(r)
	return r
}

func (p *Picker) updateRow(row widget.ListItemID, o fyne.CanvasObject) {
	if row >= len(p.Shown) {
		return
	}
	i := p.Shown[row]
	r := o.(*pickerRow)
	f := p.Doc.Files[i]
	r.index = i
	if p.Sync || p.refused(i) {
		r.check.Disable()
	} else {
		r.check.Enable()
	}
	// Setting the box's state must not count as the user's tap.
	r.check.OnChanged = nil
	r.check.SetChecked(p.Ticked[i])
	r.check.OnChanged = func(on bool) { p.SetTicked(r.index, on) }
	r.name.SetText(f.Name)
	r.size.SetText(bytesText(f.Size))
	if p.Inside != nil {
		setDim(r.meta, p.memberMeta(i))
	} else {
		setDim(r.meta, fileMeta(f, p.Prefs().Locations))
	}
	if set, ok := p.parity[f.Name]; ok {
		setDim(r.parity, parityLine(set, p.Doc.Files))
		r.parity.Show()
	} else {
		setDim(r.parity, "")
		r.parity.Hide()
	}
	if p.Why[i] != "" && p.Inside != nil {
		r.why.SetText(p.Why[i])
		r.why.Show()
	} else if p.Why[i] != "" {
		r.why.SetText(fmt.Sprintf(lang.L("Left out: %s"), p.Why[i]))
		r.why.Show()
	} else {
		r.why.SetText("")
		r.why.Hide()
	}
	p.Files.SetItemHeight(row, r.MinSize().Height)
}

// fileMeta is the line under a file's name: its languages, systems and
// mirrors, with how many are in the user's countries.
func fileMeta(f metalink.File, countries []string) string {
	var parts []string
	if len(f.Languages) > 0 {
		parts = append(parts, strings.Join(f.Languages, ", "))
	}
	if len(f.OS) > 0 {
		parts = append(parts, strings.Join(f.OS, ", "))
	}
	if len(f.URLs) == 0 && hasTorrent(f) {
		parts = append(parts, lang.L("BitTorrent"))
		return strings.Join(parts, " · ")
	}
	m := countL("%s mirrors", len(f.URLs))
	near := 0
	for _, u := range f.URLs {
		for _, c := range countries {
			if c := metalink.NormalizeCountry(c); c != "" && c == metalink.NormalizeCountry(u.Location) {
				near++
				break
			}
		}
	}
	if near > 0 {
		m += " " + fmt.Sprintf(lang.L("(%d near you)"), near)
	}
	parts = append(parts, m)
	if len(f.Hashes) > 0 || f.Pieces != nil {
		parts = append(parts, lang.L("verified by hash"))
	}
	return strings.Join(parts, " · ")
}

// parityLine is the line under a file the document lists a PAR2 parity
// set for: "parity for big.iso (120 recovery blocks, 52 MiB)"; the size
// is left out when the document gives none of the set's sizes.
func parityLine(set metalink.ParitySet, files []metalink.File) string {
	blocks := countL("%s recovery blocks", set.Blocks())
	if size := set.Size(files); size > 0 {
		return fmt.Sprintf(lang.L("parity for %s (%s, %s)"), set.Of, blocks, bytesText(size))
	}
	return fmt.Sprintf(lang.L("parity for %s (%s)"), set.Of, blocks)
}

// offered lists the distinct values the document's files carry, for a
// filter's hint.
func offered(label string, doc *metalink.Document, of func(metalink.File) []string) string {
	var seen []string
	for _, f := range doc.Files {
		for _, v := range of(f) {
			if v != "" && !slices.Contains(seen, v) {
				seen = append(seen, v)
			}
		}
	}
	if len(seen) == 0 {
		return fmt.Sprintf(lang.L("%s: not stated"), label)
	}
	if len(seen) > 8 {
		return fmt.Sprintf(lang.L("%s: %s and %d more"), label, strings.Join(seen[:8], ", "), len(seen)-8)
	}
	return label + ": " + strings.Join(seen, ", ")
}

func filterEntry(text, placeholder string) *Entry {
	e := NewEntry()
	e.SetText(text)
	e.SetPlaceHolder(placeholder)
	return e
}

// filterColumn is a filter's caption, entry and hint, stacked.
func filterColumn(label string, e *Entry, hint string) fyne.CanvasObject {
	l := widget.NewLabelWithStyle(label, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.SizeName = theme.SizeNameCaptionText
	tight := layout.NewCustomPaddedVBoxLayout(0)
	return container.New(tight, l, e, newDim(hint, theme.SizeNameCaptionText))
}

// splitList reads a comma or space separated list as typed.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' })
}

// pathMatches reports whether a resource's path passes the picker's path
// filter: empty passes all; with * or ? it is a pattern matched against
// the path and its last element; otherwise the path contains it, in any
// case.
func pathMatches(filter, name string) bool {
	filter = strings.TrimSpace(filter)
	if filter == "" {
		return true
	}
	if strings.ContainsAny(filter, "*?[") {
		if ok, _ := path.Match(filter, name); ok {
			return true
		}
		ok, _ := path.Match(filter, path.Base(name))
		return ok
	}
	return strings.Contains(strings.ToLower(name), strings.ToLower(filter))
}

// hasTorrent reports whether f comes through a torrent (a metaurl of
// media type torrent).
func hasTorrent(f metalink.File) bool {
	return slices.ContainsFunc(f.MetaURLs, func(m metalink.MetaURL) bool { return m.MediaType == metalink.MediaTorrent })
}

// viaTorrent reports whether every file of doc comes only through a
// torrent (a .torrent or a magnet link opened): no mirror to list.
func viaTorrent(doc *metalink.Document) bool {
	if len(doc.Files) == 0 {
		return false
	}
	for _, f := range doc.Files {
		if len(f.URLs) > 0 || !hasTorrent(f) {
			return false
		}
	}
	return true
}
