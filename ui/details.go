package ui

import (
	"fmt"
	"fyne.io/fyne/v2/lang"
	"image/color"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Details is the pane under the queue that shows the selected job: its
// files, its mirrors, the segment map of one file, and what is known about
// its integrity, with Verify and Repair for finished jobs. Its parts are
// exported for tests; it is changed only on the UI goroutine.
type Details struct {
	// Detail is what the pane shows; File is the index in Detail.Files of
	// the file the Mirrors, Segments and Info tabs are about.
	Detail Detail
	File   int
	Empty  bool // no job is selected
	// showDetail: the technical text of the problem shows in Info.
	showDetail bool

	Title      *TipLabel
	State      *widget.RichText // state, progress, speed and time left, wrapped, never cut
	Organise   *widget.RichText // category and action when done (whendone.go); hidden when neither
	FileSelect *widget.Select   // shown when the job has several files
	Verify     *widget.Button
	Repair     *widget.Button
	// ImportKey shows when a key not in the keyring signed the job;
	// SyncAgain on a sync job.
	ImportKey *widget.Button
	SyncAgain *widget.Button
	Extra     jobActions      // "Change link…", "Log in…" (relink.go)
	actions   *fyne.Container // the buttons above, re-laid out as they show and hide
	jobLimit  *widget.Button  // "Speed limit…", when the backend keeps one per job (joblimit.go)

	Tabs        *container.AppTabs
	FilesTab    *container.TabItem
	MirrorsTab  *container.TabItem
	SegmentsTab *container.TabItem
	InfoTab     *container.TabItem

	Files      *widget.List
	Mirrors    *widget.List
	Segments   *SegmentMap
	SegSummary *widget.RichText
	Info       *fyne.Container // form layout: key, value, key, value, ...

	// Content is the pane; it shows Placeholder when no job is selected.
	Content     *fyne.Container
	Placeholder fyne.CanvasObject
	body        fyne.CanvasObject

	// OnVerify and OnRepair run when their buttons are pressed, with the
	// shown job's ID.
	OnVerify func(JobID)
	OnRepair func(JobID)
	// OnImportKey runs when "Import key…" is pressed, with the unknown
	// key's fingerprint.
	OnImportKey func(fingerprint string)
	// OnSyncAgain runs when "Sync again" is pressed.
	OnSyncAgain func(JobID)
	// OnTab runs when the user switches tab, so the ticker reads only what
	// is shown.
	OnTab func()
	// OnWant runs when a file of a downloading torrent is ticked (fetch)
	// or unticked (skip) in the Files tab.
	OnWant func(id JobID, name string, want bool)
	// OnPriority runs when a fetched file's priority is chosen: High is
	// fetched before the Normal files (torrentfiles.go).
	OnPriority func(id JobID, name string, high bool)
	swarm      *swarmTabs // the Peers and Trackers tabs of torrent jobs (peers.go)
}

// NewDetails builds an empty details pane.
func NewDetails() *Details {
	LoadTranslations()
	d := &Details{Empty: true}
	d.Title = NewTitle("")
	d.State = newStyled(fyne.TextAlignLeading)
	// The row's state cell is cut where the list is narrow; this line is
	// where it is read whole ("Waiting: The server refused the
	// connection. · next try in 8 s · …", the speed with its limit), so it
	// wraps onto more lines rather than cut.
	d.State.Truncation = fyne.TextTruncateOff
	d.State.Wrapping = fyne.TextWrapWord
	d.Organise = newOrganiseLine()
	d.FileSelect = widget.NewSelect(nil, func(string) {
		if i := d.FileSelect.SelectedIndex(); i >= 0 && i != d.File {
			d.File = i
			d.refreshFile()
		}
	})
	d.FileSelect.Hide()
	d.Verify = widget.NewButtonWithIcon(lang.L("Verify"), theme.SearchIcon(), func() {
		if d.OnVerify != nil && !d.Empty {
			d.showCheck()
			d.OnVerify(d.Detail.ID)
		}
	})
	d.Repair = widget.NewButtonWithIcon(lang.L("Repair"), theme.ViewRefreshIcon(), func() {
		if d.OnRepair != nil && !d.Empty {
			d.showCheck()
			d.OnRepair(d.Detail.ID)
		}
	})

	d.ImportKey = widget.NewButtonWithIcon(lang.L("Import key…"), theme.AccountIcon(), func() {
		if d.OnImportKey != nil && !d.Empty && d.Detail.UnknownKey != "" {
			d.OnImportKey(d.Detail.UnknownKey)
		}
	})
	d.ImportKey.Hide()
	d.SyncAgain = widget.NewButtonWithIcon(lang.L("Sync again"), theme.ViewRefreshIcon(), func() {
		if d.OnSyncAgain != nil && !d.Empty && d.Detail.Sync {
			d.OnSyncAgain(d.Detail.ID)
		}
	})
	d.SyncAgain.Hide()

	d.swarm = newSwarmTabs()
	d.Files = widget.NewList(func() int { return len(d.Detail.Files) }, d.newFileRow, d.updateFileRow)
	d.Files.OnSelected = func(id widget.ListItemID) {
		if id != d.File {
			d.File = id
			d.FileSelect.SetSelectedIndex(id)
			d.refreshFile()
		}
	}
	d.Mirrors = widget.NewList(d.mirrorCount, newMirrorRow, d.updateMirrorRow)
	d.Segments = NewSegmentMap()
	d.SegSummary = newDim("", theme.SizeNameText)
	d.Info = container.New(layout.NewFormLayout())

	d.FilesTab = container.NewTabItemWithIcon(lang.L("Files"), theme.FileIcon(),
		container.NewBorder(header(fileWidths, lang.L("Name"), lang.L("Size"), lang.L("Progress"), lang.L("Speed"), lang.L("State")), nil, nil, nil, d.Files))
	d.MirrorsTab = container.NewTabItemWithIcon(lang.L("Mirrors"), theme.StorageIcon(),
		container.NewBorder(header(mirrorWidths, "", lang.L("Host"), lang.L("Location"), lang.L("Priority"), lang.L("State"), lang.L("Speed"), lang.L("Bytes"), lang.L("Strikes")), nil, nil, nil, d.Mirrors))
	d.SegmentsTab = container.NewTabItemWithIcon(lang.L("Segments"), theme.GridIcon(),
		container.NewBorder(d.SegSummary, nil, nil, nil, d.Segments))
	d.InfoTab = container.NewTabItemWithIcon(lang.L("Info"), theme.InfoIcon(), container.NewVScroll(d.Info))
	d.Tabs = container.NewAppTabs(d.FilesTab, d.MirrorsTab, d.SegmentsTab, d.InfoTab)
	d.Tabs.OnSelected = func(*container.TabItem) {
		d.noteSwarmTab()
		d.refreshFile()
		if d.OnTab != nil {
			d.OnTab()
		}
	}

	d.actions = container.NewHBox(d.FileSelect, d.ImportKey, d.SyncAgain, d.Verify, d.Repair)
	d.addJobActions()
	tight := layout.NewCustomPaddedVBoxLayout(0)
	top := container.NewBorder(nil, nil, nil,
		container.NewCenter(d.actions),
		container.New(tight, d.Title, d.State, d.Organise))
	d.body = container.NewBorder(top, nil, nil, nil, d.Tabs)
	d.Placeholder = container.NewCenter(newHint(lang.L("Select a download to see its files, its mirrors and which mirror filled which piece.")))
	d.Content = container.NewStack(d.Placeholder)
	return d
}

// Clear shows the placeholder: no job is selected.
func (d *Details) Clear() {
	d.Empty = true
	d.Detail = Detail{}
	d.File = 0
	d.Content.Objects = []fyne.CanvasObject{d.Placeholder}
	d.Content.Refresh()
}

// Show displays det, keeping the chosen file and tab when it is the job
// already shown.
func (d *Details) Show(det Detail) {
	same := !d.Empty && det.ID == d.Detail.ID
	if d.Empty {
		d.Content.Objects = []fyne.CanvasObject{d.body}
		d.Content.Refresh()
	}
	d.Empty = false
	if !same {
		d.File = firstBusyFile(det.Files)
	}
	d.File = min(d.File, max(0, len(det.Files)-1))
	oldNames := fileNames(d.Detail.Files)
	d.Detail = det

	d.Title.SetText(det.Name)
	setStyled(d.State, jobLine(det.Job), stateColor(det.Job))
	showOrganise(d.Organise, det.Job)
	if names := fileNames(det.Files); !same || !slices.Equal(names, oldNames) {
		d.FileSelect.SetOptions(names)
	}
	showIf(len(det.Files) > 1 && !det.Sync, d.FileSelect)
	if d.FileSelect.SelectedIndex() != d.File && d.File < len(det.Files) {
		d.FileSelect.SetSelectedIndex(d.File)
	}
	d.setActions()
	d.showSwarm(det, same)
	if d.Tabs.Selected() == d.FilesTab {
		d.Files.Refresh()
	}
	d.refreshFile()
}

// setActions enables Verify and Repair on jobs whose files are all on disk
// (done, or failed its checksum) and nowhere else.
func (d *Details) setActions() {
	j := d.Detail.Job
	checking := j.State == Verifying || j.State == Repairing
	finished := !checking && canVerify(j) // check.go
	// A sync job is checked by syncing it again, file by file; Verify
	// and Repair are for downloads. Repair shows only where piece hashes
	// can find bad bytes; Info says why where it does not.
	showIf(j.Sync, d.SyncAgain)
	if d.jobLimit != nil {
		showIf(!j.Sync, d.jobLimit) // a sync has no speed limit of its own
	}
	showIf(!j.Sync, d.Verify)
	showIf(!j.Sync && repairWhyNot(d.Detail) == "", d.Repair)
	if j.State.Live() {
		d.SyncAgain.Disable()
	} else {
		d.SyncAgain.Enable()
	}
	for _, b := range []*widget.Button{d.Verify, d.Repair} {
		if finished {
			b.Enable()
		} else {
			b.Disable()
		}
	}
	if j.Mismatch {
		d.Repair.Importance = widget.HighImportance
	} else {
		d.Repair.Importance = widget.MediumImportance
	}
	d.Repair.Refresh()
	showIf(d.Detail.UnknownKey != "", d.ImportKey)
	d.showJobActions()
	d.actions.Refresh()
}

// showIf shows the objects when on, else hides them.
func showIf(on bool, objs ...fyne.CanvasObject) {
	for _, o := range objs {
		if on {
			o.Show()
		} else {
			o.Hide()
		}
	}
}

// refreshFile updates the tab that shows the current file; hidden tabs are
// updated when they are shown.
func (d *Details) refreshFile() {
	if d.Empty {
		return
	}
	var f FileDetail
	if d.File < len(d.Detail.Files) {
		f = d.Detail.Files[d.File]
	}
	switch d.Tabs.Selected() {
	case d.MirrorsTab:
		d.Mirrors.Refresh()
	case d.SegmentsTab:
		d.Segments.Set(f.Pieces, mirrorHosts(f.Mirrors))
		setDim(d.SegSummary, segmentCaption(f))
	case d.InfoTab:
		d.fillInfo(f)
	case d.FilesTab:
		d.Files.Refresh()
	}
}

// NeedsPieces reports whether the pane shows the segment map, the one
// thing that costs the backend a copy of every piece's state.
func (d *Details) NeedsPieces() bool { return !d.Empty && d.Tabs.Selected() == d.SegmentsTab }

// jobLine says in a line where a job is: "Downloading · 92 MiB of 140 MiB ·
// 6.4 MiB/s · 9 s left".
func jobLine(j Job) string {
	parts := []string{lookOf(j).Text}
	switch {
	case j.Size > 0 && j.State != Done:
		parts = append(parts, fmt.Sprintf(lang.L("%s of %s"), bytesText(j.Done), bytesText(j.Size)))
	case j.Size > 0:
		parts = append(parts, bytesText(j.Size))
	case j.Done > 0:
		parts = append(parts, bytesText(j.Done))
	}
	if j.State == Seeding || j.Peers > 0 || j.Seeds > 0 {
		// A seeding job's state says its ratio already: once is enough.
		parts = append(parts, swarmText(j, !strings.Contains(parts[0], ratioText(j))))
	}
	if j.State == Running {
		if s := limited(j, speedText(j.Speed)); s != "" { // the job's own limit: joblimit.go
			parts = append(parts, s)
		}
		if e := etaText(j.ETA); e != "" {
			parts = append(parts, fmt.Sprintf(lang.L("%s left"), e))
		}
	}
	return strings.Join(parts, " · ")
}

func segmentCaption(f FileDetail) string {
	if f.Pieces.Len() == 0 {
		if f.Size < 0 {
			return lang.L("The pieces are laid out once a mirror tells the file's size.")
		}
		return lang.L("No pieces to show.")
	}
	s := f.Pieces.Summary()
	if f.PieceLength > 0 {
		s += " · " + fmt.Sprintf(lang.L("%s each"), bytesText(f.PieceLength))
	}
	if f.PieceHash == "" {
		s += " · " + lang.L("no piece hashes: pieces track progress only")
	}
	return s
}

func (d *Details) fillInfo(f FileDetail) {
	det := d.Detail
	var rows []fyne.CanvasObject
	add := func(key, value string) {
		if value == "" {
			return
		}
		k := widget.NewLabelWithStyle(key, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
		v := widget.NewLabel(value)
		v.Wrapping = fyne.TextWrapBreak
		v.Selectable = true
		rows = append(rows, k, v)
	}
	add(lang.L("File"), f.Name)
	if f.SavedAs != "" {
		add(lang.L("Saved as"), fmt.Sprintf(lang.L("%s (a different file was already at %s; Braid does not overwrite it)"), f.SavedAs, f.Name))
	}
	// What the last check found comes first: after Verify or Repair the
	// pane turns to Info (check.go) and says it without a scroll.
	add(lang.L("Verification"), cmpOrState(f))
	if f.HasParity {
		add(lang.L("Parity"), parityText(f))
	}
	if canVerify(det.Job) {
		add(lang.L("Repair"), repairWhyNot(det)) // check.go
	}
	add(lang.L("Size"), sizeLong(f.Size))
	add(lang.L("Saved in"), det.Dir)
	add(lang.L("Source"), det.Source)
	if det.Origin != "" && det.Origin != det.Source {
		add(lang.L("Origin"), det.Origin)
	}
	add(lang.L("Publisher"), det.Publisher)
	add(lang.L("Licence"), det.License)
	switch {
	case det.Signer != "" && det.SignerUnknown:
		add(lang.L("Signed by"), fmt.Sprintf(lang.L("%s (a key you have not said you trust)"), det.Signer))
	case det.Signer != "":
		add(lang.L("Signed by"), det.Signer)
	}
	if det.Outcome != "" {
		add(lang.L("Outcome"), det.Outcome)
	}
	add(lang.L("What to do"), det.Advice)
	add(lang.L("News"), det.Notice)
	if det.Peers > 0 || det.Seeds > 0 || det.Ratio > 0 || det.State == Seeding {
		add(lang.L("Peers"), peersText(det.Job))
	}
	add(lang.L("Identity"), det.Identity)
	add(lang.L("Version"), det.Version)
	var hashes []string
	for _, h := range f.Hashes {
		hashes = append(hashes, h.Type+"  "+h.Value)
	}
	switch {
	case len(hashes) > 0:
	case f.PieceHash != "":
		hashes = append(hashes, lang.L("none for the whole file; each piece is checked against its own hash"))
	default:
		hashes = append(hashes, lang.L("none: the file cannot be verified"))
	}
	add(lang.L("Hashes"), strings.Join(hashes, "\n"))
	pieces := f.PieceCount
	if pieces == 0 {
		pieces = f.Pieces.Len()
	}
	switch {
	case f.PieceHash != "":
		add(lang.L("Piece hashes"), fmt.Sprintf(lang.L("%s, %s pieces of %s"), f.PieceHash, count(pieces), bytesText(f.PieceLength)))
	default:
		add(lang.L("Piece hashes"), lang.L("none: a bad piece is found only when the whole file is checked"))
	}
	if f.SignatureOutcome != "" {
		add(lang.L("Signature"), f.SignatureOutcome)
	} else if f.Signature != "" {
		add(lang.L("Signature"), fmt.Sprintf(lang.L("present (%s); checked against your keys when the file is complete"), f.Signature))
	} else {
		add(lang.L("Signature"), lang.L("none"))
	}
	problem, detail := f.Err, f.ErrDetail
	if problem == "" && det.Err != "" && det.State != Done {
		problem, detail = det.Err, det.ErrDetail
	}
	if problem != "" {
		add(lang.L("Problem"), problem)
		if detail != "" {
			rows = append(rows, layout.NewSpacer(), d.detailToggle(detail, func() { d.fillInfo(f) }))
		}
	}
	add(lang.L("About"), det.Description)
	d.Info.Objects = rows
	d.Info.Refresh()
}

// detailToggle is the "Details" button under a problem: it shows and hides
// the problem's technical text, which can be selected or copied whole.
// again redraws the pane after a toggle.
func (d *Details) detailToggle(detail string, again func()) fyne.CanvasObject {
	toggle := widget.NewButtonWithIcon(lang.L("Details"), theme.MenuDropDownIcon(), func() {
		d.showDetail = !d.showDetail
		again()
	})
	toggle.Importance = widget.LowImportance
	if !d.showDetail {
		return container.NewHBox(toggle)
	}
	toggle.Icon = theme.MenuDropUpIcon()
	copyButton := widget.NewButtonWithIcon(lang.L("Copy"), theme.ContentCopyIcon(), func() {
		if a := fyne.CurrentApp(); a != nil && a.Clipboard() != nil {
			a.Clipboard().SetContent(detail)
		}
	})
	copyButton.Importance = widget.LowImportance
	text := widget.NewLabel(detail)
	text.Wrapping = fyne.TextWrapBreak
	text.Selectable = true
	text.TextStyle = fyne.TextStyle{Monospace: true}
	return container.NewVBox(container.NewHBox(toggle, copyButton), text)
}

// peersText says how a torrent stands with its swarm: "12 peers (3
// seeds) · ratio 0.84 · ↑1.2 MiB/s".
func peersText(j Job) string { return swarmText(j, true) }

// swarmText is peersText, with the ratio or without it.
func swarmText(j Job, ratio bool) string {
	parts := []string{fmt.Sprintf(lang.L("peers: %s, seeds: %s"), count(j.Peers), count(j.Seeds))}
	if ratio {
		parts = append(parts, ratioText(j))
	}
	if s := speedText(j.Upload); s != "" {
		parts = append(parts, "↑"+s)
	}
	return strings.Join(parts, " · ")
}

// ratioText is "ratio 0.84".
func ratioText(j Job) string { return fmt.Sprintf(lang.L("ratio %.2f"), j.Ratio) }

func cmpOrState(f FileDetail) string {
	if f.Verification != "" {
		return f.Verification
	}
	return f.State.String()
}

// parityText says what a file's PAR2 parity set can mend: "120 recovery
// blocks available".
func parityText(f FileDetail) string {
	if f.ParityBlocks == 0 {
		return lang.L("the index only: no recovery blocks listed")
	}
	return countL("%s recovery blocks available", f.ParityBlocks)
}

func sizeLong(n int64) string {
	if n < 0 {
		return lang.L("not known yet")
	}
	if n < 1024 {
		return bytesText(n)
	}
	return fmt.Sprintf(lang.L("%s (%s bytes)"), bytesText(n), count(int(n)))
}

func firstBusyFile(files []FileDetail) int {
	for i, f := range files {
		if f.State == FileRunning || f.State == FileVerifying || f.State == FileMismatch {
			return i
		}
	}
	return 0
}

func fileNames(files []FileDetail) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Name
	}
	return out
}

