//go:build !windows

package rootfile

import "os"

func remove(r *os.Root, name string) error { return r.Remove(name) }

func removeAll(dir string) error { return os.RemoveAll(dir) }

// held is false: Unix renames and removes a file another program has open.
func held(error) bool { return false }
