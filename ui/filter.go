package ui

import (
	"slices"
	"strconv"
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

// showStateCounts puts each state's count of jobs into the state filter's
// choices ("Failed (2)"), a side panel's counts in a list; a state no job
// is in has none. The choice made stays chosen.
func (w *Window) showStateCounts() {
	counts := make(map[JobState]int, len(States))
	for _, j := range w.model.jobs {
		counts[j.State]++
	}
	options := make([]string, 0, len(States)+1)
	options = append(options, countLabel(lang.L("All states"), len(w.model.jobs)))
	for _, s := range States {
		options = append(options, countLabel(s.String(), counts[s]))
	}
	if slices.Equal(options, w.StateFilter.Options) {
		return
	}
	i := max(0, w.StateFilter.SelectedIndex())
	w.StateFilter.Options = options
	w.StateFilter.Selected = options[i] // the same choice: no OnChanged
	w.StateFilter.Refresh()
}

// countLabel is "Failed (2)", or the name alone for none.
func countLabel(name string, n int) string {
	if n == 0 {
		return name
	}
	return name + " (" + strconv.Itoa(n) + ")"
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
