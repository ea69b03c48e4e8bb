package ui

import (
	"fmt"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Category is a kind of download, by the extensions of its files, and
// the folder it is saved in: a new job sent to the download folder whose
// files all fall in one category goes to that category's folder instead.
type Category struct {
	Name string
	// Extensions are lower case, without dots: "mkv", "tar.gz".
	Extensions []string
	// Folder is absolute, or relative to the download folder; "" is a
	// folder named like the category.
	Folder string
}

// CategoryKeeper is a Backend that sorts downloads into categories
// (found by type assertion): the side panel lists them with their counts,
// Settings edits them, and Job.Category says each job's.
type CategoryKeeper interface {
	// Categories returns the categories in the order they are matched.
	Categories() ([]Category, error)
	// SetCategories keeps cs; nil goes back to the defaults.
	SetCategories(cs []Category) error
	// DefaultCategories are the categories a queue starts with.
	DefaultCategories() []Category
}

// categoryName is a category's name as shown: the defaults' English names
// translated, the user's own as they are.
func categoryName(name string) string {
	// The defaults' keys are "category.Video" and so on; a name of the
	// user's own has none and shows as it is. A new category has no name
	// yet, and no key to look up.
	if name == "" {
		return ""
	}
	return lang.X("category."+name, name)
}

// loadCategories reads the backend's categories into the side panel.
func (w *Window) loadCategories() {
	w.Side.loaded = true
	ck, ok := w.Backend.(CategoryKeeper)
	if !ok {
		return
	}
	cs, err := ck.Categories()
	if err != nil {
		w.showProblem(err)
		return
	}
	w.Side.cats = cs
	w.showStateCounts()
}

// CategoriesSection is Settings → Categories: the list of categories,
// with Add, Edit, Remove and Reset to defaults. Its changes are kept when
// the settings are saved.
type CategoriesSection struct {
	List                        *widget.List
	Add, Edit, Remove, Defaults *widget.Button
	Content                     fyne.CanvasObject

	// Cats is the list as edited so far; Reset says it was reset to the
	// defaults (and not changed since); Changed that it differs from the
	// backend's.
	Cats    []Category
	Reset   bool
	Changed bool

	keeper   CategoryKeeper
	selected int
	win      fyne.Window
	dir      func() string // the download folder the form shows now
	// editing is the edit dialog open now, for tests.
	editing *categoryEditor
}

// newCategoriesSection builds the section over the backend's categories.
// dir tells the download folder, to show where relative folders are.
func (w *Window) newCategoriesSection(ck CategoryKeeper, dir func() string) *CategoriesSection {
	s := &CategoriesSection{keeper: ck, selected: -1, win: w.Win, dir: dir}
	if cs, err := ck.Categories(); err == nil {
		s.Cats = cs
	} else {
		s.Cats = ck.DefaultCategories()
	}
	s.List = widget.NewList(func() int { return len(s.Cats) }, newCategoryRow, func(i widget.ListItemID, o fyne.CanvasObject) {
		if i < len(s.Cats) {
			o.(*categoryRow).show(s.Cats[i], s.dir())
		}
	})
	s.List.OnSelected = func(i widget.ListItemID) {
		s.selected = i
		s.Edit.Enable()
		s.Remove.Enable()
	}
	s.Add = widget.NewButtonWithIcon(lang.L("Add…"), theme.ContentAddIcon(), func() { s.edit(-1) })
	s.Edit = widget.NewButtonWithIcon(lang.L("Edit…"), theme.DocumentCreateIcon(), func() { s.edit(s.selected) })
	s.Remove = widget.NewButtonWithIcon(lang.L("Remove"), theme.DeleteIcon(), s.remove)
	s.Defaults = widget.NewButtonWithIcon(lang.L("Reset to defaults"), theme.HistoryIcon(), func() {
		s.Cats, s.Reset, s.Changed = ck.DefaultCategories(), true, true
		s.unselect()
	})
	s.Edit.Disable()
	s.Remove.Disable()
	hint := newHint(lang.L("A new download saved to the download folder whose files all have one category's extensions goes to that category's folder. A relative folder is inside the download folder."))
	hint.Wrapping = fyne.TextWrapWord
	buttons := container.NewHBox(s.Add, s.Edit, s.Remove, widget.NewSeparator(), s.Defaults)
	s.Content = container.NewBorder(hint, buttons, nil, nil, s.List)
	return s
}

func (s *CategoriesSection) unselect() {
	s.selected = -1
	s.List.UnselectAll()
	s.List.Refresh()
	s.Edit.Disable()
	s.Remove.Disable()
}

// remove drops the selected category.
func (s *CategoriesSection) remove() {
	if s.selected < 0 || s.selected >= len(s.Cats) {
		return
	}
	s.Cats = append(s.Cats[:s.selected:s.selected], s.Cats[s.selected+1:]...)
	s.Reset, s.Changed = false, true
	s.unselect()
}

// edit opens the editor for the category at i, or a new one for -1.
func (s *CategoriesSection) edit(i int) {
	c := Category{}
	if i >= 0 && i < len(s.Cats) {
		c = s.Cats[i]
	}
	s.editing = newCategoryEditor(c, s.win, func(got Category) error {
		for k, o := range s.Cats {
			if k != i && strings.EqualFold(o.Name, got.Name) {
				return fmt.Errorf(lang.L("a category named %s exists already"), got.Name)
			}
		}
		if i >= 0 && i < len(s.Cats) {
			s.Cats[i] = got
		} else {
			s.Cats = append(s.Cats, got)
		}
		s.Reset, s.Changed = false, true
		s.List.Refresh()
		return nil
	})
}

// save stores the edited categories, when they changed.
func (s *CategoriesSection) save() error {
	if !s.Changed {
		return nil
	}
	if s.Reset {
		return s.keeper.SetCategories(nil)
	}
	return s.keeper.SetCategories(s.Cats)
}

// categoryRow is a line of the section: name, extensions and folder.
type categoryRow struct {
	row
	name, exts, folder *widget.Label
}

func newCategoryRow() fyne.CanvasObject {
	r := &categoryRow{name: widget.NewLabel(""), exts: cellLabel(fyne.TextAlignLeading), folder: cellLabel(fyne.TextAlignLeading)}
	r.name.TextStyle = fyne.TextStyle{Bold: true}
	r.content = container.NewGridWithColumns(3, r.name, r.exts, r.folder)
	r.ExtendBaseWidget(r)
	return r
}

func (r *categoryRow) show(c Category, dir string) {
	r.name.SetText(categoryName(c.Name))
	r.exts.SetText(strings.Join(c.Extensions, " "))
	r.folder.SetText(categoryFolder(c, dir))
}

// categoryFolder is where a category's downloads go, as the user reads
// it: relative folders joined to the download folder.
func categoryFolder(c Category, dir string) string {
	f := strings.TrimSpace(c.Folder)
	if f == "" {
		f = c.Name
	}
	if strings.HasPrefix(f, "/") || strings.HasPrefix(f, "~") || (len(f) > 2 && f[1] == ':') || dir == "" {
		return f
	}
	return strings.TrimRight(dir, `/\`) + "/" + f
}

// categoryEditor is the dialog that edits one category.
type categoryEditor struct {
	Name, Extensions, Folder *Entry
	Browse                   *widget.Button
	dialog                   *dialog.FormDialog
	was                      string // the category's name before the edit
}

// newCategoryEditor shows the editor for c; done gets the edited
// category and says why it cannot be kept, which is then shown.
func newCategoryEditor(c Category, win fyne.Window, done func(Category) error) *categoryEditor {
	e := &categoryEditor{Name: NewEntry(), Extensions: NewLinesEntry(3), Folder: NewEntry(), was: c.Name}
	e.Extensions.Wrapping = fyne.TextWrapWord // a long list reads whole
	e.Name.SetText(categoryName(c.Name))
	e.Name.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("%s", lang.L("a category needs a name"))
		}
		return nil
	}
	e.Extensions.SetText(strings.Join(c.Extensions, " "))
	e.Folder.SetText(c.Folder)
	e.Folder.SetPlaceHolder(lang.L("a folder inside the download folder, or a full path"))
	e.Browse = widget.NewButtonWithIcon("", theme.FolderOpenIcon(), func() {
		chooseFolder(win, lang.L("Folder"), e.Folder.Text, e.Folder.SetText)
	})
	items := []*widget.FormItem{
		widget.NewFormItem(lang.L("Name"), e.Name),
		{Text: lang.L("Extensions"), Widget: e.Extensions, HintText: lang.L("separated by spaces: mkv mp4 tar.gz")},
		widget.NewFormItem(lang.L("Folder"), container.NewBorder(nil, nil, nil, e.Browse, e.Folder)),
	}
	title := lang.L("Edit category")
	if c.Name == "" {
		title = lang.L("New category")
	}
	w := windowOf(win.Canvas()) // nil: a window not made by New
	e.dialog = dialog.NewForm(title, lang.L("OK"), lang.L("Cancel"), items, func(ok bool) {
		if !ok {
			return
		}
		if err := done(e.value()); err != nil {
			if w != nil {
				w.showError(err)
			} else {
				dialog.ShowError(err, win)
			}
		}
	}, win)
	for _, en := range []*Entry{e.Name, e.Extensions, e.Folder} {
		en.OnSubmitted = func(string) { e.dialog.Submit() }
		en.OnEscape = e.dialog.Hide
	}
	// Enter and Escape with nothing in focus answer the editor, not the
	// Settings it is opened over.
	if w != nil {
		w.keyed(e.dialog, e.dialog.Submit, e.dialog.Hide)
	}
	e.dialog.Resize(fyne.NewSize(560, e.dialog.MinSize().Height))
	e.dialog.Show()
	return e
}

// value is the category as the entries say.
func (e *categoryEditor) value() Category {
	var exts []string
	for _, x := range strings.FieldsFunc(e.Extensions.Text, func(r rune) bool { return r == ',' || r == ';' || unicode.IsSpace(r) }) {
		if x = strings.ToLower(strings.TrimLeft(strings.TrimPrefix(x, "*"), ".")); x != "" {
			exts = append(exts, x)
		}
	}
	name := strings.TrimSpace(e.Name.Text)
	if e.was != "" && name == categoryName(e.was) {
		name = e.was // a default's name shown translated stays its own
	}
	return Category{Name: name, Extensions: exts, Folder: strings.TrimSpace(e.Folder.Text)}
}

// saveCategories stores the section's categories, then shows them in the
// side panel and, on the next reading, on the jobs.
func (w *Window) saveCategories(s *CategoriesSection) {
	w.command(lang.L("Save categories"), func() error {
		if err := s.save(); err != nil {
			return err
		}
		w.do(func() {
			w.loadCategories()
			w.poll.reloadSoon()
		})
		return nil
	})
}
