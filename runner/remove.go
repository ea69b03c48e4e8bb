package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"braid/engine/rootfile"
	"braid/queue"
)

// RemoveWithFiles takes job id out of the queue (queue.Queue.Remove)
// after deleting the files the job created (see queue.File.Created: never
// one that was there before it) and each file's NAME.part under its
// destination, through os.Root, so a stored name can never reach outside
// it; a member job's kept packed bytes go too. It returns the paths it
// deleted, in the job's file order; a file already gone is fine and not
// named. If a file cannot be deleted, the job stays as it was and the
// error says which file, so the user can retry; the paths deleted before
// it are returned with it.
func RemoveWithFiles(q *queue.Queue, id int64) (deleted []string, err error) {
	j, err := q.Get(id)
	if err != nil {
		return nil, err
	}
	deleted, err = removeFiles(j, j.Member != nil)
	if err != nil {
		return deleted, fmt.Errorf("remove job %d: %w", id, err)
	}
	return deleted, q.Remove(id)
}

// removeFiles deletes job j's NAME.part files and the files it created,
// and, of a member job, the packed bytes it keeps (NAME.packed.part),
// and returns the paths it deleted.
func removeFiles(j queue.Job, member bool) ([]string, error) {
	root, err := os.OpenRoot(j.Dest)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // the folder, and so the files, are gone already
	}
	if err != nil {
		return nil, fmt.Errorf("open destination %s: %w", j.Dest, err)
	}
	defer root.Close()
	var deleted []string
	for _, f := range j.Files {
		names := []string{f.Path() + ".part"}
		if member {
			names = append(names, f.Name+packedSuffix)
		}
		if f.Created {
			names = append(names, f.Path())
		}
		for _, name := range names {
			path := filepath.Join(j.Dest, filepath.FromSlash(name))
			err := rootfile.Remove(root, filepath.FromSlash(name))
			switch {
			case err == nil:
				deleted = append(deleted, path)
			case !errors.Is(err, os.ErrNotExist):
				return deleted, fmt.Errorf("delete %s: %w", path, err)
			}
		}
	}
	return deleted, nil
}
