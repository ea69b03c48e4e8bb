package ui

import (
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// menuItems are the main menu's items that depend on the selection.
type menuItems struct {
	pause, resume, stopSeed, remove, up, down, top, bottom, openFile, folder, copyURL *fyne.MenuItem

	whenDone *fyne.MenuItem // "When done…" (whendone.go)
	limit    *fyne.MenuItem // nil: the backend has no per-download limit
}

// buildMenu sets the main menu: a menu bar in the window on Linux and
// Windows, the global menu on macOS. Its items show the same shortcuts
// the canvas has.
func (w *Window) buildMenu() {
	item := func(label string, key fyne.Shortcut, do func()) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, do)
		it.Shortcut = key
		return it
	}
	m := &w.menu
	m.pause = item(lang.L("Pause"), ctrl(fyne.KeyP), w.PauseSelected)
	m.resume = item(lang.L("Resume"), ctrl(fyne.KeyR), w.ResumeSelected)
	m.stopSeed = item(lang.L("Stop seeding"), nil, w.StopSeedingSelected)
	m.remove = item(lang.L("Remove…"), ctrl(fyne.KeyDelete), w.RemoveSelected)
	m.up = item(lang.L("Move up"), ctrl(fyne.KeyUp), w.MoveSelectedUp)
	m.down = item(lang.L("Move down"), ctrl(fyne.KeyDown), w.MoveSelectedDown)
	m.top = item(lang.L("Move to the top"), ctrl(fyne.KeyHome), w.MoveSelectedTop)
	m.bottom = item(lang.L("Move to the bottom"), ctrl(fyne.KeyEnd), w.MoveSelectedBottom)
	m.openFile = item(openLabel(false), nil, w.openFromMenu) // actions.go
	m.folder = item(lang.L("Show in folder"), ctrl(fyne.KeyE), w.OpenSelectedFolder)
	m.copyURL = item(lang.L("Copy source URL"), ctrlShift(fyne.KeyC), w.CopySourceURL)
	m.whenDone = item(lang.L("When done…"), nil, w.AskWhenDone)
	m.limit = w.jobLimitItem() // joblimit.go

	var pauses []*fyne.MenuItem
	for _, d := range Pauses {
		pauses = append(pauses, fyne.NewMenuItem(durationText(d), func() { w.PauseAllFor(d) }))
	}
	pauseFor := fyne.NewMenuItem(lang.L("Pause all for"), nil)
	pauseFor.ChildMenu = fyne.NewMenu("", pauses...)

	quit := item(lang.L("Quit"), ctrl(fyne.KeyQ), w.closeRequested)
	quit.IsQuit = true
	settings := item(lang.L("Settings…"), ctrl(fyne.KeyComma), w.ShowSettings)
	w.Menu = fyne.NewMainMenu(
		fyne.NewMenu(lang.L("File"),
			item(lang.L("Add URL…"), ctrl(fyne.KeyN), w.AskURL),
			item(lang.L("Open…"), ctrl(fyne.KeyO), w.AskFile),
			fyne.NewMenuItem(lang.L("Add the link on the clipboard"), w.PasteURL),
			fyne.NewMenuItemSeparator(),
			settings,
			quit,
		),
		fyne.NewMenu(lang.L("Downloads"),
			m.pause, m.resume, m.stopSeed, m.remove,
			fyne.NewMenuItemSeparator(),
			fyne.NewMenuItem(lang.L("Select all"), w.SelectAll),
			m.up, m.down, m.top, m.bottom,
			fyne.NewMenuItemSeparator(),
			m.openFile, m.folder, m.copyURL, m.whenDone,
			fyne.NewMenuItemSeparator(),
			fyne.NewMenuItem(lang.L("Pause all"), w.PauseAll),
			fyne.NewMenuItem(lang.L("Resume all"), w.ResumeAll),
		),
		fyne.NewMenu(lang.L("Speed"),
			item(lang.L("Alternative speed limit"), ctrl(fyne.KeyL), w.ToggleAltSpeed),
			pauseFor,
			fyne.NewMenuItem(lang.L("End the pause"), w.ResumeSchedule),
			fyne.NewMenuItem(lang.L("Schedule…"), w.ShowSchedule),
		),
		fyne.NewMenu(lang.L("Help"),
			fyne.NewMenuItem(lang.L("Keyboard shortcuts"), w.ShowShortcuts),
			fyne.NewMenuItem(lang.L("About Braid"), w.ShowAbout),
		),
	)
	w.Menu.Items[1].Items = withItem(w.Menu.Items[1].Items, 3, m.limit) // joblimit.go
	w.Win.SetMainMenu(w.Menu)
}

