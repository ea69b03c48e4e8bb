package main

import (
	"errors"
	"flag"
)

// parseInterspersed parses args with fs, letting flags follow the
// positional arguments (`braid inspect X.meta4 --json`), which the flag
// package alone stops at. After "--" every argument is positional (a file
// named -x). It returns the positional arguments in order; on a parse
// error or -h it returns ok false and the exit status to use (2, or 0 for
// help).
func parseInterspersed(fs *flag.FlagSet, args []string) (positional []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0, false
			}
			return nil, 2, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, 0, true
		}
		if i := len(args) - len(rest) - 1; i >= 0 && args[i] == "--" {
			return append(positional, rest...), 0, true
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
