package main

import (
	"context"
	"fmt"
	"io"
)

func cmdInspect(_ context.Context, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "braid inspect: not built yet")
	return 1
}
