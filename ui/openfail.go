package ui

import (
	"fmt"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"
)

// openFile opens the finished file p with the desktop's application for
// it, off the UI goroutine: the desktop's opener (xdg-open) may take its
// time, or run the application until it closes. When it fails (no
// application for the type, say) the window says so, and offers to show
// the file in its folder.
func (w *Window) openFile(p string) {
	open := w.opts.OpenFile
	if open == nil {
		open = w.openURL
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		if err := open(p); err != nil {
			w.do(func() { w.showOpenFailed(p, err) })
		}
	}()
}

// showOpenFailed says that file p could not be opened, with the opener's
// own words behind Details, and offers Show in folder.
func (w *Window) showOpenFailed(p string, err error) {
	msg := widget.NewLabel(fmt.Sprintf(lang.L("The system could not open “%s”: it may have no application for this kind of file. Show in folder shows the file, to open it with another program."), filepath.Base(p)))
	msg.Wrapping = fyne.TextWrapWord
	var details Details
	box := container.NewVBox(msg)
	var redraw func()
	redraw = func() {
		box.Objects = []fyne.CanvasObject{msg, details.detailToggle(err.Error(), redraw)}
		box.Refresh()
	}
	redraw()
	d := dialog.NewCustomWithoutButtons(lang.L("Cannot open the file"), box, w.Win)
	show := widget.NewButton(lang.L("Show in folder"), func() {
		d.Hide()
		w.showFolder(filepath.Dir(p))
	})
	show.Importance = widget.HighImportance
	d.SetButtons([]fyne.CanvasObject{widget.NewButton(lang.L("Close"), d.Hide), show})
	w.keyed(d, show.OnTapped, d.Hide)
	d.Resize(fyne.NewSize(520, d.MinSize().Height))
	d.Show()
}

// showFolder shows dir in the desktop's file manager, off the UI
// goroutine, and says so when it cannot.
func (w *Window) showFolder(dir string) {
	open := w.opts.OpenFolder
	if open == nil {
		open = w.openURL
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		if err := open(dir); err != nil {
			w.do(func() { w.showError(fmt.Errorf(lang.L("open %s: %w"), dir, err)) })
		}
	}()
}
