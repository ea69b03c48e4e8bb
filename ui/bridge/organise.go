package bridge

import (
	"braid/queue"
	"braid/ui"
)

var (
	_ ui.CategoryKeeper = (*Backend)(nil)
	_ ui.WhenDoneSetter = (*Backend)(nil)
)

// organise is what the bridge holds of the queue's categories and the
// jobs' actions when done, read with each list of the queue, so the rows
// the window reads between lists (Active, a running job's as its run read
// it) say the same. Guarded by the Backend's mu.
type organise struct {
	cats  []queue.Category
	read  bool // cats were read
	whens map[int64]queue.WhenDone
	notes map[int64]queue.WhenDoneNote
	names []string // scratch for organiseLocked: a list of 10,000 jobs makes no garbage
}

// readOrganise reads the categories (once, and again after a change) and
// takes the actions when done of list, the list being made. An error
// leaves what was read before: the rows lose a word, not the queue.
func (b *Backend) readOrganise(list []queue.Job) {
	b.mu.Lock()
	read := b.org.read
	b.mu.Unlock()
	var cats []queue.Category
	if !read {
		st, err := b.q.Settings()
		cs := st.Categories
		if err == nil {
			cats = cs
		}
		read = err == nil
	}
	whens, notes := map[int64]queue.WhenDone{}, map[int64]queue.WhenDoneNote{}
	for _, j := range list {
		if j.WhenDone.Action != queue.ActionNone {
			whens[j.ID] = j.WhenDone
		}
		if j.WhenDoneNote.Kind != queue.ActionNone {
			notes[j.ID] = j.WhenDoneNote
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if read && !b.org.read {
		b.org.cats, b.org.read = cats, true
	}
	b.org.whens, b.org.notes = whens, notes
}

// organiseLocked gives v the job's category and its action when done.
func (b *Backend) organiseLocked(j queue.Job, v *ui.Job) {
	names := b.org.names[:0]
	for _, f := range j.Files {
		if f.Selected {
			names = append(names, f.Name)
		}
	}
	if c, ok := queue.CategoryOf(b.org.cats, names); ok {
		v.Category = c.Name
	}
	b.org.names = names
	if w, ok := b.org.whens[j.ID]; ok {
		v.WhenDone = ui.WhenDone{Action: uiAction(w.Action), Command: w.Command}
	}
	if n, ok := b.org.notes[j.ID]; ok {
		v.WhenDoneNote = ui.WhenDoneNote{Kind: uiAction(n.Kind), Detail: n.Detail}
	}
}

// Categories returns the queue's categories.
func (b *Backend) Categories() ([]ui.Category, error) {
	st, err := b.q.Settings()
	cs := st.Categories
	if err != nil {
		return nil, err
	}
	return uiCategories(cs), nil
}

// DefaultCategories are the categories a queue starts with.
func (b *Backend) DefaultCategories() []ui.Category { return uiCategories(queue.DefaultCategories()) }

// SetCategories keeps cs as the queue's categories (nil: the defaults);
// the rows show them from the next list on.
func (b *Backend) SetCategories(cs []ui.Category) error {
	var qc []queue.Category
	if cs != nil {
		qc = make([]queue.Category, len(cs))
		for i, c := range cs {
			qc[i] = queue.Category{Name: c.Name, Extensions: c.Extensions, Folder: c.Folder}
		}
	}
	if err := b.q.UpdateSettings(func(st *queue.Settings) { st.Categories = qc }); err != nil {
		return err
	}
	b.mu.Lock()
	b.org.read = false
	b.mu.Unlock()
	b.changed()
	return nil
}

// SetWhenDone keeps what job id does when it is done.
func (b *Backend) SetWhenDone(id ui.JobID, w ui.WhenDone) error {
	if err := b.q.SetJob(int64(id), queue.DoWhenDone(queue.WhenDone{Action: queueAction(w.Action), Command: w.Command})); err != nil {
		return err
	}
	b.changed()
	return nil
}

func uiCategories(cs []queue.Category) []ui.Category {
	out := make([]ui.Category, len(cs))
	for i, c := range cs {
		out[i] = ui.Category{Name: c.Name, Extensions: c.Extensions, Folder: c.Folder}
	}
	return out
}

func uiAction(a queue.Action) ui.WhenDoneAction {
	switch a {
	case queue.ActionOpen:
		return ui.WhenDoneOpen
	case queue.ActionShow:
		return ui.WhenDoneShow
	case queue.ActionCommand:
		return ui.WhenDoneCommand
	}
	return ui.WhenDoneNothing
}

func queueAction(a ui.WhenDoneAction) queue.Action {
	switch a {
	case ui.WhenDoneOpen:
		return queue.ActionOpen
	case ui.WhenDoneShow:
		return queue.ActionShow
	case ui.WhenDoneCommand:
		return queue.ActionCommand
	}
	return queue.ActionNone
}
