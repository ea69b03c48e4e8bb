//go:build !darwin && !windows

package platform

// systemLocale has nothing to add on Linux and the BSDs: there the POSIX
// variables are the system's locale settings.
func systemLocale() SystemLocale { return SystemLocale{} }
