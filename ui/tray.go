package ui

import (
	"fmt"
	"fyne.io/fyne/v2/lang"
	"os"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
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
