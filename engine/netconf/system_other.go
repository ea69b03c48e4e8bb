//go:build !windows && !darwin

package netconf

// readSystemSetting: on Linux and the BSDs the environment is the
// system's setting (desktops export http_proxy and the rest to it), so
// there is nothing more to read.
func readSystemSetting() (systemSetting, error) { return systemSetting{}, nil }
