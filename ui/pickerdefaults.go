package ui

import "braid/engine/metalink"

// pickerOpened is what the picker's language and system entries held when
// it opened: the user's preferences (Settings, else the locale and the
// running system).
type pickerOpened struct{ langs, os string }

// selectPrefs splits the filters as the entries now say into what the
// user asked for in the picker and the preferences it opened with, for
// metalink.Select. An entry as it opened is a preference: among builds
// that differ by language it takes the best match, else English, else the
// first listed, and never leaves a set of builds with none. Typed into
// the picker, it is a filter that may leave nothing.
func (p *Picker) selectPrefs() (given, defaults metalink.Prefs) {
	now := p.Prefs()
	if p.Languages.Text == p.opened.langs {
		defaults.Languages = now.Languages
	} else {
		given.Languages = now.Languages
	}
	if p.OS.Text == p.opened.os {
		defaults.OS = now.OS
	} else {
		given.OS = now.OS
	}
	return given, defaults
}
