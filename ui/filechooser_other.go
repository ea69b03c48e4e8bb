//go:build !windows

package ui

// inDialogApartment runs show: only Windows' dialog needs a thread set up
// for it (filechooser_windows.go).
func inDialogApartment(show func() (string, error)) (string, error) { return show() }
