//go:build darwin

package netconf

import (
	"context"
	"os/exec"
	"time"
)

// readSystemSetting reads the system configuration's proxies as
// `scutil --proxy` prints them (no cgo: SystemConfiguration's own tool).
func readSystemSetting() (systemSetting, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/usr/sbin/scutil", "--proxy").Output()
	if err != nil {
		return systemSetting{}, err
	}
	return parseScutil(string(out)), nil
}
