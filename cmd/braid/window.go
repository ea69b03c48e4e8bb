package main

import (
	"context"
	"fmt"
	"io"
)

// cmdWindow opens the window. Until the window exists it prints the usage.
func cmdWindow(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "braid: the window is not built yet; use 'braid get %s'\n\n", args[0])
		fmt.Fprint(stderr, usage)
		return 2
	}
	fmt.Fprint(stdout, usage)
	return 0
}
