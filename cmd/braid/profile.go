package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// profileEnv names a folder (or a file) that receives a CPU profile of
// this run: what `make pgo` turns into default.pgo for the profile-guided
// build, and what a slow run shows a developer. In a folder each process
// writes braid-PID.pprof, so a benchmark's many runs keep every sample.
const profileEnv = "BRAID_CPUPROFILE"

// profileCPU starts the CPU profile $BRAID_CPUPROFILE asks for, and
// returns what ends it; a profile that cannot start is said on stderr and
// the run goes on without it.
func profileCPU(stderr io.Writer) (stop func()) {
	path := os.Getenv(profileEnv)
	if path == "" {
		return func() {}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, fmt.Sprintf("braid-%d.pprof", os.Getpid()))
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(stderr, "braid: %s: %v\n", profileEnv, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		fmt.Fprintf(stderr, "braid: %s: %v\n", profileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
