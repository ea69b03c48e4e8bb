package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"braid/engine/explain"
)

// quitText is what the quit dialog says of t: a title and a body that
// name what runs, waits, is queued and seeds, each only when there is
// one, and what quitting does to each. It is empty when nothing is live.
func quitText(t Totals) (title, body string) {
	downloads := t.Running + t.Waiting + t.Queued
	switch {
	case downloads > 0 && t.Seeding > 0:
		title = lang.L("Quit while downloading and seeding?")
	case downloads > 0:
		title = lang.L("Quit while downloading?")
	case t.Seeding > 0:
		title = lang.L("Quit while seeding?")
	default:
		return "", ""
	}
	var now []string
	if t.Running > 0 {
		now = append(now, countL("%s download running", t.Running))
	}
	if t.Waiting > 0 {
		now = append(now, countL("%s download waiting to try again", t.Waiting))
	}
	if t.Queued > 0 {
		now = append(now, countL("%s download queued", t.Queued))
	}
	if t.Seeding > 0 {
		now = append(now, countL("%s torrent seeding", t.Seeding))
	}
	lines := []string{explain.AsSentence(strings.Join(now, ", "))}
	if t.Running+t.Waiting > 0 {
		lines = append(lines, lang.L("Quitting pauses the running downloads and keeps what they fetched; Resume continues them where they left off."))
	}
	if t.Queued > 0 {
		lines = append(lines, lang.L("Queued downloads stay queued."))
	}
	if t.Seeding > 0 {
		lines = append(lines, lang.L("Quitting stops the seeding; it goes on when Braid starts again."))
	}
	return title, strings.Join(lines, "\n")
}

// closeRequested runs when the user closes the window. With nothing
// running or seeding the app quits; otherwise the user chooses between
// quitting (running downloads are paused, Resume continues them; seeding
// stops until the next start), keeping them running in the tray (when
// there is one) and going back.
func (w *Window) closeRequested() {
	title, msg := quitText(w.quitTotals())
	if title == "" {
		w.Quit()
		return
	}
	text := widget.NewLabel(msg)
	text.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomWithoutButtons(title, text, w.Win)
	cancel := widget.NewButton(lang.L("Cancel"), d.Hide)
	quit := widget.NewButton(lang.L("Quit"), func() {
		d.Hide()
		w.Quit()
	})
	quit.Importance = widget.DangerImportance
	buttons := []fyne.CanvasObject{cancel, quit}
	// Enter does what the highlighted button says: keep running in the
	// tray when there is one, else quit, as the user asked.
	w.keyed(d, quit.OnTapped, d.Hide)
	if w.tray {
		hide := widget.NewButtonWithIcon(lang.L("Keep running in the tray"), theme.VisibilityOffIcon(), func() {
			d.Hide()
			w.Win.Hide()
		})
		hide.Importance = widget.HighImportance
		buttons = append(buttons, hide)
		w.dialogs[len(w.dialogs)-1].ok = hide.OnTapped
	}
	d.SetButtons(buttons)
	d.Resize(fyne.NewSize(480, d.MinSize().Height))
	d.Show()
}

// quitTotals are what the quit dialog counts: the queue as the backend has
// it now, not as the last reading left the list, so that a download which
// started a moment ago is named running (a reading comes about once a
// second, and later on a loaded machine). The list's counts stand in when
// the queue cannot be read.
func (w *Window) quitTotals() Totals {
	all, err := w.Backend.Jobs()
	if err != nil {
		return w.model.totals()
	}
	var now model
	now.load(all)
	now.merge(w.Backend.Active())
	return now.totals()
}
