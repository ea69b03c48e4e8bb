package main

import (
	"context"
	"fmt"
	"io"
)

func cmdRepair(_ context.Context, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "braid repair: not built yet")
	return 1
}
