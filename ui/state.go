package ui

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
)

// JobState is where a job is in its life, as the window shows it: the
// vocabulary DESIGN.md gives the command line, the queue and the window.
// lookOf turns a job into its icon, colour and words; it is the one
// place that does, so a new state is one case there.
type JobState int

// The states of a job. New states are appended: the values are only
// ever compared, never stored.
const (
	Queued    JobState = iota // waiting its turn
	Running                   // downloading
	Verifying                 // checking a finished file against its hashes
	Paused                    // stopped by the user, or by Braid with a reason
	Done                      // finished; Job.Outcome and Job.Signer say how it was checked
	Failed                    // gave up; the reason is in Job.Err
	// FetchingMetadata is a torrent or magnet link whose file list is
	// not known yet.
	FetchingMetadata
	// Waiting is a job whose every mirror backs off after transient
	// errors; Job.NextTry is when it tries again, Job.Err why it waits.
	Waiting
	Repairing // fetching again the pieces a check found bad
	Seeding   // done, and sending to peers; Job.Ratio and Job.Upload say how much
	Synced    // a ResourceSync job whose files match the source's list
	// Unknown is a job of downloads the window cannot reach now (a
	// remote daemon that is gone): its last reading is all there is, so
	// it shows no speed and no time left.
	Unknown
)

// States lists every state, in the order the state filter offers them.
var States = []JobState{Queued, FetchingMetadata, Running, Waiting, Paused, Verifying, Repairing, Seeding, Done, Synced, Failed}

// String is the state as the window names it, translated.
func (s JobState) String() string {
	switch s {
	case Queued:
		return lang.L("Queued")
	case Running:
		return lang.L("Downloading")
	case Verifying:
		return lang.L("Verifying")
	case Paused:
		return lang.L("Paused")
	case Done:
		return lang.L("Done")
	case Failed:
		return lang.L("Failed")
	case FetchingMetadata:
		return lang.L("Fetching metadata")
	case Waiting:
		return lang.L("Waiting")
	case Repairing:
		return lang.L("Repairing")
	case Seeding:
		return lang.L("Seeding")
	case Synced:
		return lang.L("Synced")
	}
	return lang.L("Unknown")
}

// Live reports whether the state changes on its own, so the window has to
// keep reading it.
func (s JobState) Live() bool {
	switch s {
	case Queued, Running, Verifying, FetchingMetadata, Waiting, Repairing, Seeding:
		return true
	}
	return false
}

// Active reports whether the job is moving bytes or checking them now.
func (s JobState) Active() bool {
	switch s {
	case Running, Verifying, FetchingMetadata, Repairing, Seeding:
		return true
	}
	return false
}

// Pausable reports whether Pause applies to a job in the state.
func (s JobState) Pausable() bool {
	switch s {
	case Queued, Running, FetchingMetadata, Waiting, Seeding:
		return true
	}
	return false
}

// Resumable reports whether Resume applies to a job in the state.
func (s JobState) Resumable() bool { return s == Paused || s == Failed }

// Look is how a job's state shows: its icon, the colour of its words and
// bar, and the words.
type Look struct {
	Icon  fyne.Resource
	Color fyne.ThemeColorName
	Text  string
}

// now is the clock lookOf reads for "next try in"; tests set it.
var now = time.Now

// lookOf is the one mapping from a job to how its state shows. The
// theme's icons exist only once an app does, so they are looked up here,
// not at init. A check that could not record what it found adds its
// sentence to whatever the state says.
func lookOf(j Job) Look {
	look := stateLook(j)
	if j.CheckNote != "" {
		look.Text += " · " + j.CheckNote
		if look.Color != theme.ColorNameError {
			look.Color = theme.ColorNameWarning
		}
	}
	return look
}

