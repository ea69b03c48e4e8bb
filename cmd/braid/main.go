// Command braid is a download manager that braids one file together from
// many mirrors. Without a subcommand it opens the window; the subcommands
// run the same engine headless for scripts (see README.md).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "braid/platform/clocale" // before Fyne initialises: see its doc
)

// command runs one subcommand and returns the process exit status:
// 0 success, 1 failure, 2 usage error.
type command func(ctx context.Context, args []string, stdout, stderr io.Writer) int

var commands = map[string]command{
	"get":     cmdGet,
	"sync":    cmdSync,
	"inspect": cmdInspect,
	"verify":  cmdVerify,
	"repair":  cmdRepair,
	"make":    cmdMake,
	"queue":   cmdQueue,
	"keys":    cmdKeys,

	"install":     cmdInstall,
	"uninstall":   cmdUninstall,
	"native-host": cmdNativeHost,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	endProfile := profileCPU(os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	endProfile()
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if cmd, ok := commands[args[0]]; ok {
			return cmd(ctx, args[1:], stdout, stderr)
		}
		switch args[0] {
		case "-h", "-help", "--help", "help":
			fmt.Fprint(stdout, usage)
			return 0
		case "version", "-version", "--version":
			return cmdVersion(stdout)
		}
	}
	return cmdWindow(ctx, args, stdout, stderr)
}

const usage = `Braid braids one file together from many mirrors and verifies every piece.

Usage:
  braid [SOURCE...]                 open the window; add SOURCE
  braid get [flags] SOURCE...       download headless and say what was checked
  braid sync [flags] SOURCE -d DIR  keep DIR a verified copy of a ResourceSync source (--check, --delete)
  braid inspect [--json] SOURCE     files, sizes, hashes, mirrors, and what the filters select
  braid verify --metalink M [-d DIR]          check files against full and piece hashes, and signatures
  braid repair --metalink M [-d DIR]          fetch only the bad pieces, then verify
  braid make [--piece-length N] [--url BASE]... FILE...   write a .meta4 to stdout
  braid queue list|pause ID|resume ID|remove [--files] ID|move ID up|down|top|bottom|relink ID URL|run
  braid queue verify ID|repair ID   check a finished job's files, or fetch only their bad pieces
  braid keys import FILE|URL | list | remove FINGERPRINT   the OpenPGP keys trusted to sign downloads
  braid install | uninstall         register Braid for .meta4/.metalink/.torrent and magnet:, and the
                                    browsers' native messaging host (this user)
  braid version | --version         the release and the commit it was built from

A SOURCE is a .meta4 or .metalink file, the URL of one, an http(s) or ftp URL,
a .torrent file or URL, or a magnet: link (braid sync takes a ResourceSync URL).
Run 'braid COMMAND -h' for a command's flags.
Every file ends verified (by a hash the source published, named), not
verified (no hash published), or failed: Braid never calls a file good that
it did not check. The window needs a display; the other commands do not.
Exit status: 0 success (get: every selected file done; --require-hash: and
verified), 1 failure (a file failed, was interrupted, or could not be
verified under --require-hash; the window without a display), 2 usage error
(an unknown command, a SOURCE that is neither a file nor a link).
`
