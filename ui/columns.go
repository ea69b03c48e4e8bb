package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// columns lays cells out side by side at fixed widths, one column (width 0)
// taking what is left, so a header and the rows of a list under it line
// up. Lists here are rows of columns rather than widget.Table because a row
// is selected as a whole and a virtualised List does that natively.
type columns struct {
	widths []float32 // one per cell; 0: flexible
	// flexMin is the narrowest a flexible column is laid out: when the
	// fixed columns leave less, they give up width (none below
	// minColumn) until it has this much. Columns widened in a wide
	// window, shown in a narrow one, never leave the name no room.
	flexMin float32
}

func (c *columns) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	xs := c.edges(len(objs), size.Width)
	for i, o := range objs {
		h := o.MinSize().Height
		o.Resize(fyne.NewSize(xs[i+1]-xs[i]-theme.Padding(), h))
		o.Move(fyne.NewPos(xs[i], (size.Height-h)/2))
	}
}

// edges are where n cells start across width, and (last) where a cell
// after them would: each cell ends a padding before the next starts.
func (c *columns) edges(n int, width float32) []float32 {
	pad := theme.Padding()
	fixed, flex := float32(0), 0
	for i := range n {
		if w := c.width(i); w > 0 {
			fixed += w
		} else {
			flex++
		}
	}
	gaps := pad * float32(max(0, n-1))
	rest := max(0, width-fixed-gaps)
	// scale shrinks the fixed columns' width above minColumn so that the
	// flexible ones get flexMin each, as far as that goes.
	scale := float32(1)
	if need := c.flexMin*float32(flex) - (width - fixed - gaps); c.flexMin > 0 && need > 0 {
		spare := float32(0)
		for i := range n {
			if w := c.width(i); w > minColumn {
				spare += w - minColumn
			}
		}
		if spare > 0 {
			take := min(need, spare)
			scale = 1 - take/spare
			rest = max(0, width-fixed-gaps+take)
		}
	}
	xs := make([]float32, n+1)
	x := float32(0)
	for i := range n {
		w := c.width(i)
		if w > minColumn {
			w = minColumn + (w-minColumn)*scale
		}
		if w == 0 && flex > 0 {
			w = rest / float32(flex)
		}
		xs[i] = x
		x += w + pad
	}
	xs[n] = x
	return xs
}

func (c *columns) MinSize(objs []fyne.CanvasObject) fyne.Size {
	pad := theme.Padding()
	var w, h float32
	for i, o := range objs {
		ms := o.MinSize()
		switch cw := c.width(i); {
		case cw > 0 && c.flexMin > 0:
			w += min(cw, minColumn) // edges narrows it that far
		case cw > 0:
			w += cw
		case c.flexMin > 0:
			w += c.flexMin
		default:
			w += min(ms.Width, 80)
		}
		h = max(h, ms.Height)
	}
	return fyne.NewSize(w+pad*float32(max(0, len(objs)-1)), h)
}

func (c *columns) width(i int) float32 {
	if i < len(c.widths) {
		return c.widths[i]
	}
	return 0
}

// header builds a list header of bold caption labels over the same columns
// as the rows, in the text's own colour: a header in the faint disabled
// colour (LowImportance) could hardly be read.
func header(widths []float32, names ...string) fyne.CanvasObject {
	var cells []fyne.CanvasObject
	for i, n := range names {
		l := widget.NewLabelWithStyle(n, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		l.SizeName = theme.SizeNameCaptionText
		l.Truncation = fyne.TextTruncateEllipsis
		if i > 0 && isNumericColumn(n) {
			l.Alignment = fyne.TextAlignTrailing
		}
		cells = append(cells, l)
	}
	row := container.New(&columns{widths: widths}, cells...)
	return container.NewVBox(row, widget.NewSeparator())
}

func isNumericColumn(name string) bool {
	switch name {
	case lang.L("Size"), lang.L("Speed"), lang.L("ETA"), lang.L("Bytes"), lang.L("Strikes"), lang.L("Priority"):
		return true
	}
	return false
}

// cellLabel is a one-line label for a list cell.
func cellLabel(align fyne.TextAlign) *widget.Label {
	l := widget.NewLabel("")
	l.Alignment = align
	l.Truncation = fyne.TextTruncateEllipsis
	return l
}

// row is a widget drawn as one container. List rows and legend items embed
// it to carry their own fields: Fyne walks *fyne.Container by its type, so
// a struct that merely embedded one would not be drawn.
type row struct {
	widget.BaseWidget
	content *fyne.Container
	// cells are the row's columns and whole the whole text of a cell
	// that cuts it, for its tooltip (tooltip.go); super is the widget
	// that embeds the row, as the window knows it.
	cells *fyne.Container
	whole cutText
	super fyne.CanvasObject
}

// CreateRenderer is Fyne's hook; see fyne.Widget.
func (r *row) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.content) }

// newDim returns a line of secondary text in the theme's placeholder
// colour. LowImportance labels use the disabled colour, which is too faint
// to read for text that matters.
func newDim(text string, size fyne.ThemeSizeName) *widget.RichText {
	rt := widget.NewRichText(&widget.TextSegment{Text: text, Style: widget.RichTextStyle{
		ColorName: theme.ColorNamePlaceHolder,
		SizeName:  size,
		Inline:    true,
	}})
	rt.Truncation = fyne.TextTruncateEllipsis
	return rt
}

// newHint is a newDim line that keeps its whole width, for hints centred
// in empty space (a truncating text asks for no width and shows "…").
func newHint(text string) *widget.RichText {
	rt := newDim(text, theme.SizeNameText)
	rt.Truncation = fyne.TextTruncateOff
	return rt
}

// setDim changes the text of a newDim line.
func setDim(rt *widget.RichText, text string) {
	if seg := rt.Segments[0].(*widget.TextSegment); seg.Text != text {
		seg.Text = text
		rt.Refresh()
	}
}