// stateLook is how the job's state alone shows.
func stateLook(j Job) Look {
	icon := func(r fyne.Resource, c fyne.ThemeColorName) fyne.Resource {
		return theme.NewColoredResource(r, c)
	}
	with := func(words, detail string) string {
		if detail == "" {
			return words
		}
		return fmt.Sprintf(lang.L("%s: %s"), words, detail)
	}
	if j.Mismatch && j.State != Verifying && j.State != Repairing {
		return Look{icon(theme.WarningIcon(), theme.ColorNameError), theme.ColorNameError, lang.L("Checksum mismatch")}
	}
	switch j.State {
	case Queued:
		// Err says why it waits its turn when something holds it (the
		// schedule).
		return Look{icon(theme.HistoryIcon(), theme.ColorNamePlaceHolder), theme.ColorNamePlaceHolder, with(j.State.String(), j.Err)}
	case FetchingMetadata:
		return Look{icon(theme.InfoIcon(), theme.ColorNamePrimary), theme.ColorNamePrimary, j.State.String()}
	case Running:
		if j.Sync {
			return Look{icon(theme.ViewRestoreIcon(), theme.ColorNamePrimary), theme.ColorNamePrimary, lang.L("Syncing")}
		}
		text := j.State.String()
		switch {
		case j.Rebuilding > 0:
			text = with(text, RebuildingText(j.Rebuilding))
		case j.Skipping > 0:
			text = with(text, fmt.Sprintf(lang.L("passing %s already on disk, as the server cannot resume"), bytesText(j.Skipping)))
		}
		return Look{icon(theme.DownloadIcon(), theme.ColorNamePrimary), theme.ColorNamePrimary, text}
	case Waiting:
		text := with(j.State.String(), j.Err)
		if next := NextTryText(j.NextTry); next != "" {
			text += " · " + next
		}
		return Look{icon(theme.MediaReplayIcon(), theme.ColorNameWarning), theme.ColorNameWarning, text}
	case Paused:
		if j.Err != "" {
			return Look{icon(theme.MediaPauseIcon(), theme.ColorNameWarning), theme.ColorNameWarning, with(j.State.String(), j.Err)}
		}
		return Look{icon(theme.MediaPauseIcon(), theme.ColorNamePlaceHolder), theme.ColorNamePlaceHolder, j.State.String()}
	case Verifying:
		// Err says how far the check is.
		return Look{icon(theme.SearchIcon(), theme.ColorNamePrimary), theme.ColorNamePrimary, with(j.State.String(), rebuildingOr(j))}
	case Repairing:
		return Look{icon(theme.ViewRefreshIcon(), theme.ColorNamePrimary), theme.ColorNamePrimary, with(j.State.String(), rebuildingOr(j))}
	case Seeding:
		text := j.State.String()
		if j.Ratio > 0 || j.Peers > 0 {
			text += " · " + ratioText(j)
		}
		return Look{icon(theme.UploadIcon(), theme.ColorNameSuccess), theme.ColorNameSuccess, text}
	case Done:
		look := doneLook(j, icon)
		if j.SeedNote != "" {
			look.Text += " · " + j.SeedNote
			look.Color = theme.ColorNameWarning
		}
		return look
	case Synced:
		return Look{icon(theme.ViewRestoreIcon(), theme.ColorNameSuccess), theme.ColorNameSuccess, with(j.State.String(), j.Outcome)}
	case Failed:
		return Look{icon(theme.ErrorIcon(), theme.ColorNameError), theme.ColorNameError, with(j.State.String(), j.Err)}
	case Unknown:
		return Look{icon(theme.QuestionIcon(), theme.ColorNamePlaceHolder), theme.ColorNamePlaceHolder, with(j.State.String(), lang.L("not connected"))}
	}
	return Look{icon(theme.QuestionIcon(), theme.ColorNamePlaceHolder), theme.ColorNamePlaceHolder, j.State.String()}
}

// RebuildingText says how many pieces are being rebuilt from parity now:
// "rebuilding 3 pieces from parity".
func RebuildingText(n int) string { return countL("rebuilding %s pieces from parity", n) }

// RebuiltText is what a file's verification words gain when pieces of it
// were rebuilt from parity: ", 3 pieces rebuilt from parity".
func RebuiltText(n int) string { return countL(", %s pieces rebuilt from parity", n) }

// RebuiltTextOr is RebuiltText for n above 0, else "".
func RebuiltTextOr(n int) string {
	if n <= 0 {
		return ""
	}
	return RebuiltText(n)
}

// rebuildingOr is what a check under way says after its state: the pieces
// being rebuilt from parity, when there are, else Err.
func rebuildingOr(j Job) string {
	if j.Rebuilding > 0 {
		return RebuildingText(j.Rebuilding)
	}
	return j.Err
}

// doneLook tells finished jobs apart by what vouches for them: a
// signature, a hash, or nothing.
func doneLook(j Job, icon func(fyne.Resource, fyne.ThemeColorName) fyne.Resource) Look {
	done := j.State.String()
	switch {
	case j.Signer != "" && j.SignerUnknown:
		return Look{icon(theme.AccountIcon(), theme.ColorNameWarning), theme.ColorNameWarning,
			done + " · " + fmt.Sprintf(lang.L("signed by an unknown key: %s"), j.Signer)}
	case j.Signer != "":
		return Look{icon(theme.AccountIcon(), theme.ColorNameSuccess), theme.ColorNameSuccess,
			done + " · " + fmt.Sprintf(lang.L("signed by %s"), j.Signer)}
	case j.Unverified:
		outcome := j.Outcome
		if outcome == "" {
			outcome = lang.L("not verified")
		}
		return Look{icon(theme.ConfirmIcon(), theme.ColorNameWarning), theme.ColorNameWarning, done + " · " + outcome}
	case j.Outcome != "":
		return Look{icon(theme.ConfirmIcon(), theme.ColorNameSuccess), theme.ColorNameSuccess, done + " · " + j.Outcome}
	}
	return Look{icon(theme.ConfirmIcon(), theme.ColorNameSuccess), theme.ColorNameSuccess, done}
}

// NextTryText says when a waiting job tries again: "next try in 42 s",
// at a clock time when that is more than an hour away, "trying again now"
// once it is due, and "" for no time.
func NextTryText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := t.Sub(now())
	switch {
	case d <= 0:
		return lang.L("trying again now")
	case d > time.Hour:
		return fmt.Sprintf(lang.L("next try at %s"), t.Local().Format("15:04"))
	}
	return fmt.Sprintf(lang.L("next try in %s"), etaText(d))
}

// stateColor is the colour of a job's state: its words and its bar.
func stateColor(j Job) fyne.ThemeColorName { return lookOf(j).Color }
