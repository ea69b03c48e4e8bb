package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"braid/engine/source"
)

// version is Braid's release, as FyneApp.toml says; a release build may
// set it with -ldflags "-X main.version=...".
var version = "0.1.0"

// versionText is what `braid --version` prints: the release and, for a
// build from a checkout, the commit it was built from.
func versionText() string {
	text := "braid " + version
	if rev, modified := buildRevision(); rev != "" {
		if modified {
			rev += "+changes"
		}
		text += " (" + rev + ")"
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		text += " " + info.GoVersion
	}
	return text + " " + runtime.GOOS + "/" + runtime.GOARCH
}

// buildRevision is the commit the program was built from, shortened, and
// whether the checkout had changes; "" when the build does not say.
func buildRevision() (rev string, modified bool) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return rev, modified
}

func cmdVersion(stdout io.Writer) int {
	fmt.Fprintln(stdout, versionText())
	return 0
}

// headless names the commands that need no display, for messages.
func headless() string {
	var names []string
	for name := range commands {
		if name != "install" && name != "uninstall" && name != "native-host" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return "braid " + strings.Join(names, ", braid ")
}

// checkSources tells a usage error among the window's arguments: each must
// be a link or a file that exists. A bare word that is neither is most
// likely a mistyped command, and the message says so.
func checkSources(args []string) error {
	for _, a := range args {
		s := source.Of(a)
		if !s.Local() && a != "" {
			continue // a link, or a URL the window says it cannot read
		}
		_, err := os.Stat(s.Path())
		switch {
		case err == nil:
			continue
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s: %w", a, err)
		case !strings.ContainsAny(a, `./\`):
			return fmt.Errorf("unknown command %q; the commands are %s (braid -h says more)", a, commandList())
		default:
			return fmt.Errorf("%s: no such file, and not a link (http://, https://, ftp:// or magnet:)", a)
		}
	}
	return nil
}

func commandList() string {
	names := []string{"version"}
	for name := range commands {
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// noDisplay says why the window cannot open, or "" when it can: on X11 and
// Wayland systems a window needs DISPLAY or WAYLAND_DISPLAY.
func noDisplay(getenv func(string) string) string {
	switch runtime.GOOS {
	case "windows", "darwin", "android", "ios":
		return ""
	}
	if getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != "" {
		return ""
	}
	return "the window needs a display, and there is none (neither DISPLAY nor WAYLAND_DISPLAY is set).\n" +
		"Without one, use the headless commands: " + headless() + " (braid -h says more)"
}
