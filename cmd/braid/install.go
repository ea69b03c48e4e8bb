package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"braid/assets"
	"braid/platform"
)

// cmdInstall registers Braid with the desktop for this user: double-clicking
// a .meta4, .metalink or .torrent, or following a magnet link, opens Braid.
func cmdInstall(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return desktopCommand(ctx, "install", args, stdout, stderr, platform.Register)
}

// cmdUninstall undoes cmdInstall.
func cmdUninstall(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return desktopCommand(ctx, "uninstall", args, stdout, stderr, platform.Unregister)
}

func desktopCommand(ctx context.Context, name string, args []string, stdout, stderr io.Writer,
	do func(context.Context, string, map[int][]byte) ([]string, error)) int {
	fs := flag.NewFlagSet("braid "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: braid %s\n\n%s Braid as the handler of .meta4, .metalink, .torrent and magnet links, for this user only.\n", name, map[string]string{"install": "Registers", "uninstall": "Unregisters"}[name])
	}
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if err == flag.ErrHelp {
			return 0
		}
		fs.Usage()
		return 2
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		fmt.Fprintf(stderr, "braid %s: finding the braid binary: %v\n", name, err)
		return 1
	}
	notes, err := do(ctx, exe, assets.Icons())
	hostNotes, hostErr := registerBrowsers(exe, name == "uninstall")
	notes = append(notes, hostNotes...)
	err = errors.Join(err, hostErr)
	for _, n := range notes {
		fmt.Fprintf(stderr, "braid %s: note: %s\n", name, n)
	}
	if err != nil {
		fmt.Fprintf(stderr, "braid %s: %v\n", name, err)
		return 1
	}
	if name == "install" {
		fmt.Fprintln(stdout, "Braid now opens .meta4, .metalink and .torrent files and magnet links, and takes links from its browser extension.")
	} else {
		fmt.Fprintln(stdout, "Braid no longer opens .meta4, .metalink and .torrent files or magnet links, nor takes links from the browsers.")
	}
	return 0
}
