package queue

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Categories sort downloads by type (issue 23): a job whose selected files
// all fall in one category, added to the download folder, is saved into
// that category's folder instead. The choice is made once, when the job is
// added (the runner's SortDoc), never by moving finished files: a torrent
// seeds from where it was written, and a verify reads the files where the
// job says.
//
// A category's folder is, by default, a sub-folder of the download folder
// (~/Downloads/Video), as qBittorrent's category paths are relative to its
// default save path: everything Braid downloads stays under the one folder
// the user chose, changing that folder takes the categories along, and
// half-written NAME.part files and seeding torrents never land in the
// user's own ~/Videos or ~/Music. A folder given as an absolute path
// (~/Videos, say) is used as it is.

// Category is one kind of download and where it goes.
type Category struct {
	// Name is how the category is shown; the defaults' names are English
	// and the window translates them.
	Name string `json:"name"`
	// Extensions are the file name endings that fall in the category,
	// lower case without the leading dot: "mkv", "tar.gz".
	Extensions []string `json:"extensions"`
	// Folder is where the category's downloads go: absolute, or relative
	// to the download folder; "" is a folder named like the category.
	Folder string `json:"folder"`
}

// keyCategories is the setting that holds the categories as JSON; unset
// means DefaultCategories.
const keyCategories = "categories"

// DefaultCategories are the categories a queue starts with: video, audio,
// archives, programs and documents, each in a sub-folder of the download
// folder named like it.
func DefaultCategories() []Category {
	return []Category{
		{Name: "Video", Folder: "Video", Extensions: []string{
			"mkv", "mp4", "m4v", "avi", "webm", "mov", "wmv", "flv", "mpg", "mpeg", "ogv", "3gp", "ts"}},
		{Name: "Audio", Folder: "Audio", Extensions: []string{
			"mp3", "flac", "ogg", "oga", "opus", "m4a", "aac", "wav", "wma", "ape", "mka"}},
		{Name: "Archives", Folder: "Archives", Extensions: []string{
			"zip", "tar", "gz", "tgz", "bz2", "tbz2", "xz", "txz", "zst", "lz", "lzma", "7z", "rar", "iso"}},
		{Name: "Programs", Folder: "Programs", Extensions: []string{
			"exe", "msi", "msix", "deb", "rpm", "dmg", "pkg", "appimage", "apk", "flatpakref", "snap"}},
		{Name: "Documents", Folder: "Documents", Extensions: []string{
			"pdf", "epub", "mobi", "djvu", "doc", "docx", "odt", "ods", "odp", "xls", "xlsx", "ppt", "pptx", "rtf", "txt", "md", "csv"}},
	}
}

// Matches reports whether a file name ends in one of the category's
// extensions (case does not matter; a path's folders do not count).
func (c Category) Matches(name string) bool {
	base := strings.ToLower(name)
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	for _, ext := range c.Extensions {
		if ext != "" && strings.HasSuffix(base, "."+ext) && len(base) > len(ext)+1 {
			return true
		}
	}
	return false
}

// Dir is the category's folder for a download folder: Folder when it is
// absolute, else Folder (or the name) under downloadDir. A leading ~/ is
// the user's home.
func (c Category) Dir(downloadDir string) string {
	f := strings.TrimSpace(c.Folder)
	if f == "" {
		f = c.Name
	}
	// ~/ and, on Windows, ~\ are the home folder.
	rest, ok := strings.CutPrefix(f, "~/")
	if !ok {
		rest, ok = strings.CutPrefix(f, "~"+string(filepath.Separator))
	}
	if ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(f) {
		return filepath.Clean(f)
	}
	return filepath.Join(downloadDir, f)
}

// CategoryOf is the category all of names fall in, the first that takes
// each in list order; false when there are no names, or when they fall in
// different categories or none.
func CategoryOf(cs []Category, names []string) (Category, bool) {
	var found *Category
	for _, n := range names {
		i := slices.IndexFunc(cs, func(c Category) bool { return c.Matches(n) })
		if i < 0 || (found != nil && found.Name != cs[i].Name) {
			return Category{}, false
		}
		found = &cs[i]
	}
	if found == nil {
		return Category{}, false
	}
	return *found, true
}

// categoriesOf reads stored categories: DefaultCategories when none are
// stored or they do not parse.
func categoriesOf(raw string) []Category {
	var cs []Category
	if raw == "" || json.Unmarshal([]byte(raw), &cs) != nil {
		return DefaultCategories()
	}
	return cs
}

// TidyCategories is cs as SetCategories stores them, or why they cannot
// be: a category needs a name, and names are unique (case does not
// matter).
func TidyCategories(cs []Category) ([]Category, error) {
	out := make([]Category, 0, len(cs))
	seen := map[string]bool{}
	for i, c := range cs {
		c.Name = strings.TrimSpace(c.Name)
		c.Folder = strings.TrimSpace(c.Folder)
		if c.Name == "" {
			return nil, fmt.Errorf("category %d has no name", i+1)
		}
		if seen[strings.ToLower(c.Name)] {
			return nil, fmt.Errorf("two categories are named %q", c.Name)
		}
		seen[strings.ToLower(c.Name)] = true
		c.Extensions = SplitExtensions(strings.Join(c.Extensions, " "))
		out = append(out, c)
	}
	return out, nil
}

// SplitExtensions reads a list of extensions as a user types it ("mkv,
// .MP4 webm"): separated by spaces or commas, lower case, without leading
// dots or "*.", each once.
func SplitExtensions(s string) []string {
	out := []string{}
	for _, e := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' }) {
		e = strings.ToLower(strings.TrimLeft(strings.TrimPrefix(e, "*"), "."))
		if e != "" && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}
