package platform

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	kernel32                  = windows.NewLazySystemDLL("kernel32.dll")
	procGetUserDefaultLocale  = kernel32.NewProc("GetUserDefaultLocaleName")
	procGetUserDefaultGeoName = kernel32.NewProc("GetUserDefaultGeoName")
)

// localeNameMaxLength is LOCALE_NAME_MAX_LENGTH, in UTF-16 units with the
// terminating NUL.
const localeNameMaxLength = 85

// systemLocale reads the user's preferred UI languages, user locale and
// home location from Windows. A setting that cannot be read counts as
// unset.
func systemLocale() SystemLocale {
	ui, _ := windows.GetUserPreferredUILanguages(windows.MUI_LANGUAGE_NAME)
	return windowsLocale(ui, userLocaleString(procGetUserDefaultLocale), userLocaleString(procGetUserDefaultGeoName))
}

// userLocaleString calls proc(buffer, size), the calling convention of
// GetUserDefaultLocaleName and GetUserDefaultGeoName, which return the
// characters written including the NUL, or 0 on failure. It returns ""
// on failure and where the function does not exist (GetUserDefaultGeoName
// came with Windows 10 1709).
func userLocaleString(proc *windows.LazyProc) string {
	if proc.Find() != nil {
		return ""
	}
	var buf [localeNameMaxLength]uint16
	n, _, _ := proc.Call(uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	if n == 0 || int(n) > len(buf) {
		return ""
	}
	return windows.UTF16ToString(buf[:n])
}
