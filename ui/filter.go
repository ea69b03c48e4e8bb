package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// buildFilters makes the search box and the state filter over the list.
func (w *Window) buildFilters() {
	w.Search = NewEntry()
	w.Search.SetPlaceHolder(lang.L("Search by name or source"))
	w.Search.ActionItem = widget.NewIcon(theme.SearchIcon())
	w.Search.OnChanged = func(string) { w.applyFilter() }
	w.Search.OnEscape = func() {
		w.Search.SetText("")
		w.Win.Canvas().Unfocus()
	}
	options := []string{lang.L("All states")}
	for _, s := range States {
		options = append(options, s.String())
	}
	w.StateFilter = widget.NewSelect(options, nil)
	w.StateFilter.SetSelectedIndex(0)
	w.StateFilter.OnChanged = func(string) { w.applyFilter() }
	w.Filters = container.NewBorder(nil, nil, nil, container.NewGridWrap(fyne.NewSize(200, w.StateFilter.MinSize().Height), w.StateFilter), w.Search)
}

// applyFilter shows the jobs that match the search box and the state
// filter.
func (w *Window) applyFilter() {
	f := filter{text: strings.ToLower(strings.TrimSpace(w.Search.Text))}
	if i := w.StateFilter.SelectedIndex(); i > 0 {
		f.byState, f.state = true, States[i-1]
	}
	if f == w.model.filter {
		return
	}
	w.model.filter = f
	w.model.refilter()
	w.List.Refresh()
	w.reselect()
	w.showModel()
}

// SetFilter sets the search text and the state filter (nil: every
// state), as typing and choosing would.
func (w *Window) SetFilter(text string, state *JobState) {
	w.Search.SetText(text)
	if state == nil {
		w.StateFilter.SetSelectedIndex(0)
	} else {
		for i, s := range States {
			if s == *state {
				w.StateFilter.SetSelectedIndex(i + 1)
			}
		}
	}
	w.applyFilter()
}

// FocusSearch puts the keyboard in the search box (Ctrl+F).
func (w *Window) FocusSearch() { w.Win.Canvas().Focus(w.Search) }
