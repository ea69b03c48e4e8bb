package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// maxListRows bounds how many rows of a list VisibleTexts reads.
const maxListRows = 500

// VisibleTexts returns the words a canvas shows, in tree order: every
// visible label, button, entry, rich text and canvas text, in the content
// and in the overlays (dialogs, pop-ups). A list's rows are read by
// filling a row of its own for each item, as the list itself does, so rows
// scrolled out of sight count too; every tab of a set of tabs is read,
// as it shows once chosen; texts cut short on the screen are given whole.
// It must run on the UI goroutine.
func VisibleTexts(c fyne.Canvas) []string {
	var out []string
	walkTexts(c.Content(), &out)
	for _, o := range c.Overlays().List() {
		walkTexts(o, &out)
	}
	return out
}

func walkTexts(o fyne.CanvasObject, out *[]string) {
	if o == nil || !o.Visible() {
		return
	}
	textsOf(o, out)
}

// textsOf is walkTexts without the check that o itself shows.
func textsOf(o fyne.CanvasObject, out *[]string) {
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			*out = append(*out, s)
		}
	}
	switch o := o.(type) {
	case *canvas.Text:
		add(o.Text)
	case *widget.Label:
		add(o.Text)
	case *widget.Button:
		add(o.Text)
	case *widget.Hyperlink:
		add(o.Text)
	case *widget.Check:
		add(o.Text)
	case *keyCheck:
		add(o.Text)
	case *widget.Select:
		add(o.Selected)
	case *widget.RichText:
		add(o.String())
	case *widget.Entry:
		if !o.Password { // a password is never written out
			add(o.Text)
		}
	case *Entry:
		if !o.Password {
			add(o.Text)
		}
	case *widget.List:
		listTexts(o, out)
	case *JobList:
		listTexts(&o.List, out)
	case *container.AppTabs:
		// Every tab: what each shows once chosen.
		for _, it := range o.Items {
			add(it.Text)
			if it.Content != nil {
				textsOf(it.Content, out)
			}
		}
	case *container.Scroll:
		walkTexts(o.Content, out)
	case *container.Split:
		walkTexts(o.Leading, out)
		walkTexts(o.Trailing, out)
	case *widget.PopUp:
		walkTexts(o.Content, out)
	case *fyne.Container:
		for _, c := range o.Objects {
			walkTexts(c, out)
		}
	case *row, *fileRow, *mirrorRow, *jobRow, *pickerRow, *HeaderCell, *legendItem, *Bar, *peerRow, *trackerRow:
		// The window's own widgets draw their content as it is.
		for _, c := range o.(fyne.Widget).CreateRenderer().Objects() {
			walkTexts(c, out)
		}
	}
}

func listTexts(l *widget.List, out *[]string) {
	if l.Length == nil || l.CreateItem == nil || l.UpdateItem == nil {
		return
	}
	if len(listRows) > maxReadLists {
		clear(listRows)
	}
	rows := listRows[l]
	for i := range min(l.Length(), maxListRows) {
		if i == len(rows) {
			rows = append(rows, l.CreateItem())
		}
		l.UpdateItem(i, rows[i])
		walkTexts(rows[i], out)
	}
	listRows[l] = rows
}

// listRows are the rows listTexts filled for each list it read, kept for
// the next read: a list read again refills them, as the list itself
// refills the rows it shows, rather than making them anew. A new row
// draws its icons from their SVG, and the test mode that dumps the
// window's texts (twice a second) spent some 5 % of a core making 500
// rows over a queue of 10,000. Only the UI goroutine touches it.
var listRows = map[*widget.List][]fyne.CanvasObject{}

// maxReadLists bounds listRows: past it, the rows of lists long gone
// (dialogs closed) are let go with the others.
const maxReadLists = 32

// Texts are the texts the window and every other window of the app show,
// one a line (VisibleTexts), for tests; the details' Info is filled first,
// since it is filled only when its tab shows. It must run on the UI
// goroutine.
func (w *Window) Texts() []string {
	if !w.Details.Empty && w.Details.File < len(w.Details.Detail.Files) {
		w.Details.fillInfo(w.Details.Detail.Files[w.Details.File])
	}
	texts := VisibleTexts(w.Win.Canvas())
	for _, d := range w.App.Driver().AllWindows() {
		if d != w.Win {
			texts = append(texts, VisibleTexts(d.Canvas())...)
		}
	}
	return texts
}
