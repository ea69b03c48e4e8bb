package ui

import (
	"strings"

	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// buildFilters makes the search box over the list and the side panel
// beside it (sidepanel.go), which together narrow the list.
func (w *Window) buildFilters() {
	w.Search = NewEntry()
	w.Search.SetPlaceHolder(lang.L("Search by name or source"))
	w.Search.ActionItem = widget.NewIcon(theme.SearchIcon())
	w.Search.OnChanged = func(string) { w.applyFilter() }
	w.Search.OnEscape = func() {
		w.Search.SetText("")
		w.Win.Canvas().Unfocus()
	}
	w.Side = newSidePanel(func(sideKey) { w.applyFilter() })
	w.Filters = w.Search
}

// applyFilter shows the jobs that match the search box and the side
// panel's entry.
func (w *Window) applyFilter() {
	f := filter{text: strings.ToLower(strings.TrimSpace(w.Search.Text)), side: w.Side.chosen}
	if f == w.model.filter {
		return
	}
	w.model.filter = f
	w.model.refilter()
	w.List.Refresh()
	w.reselect()
	w.showModel()
}

// SetFilter sets the search text and the side panel's state entry: the
// one state is in (nil: All), as typing and clicking would.
func (w *Window) SetFilter(text string, state *JobState) {
	w.Search.SetText(text)
	k := sideKey{}
	if state != nil {
		k.group = groupOf(*state)
	}
	w.chooseSide(k)
	w.applyFilter()
}

// FocusSearch puts the keyboard in the search box (Ctrl+F).
func (w *Window) FocusSearch() { w.Win.Canvas().Focus(w.Search) }