func mirrorHosts(ms []MirrorDetail) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Host
	}
	return out
}

// Files tab: name, size, progress, speed, state.
var fileWidths = []float32{0, 80, 150, 90, 150}

type fileRow struct {
	row
	want              *widget.Check  // fetch or skip, for a downloading torrent (peers.go)
	prio              *widget.Select // normal or high (torrentfiles.go)
	name, size, speed *widget.Label
	state             *widget.RichText
	progress          *Bar
}

func (d *Details) newFileRow() fyne.CanvasObject {
	r := &fileRow{
		want:     d.newWantCheck(),
		prio:     d.newPriorityChoice(),
		name:     cellLabel(fyne.TextAlignLeading),
		size:     cellLabel(fyne.TextAlignTrailing),
		progress: NewBar(),
		speed:    cellLabel(fyne.TextAlignTrailing),
		state:    newStyled(fyne.TextAlignLeading),
	}
	r.content = container.New(&columns{widths: fileWidths}, container.NewBorder(nil, nil, r.want, r.prio, r.name), r.size, r.progress, r.speed, r.state)
	r.ExtendBaseWidget(r)
	return r
}

func (d *Details) updateFileRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(d.Detail.Files) {
		return
	}
	f := d.Detail.Files[i]
	r := o.(*fileRow)
	r.name.SetText(f.Name)
	r.size.SetText(bytesText(f.Size))
	p := 0.0
	switch {
	case f.State == FileVerified, f.State == FileUnverified, f.State == FileMissing, f.State == FileChanged:
		p = 1
	case f.Size > 0:
		p = min(1, float64(f.Done)/float64(f.Size))
	}
	c := fileColor(f.State)
	r.progress.Set(p, c)
	if f.State == FileRunning {
		r.speed.SetText(speedText(f.Speed))
	} else {
		r.speed.SetText("")
	}
	setStyled(r.state, f.State.String(), c)
	d.setWant(r, f) // torrentfiles.go
}