// ShowRowMenu shows the actions on the selection at a right click on job
// id's row; a row outside the selection is selected first.
func (w *Window) ShowRowMenu(id JobID, at fyne.Position) {
	if !w.marked[id] && id != w.selected {
		w.Select(id)
	}
	w.setToolbar()
	m := &w.menu
	sep := fyne.NewMenuItemSeparator
	menu := fyne.NewMenu("", m.pause, m.resume, m.stopSeed, sep(), m.openFile, m.folder, m.copyURL, m.whenDone, sep(),
		m.top, m.up, m.down, m.bottom, sep(), m.remove)
	menu.Items = withItem(menu.Items, 3, m.limit) // joblimit.go
	menu.Items = w.withInOrder(menu.Items, id)    // actions.go
	head, rest := w.jobMenuItems(id)              // login.go, relink.go
	menu.Items = slices.Insert(menu.Items, slices.Index(menu.Items, m.copyURL)+1, rest...)
	menu.Items = append(head, menu.Items...)
	menu.Items = append(w.checkItems(id), menu.Items...) // check.go
	if j, ok := w.model.find(id); ok && j.Sync {
		again := fyne.NewMenuItem(lang.L("Sync again"), w.SyncAgainSelected)
		again.Icon = theme.ViewRefreshIcon()
		menu.Items = append([]*fyne.MenuItem{again, sep()}, menu.Items...)
	}
	widget.ShowPopUpMenuAtPosition(menu, w.Win.Canvas(), at)
}

// setMenu enables the items that apply to the selection.
func (w *Window) setMenu(sel []Job) {
	if w.Menu == nil {
		return
	}
	m := &w.menu
	pause, resume, done, seeding := false, false, false, false
	_, seeder := w.Backend.(Seeder)
	for _, j := range sel {
		seeding = seeding || (seeder && j.State == Seeding)
		pause = pause || j.State.Pausable()
		resume = resume || j.State.Resumable()
		done = done || finished(j)
	}
	some := len(sel) > 0
	changed := false
	set := func(it *fyne.MenuItem, on bool) {
		if it.Disabled == on {
			it.Disabled = !on
			changed = true
		}
	}
	set(m.pause, pause)
	set(m.resume, resume)
	set(m.stopSeed, seeding)
	for _, it := range []*fyne.MenuItem{m.remove, m.up, m.down, m.top, m.bottom, m.folder, m.copyURL} {
		set(it, some)
	}
	live := len(sel) == 1 && w.liveOpenable(sel[0]) // actions.go
	set(m.openFile, (done || live) && len(sel) == 1)
	if label := openLabel(live); m.openFile.Label != label {
		m.openFile.Label = label
		changed = true
	}
	_, whenDone := w.Backend.(WhenDoneSetter)
	set(m.whenDone, whenDone && some)
	if m.limit != nil {
		set(m.limit, some)
	}
	if alt := w.Schedule.AltSpeed; w.Menu.Items[2].Items[0].Checked != alt {
		w.Menu.Items[2].Items[0].Checked = alt
		changed = true
	}
	if changed {
		w.Menu.Refresh()
	}
}

// durationText names a pause's length: "15 minutes", "1 hour".
func durationText(d time.Duration) string {
	if d < time.Hour {
		return countL("%s minutes", int(d.Minutes()))
	}
	if d == time.Hour {
		return lang.L("1 hour")
	}
	return countL("%s hours", int(d.Hours()))
}

// openLabel is the Open item's label: "Open file", or for a file that is
// still arriving (live) what it opens.
func openLabel(live bool) string {
	if live {
		return lang.L("Open while it downloads")
	}
	return lang.L("Open file")
}
