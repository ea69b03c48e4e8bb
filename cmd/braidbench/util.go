package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"braid/bench/mirror"
)

// parseSize reads "256MiB", "4GiB", "1MiB" or a plain number of bytes.
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}
	for _, u := range units {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return 0, fmt.Errorf("bad size %q", s)
			}
			return n * u.mult, nil
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n, nil
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d B", n)
}

// writeMeta4 writes a Metalink 4 document for the content as file.bin,
// with sha-256 piece hashes and a whole-file sha-256, listing urls in order
// of priority.
func writeMeta4(dir string, c *mirror.Content, pieceLen int64, urls []string) (string, error) {
	path := filepath.Join(dir, "file.meta4")
	return path, writeBatchMeta4(path, []batchFile{{"file.bin", c}}, pieceLen, func(string) []string { return urls })
}