func fileColor(s FileState) fyne.ThemeColorName {
	switch s {
	case FileMismatch, FileFailed:
		return theme.ColorNameError
	case FileVerified:
		return theme.ColorNameSuccess
	case FileUnverified, FileMissing, FileChanged:
		return theme.ColorNameWarning
	case FileWaiting, FilePaused, FileQueued:
		return theme.ColorNamePlaceHolder
	}
	return theme.ColorNamePrimary
}

// Mirrors tab: colour, host, location, priority, state, speed, bytes,
// strikes.
var mirrorWidths = []float32{12, 0, 70, 70, 260, 90, 80, 60}

type mirrorRow struct {
	tipRow
	swatch                                                   *canvas.Rectangle
	host, location, priority, state, speed, bytes, strikesLb *widget.Label
}

func newMirrorRow() fyne.CanvasObject {
	sw := canvas.NewRectangle(color.Transparent)
	sw.CornerRadius = 2
	sw.SetMinSize(fyne.NewSize(12, 12))
	r := &mirrorRow{
		swatch:    sw,
		host:      cellLabel(fyne.TextAlignLeading),
		location:  cellLabel(fyne.TextAlignLeading),
		priority:  cellLabel(fyne.TextAlignTrailing),
		state:     cellLabel(fyne.TextAlignLeading),
		speed:     cellLabel(fyne.TextAlignTrailing),
		bytes:     cellLabel(fyne.TextAlignTrailing),
		strikesLb: cellLabel(fyne.TextAlignTrailing),
	}
	r.content = container.New(&columns{widths: mirrorWidths},
		sw, r.host, r.location, r.priority, r.state, r.speed, r.bytes, r.strikesLb)
	r.cells, r.super = r.content, r
	r.whole = func(i int) string {
		// The host and the state, a sentence that is often cut:
		// "Waiting: The server refused the co…".
		var l *widget.Label
		switch i {
		case 1:
			l = r.host
		case 4:
			l = r.state
		default:
			return ""
		}
		if !isCut(l.Text, l.Size().Width) {
			return ""
		}
		return l.Text
	}
	r.ExtendBaseWidget(r)
	return r
}

