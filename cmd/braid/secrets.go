package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"braid/rpc"
)

// maxSecretFile bounds what is read of a secret file: a secret is one
// line, and a wrong path (a disk image) must not be read whole.
const maxSecretFile = 64 << 10

// secret is one secret of the command line and the three places it may
// come from; the first given is taken. The flag's value shows in the
// process list to other users; the file's first line and the environment
// variable do not.
type secret struct {
	flag, value string // --rpc-secret and what it was given
	fileFlag    string // --rpc-secret-file
	file        string // its FILE
	env         string // BRAID_RPC_SECRET; "": none
}

// get returns the secret, "" when none is given. Both the flag and the
// file is a usage error; an unreadable or empty file is an error that
// names the file, never its content.
func (s secret) get(getenv func(string) string) (string, error) {
	switch {
	case s.value != "" && s.file != "":
		return "", fmt.Errorf("give %s or %s, not both", s.flag, s.fileFlag)
	case s.value != "":
		return s.value, nil
	case s.file != "":
		return readSecretFile(s.fileFlag, s.file)
	}
	if s.env == "" {
		return "", nil
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	return getenv(s.env), nil
}

// readSecretFile reads a secret from the first line of file, given with
// flag; the line's end (\n or \r\n) is not part of it.
func readSecretFile(flag, file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("%s: cannot read the secret from %s: %w", flag, file, err)
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, maxSecretFile)).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("%s: cannot read the secret from %s: %w", flag, file, err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return "", fmt.Errorf("%s: %s has no secret on its first line", flag, file)
	}
	return line, nil
}

// rpcSecretOf is queue run's RPC secret: --rpc-secret, else the first line
// of --rpc-secret-file, else $BRAID_RPC_SECRET. With plainRemote (plain
// HTTP, remote clients allowed) it warns on stderr when listen is an
// address other machines reach.
func rpcSecretOf(value, file, listen string, plainRemote bool, stderr io.Writer) (string, error) {
	s, err := secret{"--rpc-secret", value, "--rpc-secret-file", file, "BRAID_RPC_SECRET"}.get(nil)
	if err != nil {
		return "", err
	}
	if w := rpc.PlainWarning(listen); plainRemote && w != "" {
		fmt.Fprintln(stderr, "braid queue run: "+w)
	}
	return s, nil
}
