package runner

import (
	"os"
	"path/filepath"

	"braid/engine/metalink"
	"braid/queue"
)

// SortDoc is where a new job of doc whose files selected are chosen (nil:
// all of them) goes, as the window and the RPC server add it: dest,
// unless dest is the download folder (the user did not choose another)
// and every selected file falls in one category (queue.CategoryOf), whose
// folder it is then, made if missing. A category folder that cannot be
// made leaves the job in dest: the download matters more than its folder.
func SortDoc(q *queue.Queue, dest string, doc *metalink.Document, selected []string) string {
	names := selected
	if names == nil {
		for _, f := range doc.Files {
			names = append(names, f.Name)
		}
	}
	dir, _ := sortDest(q, dest, names)
	return dir
}

// sortDest is SortDoc for the files names; category names the category
// chosen, "" for none.
func sortDest(q *queue.Queue, dest string, names []string) (dir, category string) {
	s, err := q.Settings()
	if err != nil || s.DownloadDir == "" {
		return dest, ""
	}
	abs, err := filepath.Abs(dest)
	if err != nil {
		return dest, ""
	}
	home, err := filepath.Abs(s.DownloadDir)
	if err != nil || filepath.Clean(abs) != filepath.Clean(home) {
		return dest, ""
	}
	st, err := q.Settings()
	cs := st.Categories
	if err != nil {
		return dest, ""
	}
	c, ok := queue.CategoryOf(cs, names)
	if !ok {
		return dest, ""
	}
	dir = c.Dir(home)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return dest, ""
	}
	return dir, c.Name
}
