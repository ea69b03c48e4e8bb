package main

import (
	"context"
	"fmt"
	"io"
)

func cmdQueue(_ context.Context, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "braid queue: not built yet")
	return 1
}
