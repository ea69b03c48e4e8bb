package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
)

// Verify and Repair as the window offers them; what each does for each
// kind of job is the table in ui/bridge/check.go.

// canVerify reports whether Verify applies to job j: its files are on
// disk (done, seeding, or failed with bytes kept, as after a mismatch),
// and it is no sync, which Sync again checks instead.
func canVerify(j Job) bool {
	if j.Sync {
		return false
	}
	switch j.State {
	case Done, Seeding:
		return true
	case Failed:
		return j.Mismatch || j.Done > 0
	}
	return j.Mismatch
}

// repairWhyNot says why Repair cannot mend job d's files, or "" when it
// can: it finds bad bytes by piece hashes (a torrent's count), so a file
// with none cannot be mended, only checked.
func repairWhyNot(d Detail) string {
	for _, f := range d.Files {
		if f.Skipped || f.PieceHash != "" {
			continue
		}
		if len(f.Hashes) > 0 {
			return lang.L("not possible: only a whole-file hash was published, which tells whether the file is right but not where it is wrong; only a new download can replace it")
		}
		return lang.L("not possible: nothing was published to check the file against")
	}
	return ""
}

// checkItems are Verify and Repair for the row menu of job id, when they
// apply to it: they head the menu of a finished download.
func (w *Window) checkItems(id JobID) []*fyne.MenuItem {
	j, ok := w.model.find(id)
	if !ok || !canVerify(j) {
		return nil
	}
	verify := fyne.NewMenuItem(lang.L("Verify"), func() {
		w.Details.showCheck()
		w.Details.OnVerify(id)
	})
	verify.Icon = theme.SearchIcon()
	items := []*fyne.MenuItem{verify}
	if d, err := w.Backend.Detail(id, false); err == nil && repairWhyNot(d) == "" {
		repair := fyne.NewMenuItem(lang.L("Repair"), func() {
			w.Details.showCheck()
			w.Details.OnRepair(id)
		})
		repair.Icon = theme.ViewRefreshIcon()
		items = append(items, repair)
	}
	return append(items, fyne.NewMenuItemSeparator())
}

// showCheck turns the pane to Info, where what a check finds is said
// (the file's Verification, the problem), as Verify or Repair starts.
func (d *Details) showCheck() {
	if d.Tabs.Selected() != d.InfoTab {
		d.Tabs.Select(d.InfoTab)
	}
}
