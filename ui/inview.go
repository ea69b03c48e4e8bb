package ui

// showRunningOnce scrolls the queue list, once after the window opens,
// so that the first job that downloads (or checks, or waits for the
// network) is in view: after a restart the queue shows its first rows,
// and the download that goes on may be far below them. It does nothing
// once the user has chosen a row, and never again after it scrolled:
// later the list stays where the user leaves it. It runs on the UI
// goroutine, after each reading is applied.
func (w *Window) showRunningOnce() {
	if w.runningShown {
		return
	}
	if w.selected != 0 {
		w.runningShown = true // the user looks at something else
		return
	}
	if w.List.Size().Height <= 0 {
		return // not laid out yet: the next reading tries again
	}
	for i := range w.model.length() {
		j, _ := w.model.row(i)
		switch j.State {
		case Running, FetchingMetadata, Waiting, Verifying, Repairing:
			// ScrollTo moves the list only as far as the row needs.
			w.List.ScrollTo(i)
			w.runningShown = true
			return
		}
	}
}