func (d *Details) mirrorCount() int {
	if d.File < len(d.Detail.Files) {
		return len(d.Detail.Files[d.File].Mirrors)
	}
	return 0
}

func (d *Details) updateMirrorRow(i widget.ListItemID, o fyne.CanvasObject) {
	if d.File >= len(d.Detail.Files) || i >= len(d.Detail.Files[d.File].Mirrors) {
		return
	}
	m := d.Detail.Files[d.File].Mirrors[i]
	r := o.(*mirrorRow)
	r.swatch.FillColor = MirrorColor(i)
	r.swatch.Refresh()
	r.host.SetText(m.Host)
	r.location.SetText(m.Location)
	r.priority.SetText(fmt.Sprint(m.Priority))
	st := m.State.String()
	if m.Err != "" && m.State != MirrorActive {
		st += ": " + m.Err
	}
	r.state.SetText(st)
	switch m.State {
	case MirrorDropped:
		r.state.Importance = widget.DangerImportance
	case MirrorWaiting:
		r.state.Importance = widget.WarningImportance
	case MirrorActive:
		r.state.Importance = widget.SuccessImportance
	default:
		r.state.Importance = widget.MediumImportance
	}
	r.state.Refresh()
	if m.State == MirrorActive {
		r.speed.SetText(speedText(m.Speed))
	} else {
		r.speed.SetText("")
	}
	if m.Bytes < 0 {
		r.bytes.SetText("")
	} else {
		r.bytes.SetText(bytesText(m.Bytes))
	}
	r.strikesLb.SetText(fmt.Sprint(m.Strikes))
	if m.Strikes > 0 {
		r.strikesLb.Importance = widget.DangerImportance
	} else {
		r.strikesLb.Importance = widget.MediumImportance
	}
	r.strikesLb.Refresh()
	r.retip()
}
