//go:build windows

package netconf

import (
	"errors"

	"golang.org/x/sys/windows/registry"
)

// internetSettings is where Windows keeps the user's proxy setting.
const internetSettings = `Software\Microsoft\Windows\CurrentVersion\Internet Settings`

// readSystemSetting reads the user's proxy from the registry: ProxyEnable,
// ProxyServer and ProxyOverride of the Internet Settings key. A missing
// key or value is no proxy.
func readSystemSetting() (systemSetting, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, internetSettings, registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return systemSetting{}, nil
	}
	if err != nil {
		return systemSetting{}, err
	}
	defer k.Close()
	enable, _, err := k.GetIntegerValue("ProxyEnable")
	if err != nil && !errors.Is(err, registry.ErrNotExist) {
		return systemSetting{}, err
	}
	server, _, err := k.GetStringValue("ProxyServer")
	if err != nil && !errors.Is(err, registry.ErrNotExist) {
		return systemSetting{}, err
	}
	override, _, err := k.GetStringValue("ProxyOverride")
	if err != nil && !errors.Is(err, registry.ErrNotExist) {
		return systemSetting{}, err
	}
	return parseWindowsProxy(enable != 0, server, override), nil
}
