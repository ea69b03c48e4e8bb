package ui

import (
	"fmt"
	"fyne.io/fyne/v2/lang"
	"os"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// SetupTray puts Braid in the system tray (show, pause all, resume all,
// quit) when the app runs on a desktop driver, and reports whether it did.
// With a tray, closing the window while downloads run offers to keep them
// running there.
func (w *Window) SetupTray() bool {
	d, ok := w.App.(desktop.App)
	if !ok || !hasTray(os.Getenv) {
		return false
	}
	quit := fyne.NewMenuItem(lang.L("Quit"), w.Quit)
	quit.IsQuit = true
	d.SetSystemTrayMenu(fyne.NewMenu("Braid",
		fyne.NewMenuItem(lang.L("Show Braid"), w.ShowWindow),
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem(lang.L("Pause all"), w.PauseAll),
		fyne.NewMenuItem(lang.L("Resume all"), w.ResumeAll),
		fyne.NewMenuItemSeparator(),
		quit,
	))
	d.SetSystemTrayIcon(AppIcon)
	d.SetSystemTrayWindow(w.Win)
	w.tray = true
	return true
}

// hasTray reports whether the desktop can show a tray icon. On Linux and
// the BSDs the tray lives on the session bus (StatusNotifierItem); without
// one (a bare X server, a CI machine) Fyne's tray fails, and on quit
// crashes, so Braid does without.
func hasTray(getenv func(string) string) bool {
	switch runtime.GOOS {
	case "windows", "darwin":
		return true
	}
	return getenv("DBUS_SESSION_BUS_ADDRESS") != ""
}

// ShowWindow brings the window back from the tray.
func (w *Window) ShowWindow() {
	w.Win.Show()
	w.Win.RequestFocus()
}

// Quit ends the ticker and the app. Downloads stop where they are; the
// queue resumes them on the next start.
func (w *Window) Quit() {
	w.cancel()
	w.App.Quit()
}

// closeRequested runs when the user closes the window. With nothing
// running the app quits; otherwise the user chooses between quitting
// (the running downloads are paused, Resume continues them), keeping
// them running in the tray (when there is one) and going back.
func (w *Window) closeRequested() {
	t := w.model.totals()
	if !t.Live {
		w.Quit()
		return
	}
	msg := fmt.Sprintf(lang.L("%s, %s.\nQuitting pauses them and keeps what they fetched; Resume continues them where they left off."),
		countL("%s download running", t.Running), countL("%s more queued", t.Queued))
	text := widget.NewLabel(msg)
	text.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomWithoutButtons(lang.L("Downloads are running"), text, w.Win)
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

// notifyTransitions tells the user about jobs that were live this session
// and are not any more: finished, failed or failed verification. It runs
// before the model takes in all.
func (w *Window) notifyTransitions(all []Job) {
	for _, j := range all {
		prev, seen := w.seen[j.ID]
		switch {
		case j.State.Live():
			w.seen[j.ID] = j.State
		case seen && prev.Live():
			delete(w.seen, j.ID)
			w.notify(j)
		}
	}
}

func (w *Window) notify(j Job) {
	var n *fyne.Notification
	switch {
	case j.Mismatch:
		n = fyne.NewNotification(lang.L("Verification failed"),
			fmt.Sprintf(lang.L("%s does not match its checksum. Repair fetches only the bad pieces again."), j.Name))
	case j.State == Done && (j.Outcome != "" || j.Signer != "" || j.Unverified):
		n = fyne.NewNotification(lang.L("Download finished"), fmt.Sprintf(lang.L("%s is saved in %s: %s."), j.Name, j.Dir, trustText(j)))
	case j.State == Done:
		// Nothing said how it was checked: say no more than that it is
		// there.
		n = fyne.NewNotification(lang.L("Download finished"), fmt.Sprintf(lang.L("%s is saved in %s."), j.Name, j.Dir))
	case j.State == Synced:
		n = fyne.NewNotification(lang.L("Sync finished"), fmt.Sprintf(lang.L("%s is in sync in %s."), j.Name, j.Dir))
	case j.State == Failed:
		n = fyne.NewNotification(lang.L("Download failed"), fmt.Sprintf("%s: %s", j.Name, j.Err))
	default:
		return
	}
	w.App.SendNotification(n)
}

// trustText says what vouches for a finished job: "verified (sha-256),
// signed by NAME", "not verified".
func trustText(j Job) string {
	var parts []string
	if j.Outcome != "" {
		parts = append(parts, j.Outcome)
	} else if j.Unverified {
		parts = append(parts, lang.L("not verified"))
	}
	switch {
	case j.Signer != "" && j.SignerUnknown:
		parts = append(parts, fmt.Sprintf(lang.L("signed by an unknown key: %s"), j.Signer))
	case j.Signer != "":
		parts = append(parts, fmt.Sprintf(lang.L("signed by %s"), j.Signer))
	}
	return strings.Join(parts, ", ")
}
