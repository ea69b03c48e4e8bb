package main

import (
	"context"
	"fmt"
	"io"
)

func cmdMake(_ context.Context, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "braid make: not built yet")
	return 1
}
