package platform

import (
	"context"
	"os/exec"
	"time"
)

// defaultsTimeout bounds each `defaults read`; it answers in milliseconds,
// and a system where it hangs is better served by no preference than by a
// picker that never opens.
const defaultsTimeout = 2 * time.Second

// systemLocale reads the global AppleLanguages and AppleLocale defaults
// with /usr/bin/defaults, which needs no cgo (CFLocale would). A setting
// that is unset or unreadable counts as unset.
func systemLocale() SystemLocale {
	return appleLocale(readGlobalDefault("AppleLanguages"), readGlobalDefault("AppleLocale"))
}

// readGlobalDefault returns `defaults read -g key`'s output, or "" when it
// fails (the key is unset, or the tool is missing).
func readGlobalDefault(key string) string {
	ctx, cancel := context.WithTimeout(context.Background(), defaultsTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/usr/bin/defaults", "read", "-g", key).Output()
	if err != nil {
		return ""
	}
	return string(out)
}
