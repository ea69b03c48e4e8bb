package main

import (
	"context"
	"fmt"
	"io"
)

func cmdGet(_ context.Context, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "braid get: not built yet")
	return 1
}
