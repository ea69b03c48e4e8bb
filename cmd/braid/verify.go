package main

import (
	"context"
	"fmt"
	"io"
)

func cmdVerify(_ context.Context, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "braid verify: not built yet")
	return 1
}
