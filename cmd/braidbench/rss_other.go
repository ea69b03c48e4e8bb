//go:build !unix

package main

import "os"

// maxRSS is unknown where the system does not report it.
func maxRSS(*os.ProcessState) int64 { return 0 }
