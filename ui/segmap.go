package ui

import (
	"fmt"
	"fyne.io/fyne/v2/lang"
	"image"
	"image/color"
	"math"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// PieceState is the state of one piece of a file.
type PieceState uint8

// The states of a piece.
const (
	PieceMissing PieceState = iota // not fetched yet
	PieceActive                    // a connection is filling it now
	PieceDone                      // fetched and verified (or, without piece hashes, written)
	PieceBad                       // failed its hash; waiting to be fetched again
)

// NoMirror is the PieceMap.Mirror of a piece no mirror of this session
// touched (missing, or done in an earlier session).
const NoMirror = -1

// RebuiltFromParity is the PieceMap.Mirror of a piece no mirror could send
// good, rebuilt from the file's PAR2 parity set instead (the engine's
// FilledByParity). It is drawn in a colour of its own.
const RebuiltFromParity = -2

// PieceMap is which pieces of a file are in which state, and which mirror
// filled each (or is filling it, or sent it bad). Both slices have one entry
// per piece; Mirror holds indexes into the file's mirror list, NoMirror, or
// RebuiltFromParity: any other value below 0 is read as NoMirror.
type PieceMap struct {
	State  []PieceState
	Mirror []int16
}

// Len is the number of pieces.
func (p PieceMap) Len() int { return len(p.State) }

// mirrorAt is the mirror of piece i, tolerating a short Mirror slice.
func (p PieceMap) mirrorAt(i int) int {
	if i < len(p.Mirror) {
		return int(p.Mirror[i])
	}
	return NoMirror
}

// SegmentMap draws a file's pieces as a grid of small cells, coloured by
// state and by the mirror that filled them, with a legend naming the
// mirrors. When the file has more pieces than the grid has cells, each cell
// stands for a run of pieces (a bad piece in the run shows, then an active
// one, then the share done), so a 100,000-piece file draws as fast as a
// 100-piece one.
//
// Map and Mirrors are the widget's state: set them (or call Set) and
// Refresh, on the UI goroutine like every widget change.
type SegmentMap struct {
	widget.BaseWidget

	// Map is the file's pieces.
	Map PieceMap
	// Mirrors names the mirrors PieceMap.Mirror indexes (their hosts), for
	// the colours and the legend.
	Mirrors []string
}

// NewSegmentMap returns an empty segment map.
func NewSegmentMap() *SegmentMap {
	m := &SegmentMap{}
	m.ExtendBaseWidget(m)
	return m
}

// Set replaces the pieces and mirror names and redraws.
func (m *SegmentMap) Set(p PieceMap, mirrors []string) {
	m.Map, m.Mirrors = p, mirrors
	m.Refresh()
}

// CreateRenderer is Fyne's hook; see fyne.Widget.
func (m *SegmentMap) CreateRenderer() fyne.WidgetRenderer {
	r := &segRenderer{m: m, legend: container.New(layout.NewRowWrapLayoutWithCustomPadding(theme.Padding()*4, theme.Padding()))}
	r.raster = canvas.NewRaster(r.draw)
	r.raster.ScaleMode = canvas.ImageScalePixels
	r.border = canvas.NewRectangle(color.Transparent)
	r.border.CornerRadius = theme.InputRadiusSize()
	r.border.StrokeWidth = 1
	r.rebuildLegend()
	r.applyTheme()
	return r
}

// segRenderer lays the cell grid over the legend. It keeps only what is
// derived from the widget's state and the theme.
type segRenderer struct {
	m       *SegmentMap
	raster  *canvas.Raster
	border  *canvas.Rectangle
	legend  *fyne.Container
	palette palette
	names   []string // the mirror names the legend was built for
	bad     bool     // the legend shows the "failed hash" entry
	parity  bool     // the legend shows the "rebuilt from parity" entry
}

// Geometry of the grid in device-independent units.
const (
	cellPitch    = 22 // largest cell size plus gap
	minCellPitch = 4  // smallest cell size plus gap, before pieces share cells
	cellInset    = 6  // space between the frame and the cells
)

func (r *segRenderer) Layout(size fyne.Size) {
	lh := r.legend.MinSize().Height
	if len(r.legend.Objects) > 0 {
		r.legend.Resize(fyne.NewSize(size.Width, lh))
		lh = r.legend.MinSize().Height // wrapping depends on the width
		r.legend.Resize(fyne.NewSize(size.Width, lh))
		r.legend.Move(fyne.NewPos(0, size.Height-lh))
		lh += theme.Padding() * 2
	}
	grid := fyne.NewSize(size.Width, max(0, size.Height-lh))
	r.border.Resize(grid)
	r.border.Move(fyne.NewPos(0, 0))
	r.raster.Resize(fyne.NewSize(max(0, grid.Width-2*cellInset), max(0, grid.Height-2*cellInset)))
	r.raster.Move(fyne.NewPos(cellInset, cellInset))
}

func (r *segRenderer) MinSize() fyne.Size {
	l := r.legend.MinSize()
	return fyne.NewSize(max(l.Width, 120), 3*cellPitch+2*cellInset+l.Height+theme.Padding()*2)
}

func (r *segRenderer) Refresh() {
	r.applyTheme()
	if !slices.Equal(r.names, r.m.Mirrors) || r.bad != r.m.Map.hasBad() || r.parity != r.m.Map.hasRebuilt() {
		r.rebuildLegend()
		r.Layout(r.m.Size())
	}
	r.raster.Refresh()
	r.border.Refresh()
}

func (r *segRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.border, r.raster, r.legend}
}

func (r *segRenderer) Destroy() {}

func (r *segRenderer) applyTheme() {
	th := r.m.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	r.palette = newPalette(th, v)
	r.border.FillColor = th.Color(theme.ColorNameInputBackground, v)
	r.border.StrokeColor = th.Color(theme.ColorNameInputBorder, v)
	for _, o := range r.legend.Objects {
		if it, ok := o.(*legendItem); ok {
			it.swatch.FillColor = r.palette.legendColor(it.key)
			it.swatch.Refresh()
			it.label.Color = th.Color(theme.ColorNameForeground, v)
			it.label.TextSize = th.Size(theme.SizeNameCaptionText)
			it.label.Refresh()
		}
	}
}

// Legend keys below 0 are states; 0 and up are mirror indexes.
const (
	keyMissing = -1 - iota
	keyActive
	keyEarlier
	keyBad
	keyParity
)

func (r *segRenderer) rebuildLegend() {
	r.names = slices.Clone(r.m.Mirrors)
	r.bad = r.m.Map.hasBad()
	r.parity = r.m.Map.hasRebuilt()
	var items []fyne.CanvasObject
	for i, name := range r.names {
		items = append(items, newLegendItem(i, name, r.palette))
	}
	items = append(items,
		newLegendItem(keyActive, lang.L("In progress"), r.palette),
		newLegendItem(keyEarlier, lang.L("Done earlier"), r.palette),
		newLegendItem(keyMissing, lang.L("Missing"), r.palette))
	if r.parity {
		items = append(items, newLegendItem(keyParity, lang.L("Rebuilt from parity"), r.palette))
	}
	if r.bad {
		items = append(items, newLegendItem(keyBad, lang.L("Failed hash"), r.palette))
	}
	r.legend.Objects = items
	r.legend.Refresh()
}

// legendItem is one swatch and its words.
type legendItem struct {
	row
	key    int
	swatch *canvas.Rectangle
	label  *canvas.Text
}

func newLegendItem(key int, text string, p palette) *legendItem {
	sw := canvas.NewRectangle(p.legendColor(key))
	sw.CornerRadius = 2
	sw.SetMinSize(fyne.NewSize(12, 12))
	label := canvas.NewText(text, theme.Color(theme.ColorNameForeground))
	label.TextSize = theme.CaptionTextSize()
	it := &legendItem{key: key, swatch: sw, label: label}
	it.content = container.New(layout.NewCustomPaddedHBoxLayout(theme.Padding()*1.5), container.NewCenter(sw), label)
	it.ExtendBaseWidget(it)
	return it
}

// draw is the raster's generator: it runs on the UI goroutine when the
// raster is refreshed, with the raster's size in device pixels.
func (r *segRenderer) draw(w, h int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	sz := r.raster.Size()
	if w <= 0 || h <= 0 || sz.Width <= 0 {
		return img
	}
	scale := float64(w) / float64(sz.Width)
	g := planGrid(r.m.Map.Len(), w, h, scale)
	if g.cells == 0 {
		return img
	}
	cells := bucket(r.m.Map, g.cells)
	for i, c := range cells {
		x := (i % g.cols) * g.pitch
		y := (i / g.cols) * g.pitch
		fillRect(img, x, y, g.size, g.size, r.palette.cellColor(c))
	}
	return img
}

// grid is how cells tile the raster, in device pixels.
type grid struct {
	pitch, size int // cell plus gap, cell alone
	cols, rows  int
	cells       int // cells used: min(pieces, cols*rows)
}

// planGrid picks the largest cell that lets every piece have its own cell,
// down to the smallest readable one; below that, pieces share cells and
// every cell of the grid is used.
func planGrid(pieces, w, h int, scale float64) grid {
	if pieces <= 0 {
		return grid{}
	}
	gap := max(1, int(math.Round(scale)))
	hi := max(gap+1, int(math.Round(cellPitch*scale)))
	lo := max(gap+1, int(math.Round(minCellPitch*scale)))
	fit := func(p int) grid {
		cols, rows := (w+gap)/p, (h+gap)/p
		return grid{pitch: p, size: p - gap, cols: cols, rows: rows, cells: min(pieces, cols*rows)}
	}
	for p := hi; p > lo; p-- {
		if g := fit(p); g.cols*g.rows >= pieces {
			return g
		}
	}
	return fit(lo)
}

// cell is what one drawn cell stands for: a run of pieces.
type cell struct {
	state  PieceState // worst state in the run: bad, active, done (all), else missing
	mirror int        // the mirror that filled (or is filling) most of the run, or RebuiltFromParity
	done   float64    // share of the run done, in [0, 1]
}

// bucket divides the pieces into n runs as even as can be, and sums each.
// Piece i belongs to cell i*n/len (so with n == len every cell is a piece).
func bucket(p PieceMap, n int) []cell {
	total := p.Len()
	out := make([]cell, n)
	if total == 0 || n == 0 {
		return out
	}
	var votes []int // per mirror, pieces in this run; reused
	start := 0
	for c := range n {
		end := int(int64(c+1) * int64(total) / int64(n))
		done, active, bad := 0, false, false
		votes = votes[:0]
		rebuilt := 0 // pieces of the run rebuilt from parity
		vote := func(m int) {
			if m == RebuiltFromParity {
				rebuilt++
				return
			}
			if m < 0 {
				return
			}
			for len(votes) <= m {
				votes = append(votes, 0)
			}
			votes[m]++
		}
		for i := start; i < end; i++ {
			switch p.State[i] {
			case PieceDone:
				done++
				vote(p.mirrorAt(i))
			case PieceActive:
				active = true
				vote(p.mirrorAt(i))
			case PieceBad:
				bad = true
				vote(p.mirrorAt(i))
			}
		}
		k := cell{mirror: NoMirror, state: PieceMissing}
		if end > start {
			k.done = float64(done) / float64(end-start)
		}
		best := 0
		for m, v := range votes {
			if v > best {
				best, k.mirror = v, m
			}
		}
		if rebuilt > best {
			k.mirror = RebuiltFromParity
		}
		switch {
		case bad:
			k.state = PieceBad
		case active:
			k.state = PieceActive
		case end > start && done == end-start:
			k.state = PieceDone
		}
		out[c] = k
		start = end
	}
	return out
}

// fillRect paints a w×h rectangle at x, y, clipped to img.
func fillRect(img *image.NRGBA, x, y, w, h int, c color.NRGBA) {
	r := image.Rect(x, y, x+w, y+h).Intersect(img.Rect)
	for yy := r.Min.Y; yy < r.Max.Y; yy++ {
		off := img.PixOffset(r.Min.X, yy)
		row := img.Pix[off : off+4*r.Dx()]
		for i := 0; i < len(row); i += 4 {
			row[i], row[i+1], row[i+2], row[i+3] = c.R, c.G, c.B, c.A
		}
	}
}

// mirrorColors are calm, distinct hues that read on light and dark
// backgrounds; mirrors beyond them reuse them in order.
var mirrorColors = []color.NRGBA{
	{0x3b, 0x82, 0xc4, 0xff}, // blue
	{0x2f, 0xa0, 0x8c, 0xff}, // teal
	{0xd9, 0x96, 0x2b, 0xff}, // amber
	{0x8e, 0x6b, 0xc7, 0xff}, // violet
	{0xd0, 0x6a, 0x5a, 0xff}, // coral
	{0x5f, 0xa8, 0x45, 0xff}, // green
	{0xc1, 0x62, 0x9d, 0xff}, // rose
	{0x4f, 0xa5, 0xc9, 0xff}, // sky
	{0xa8, 0x8a, 0x3e, 0xff}, // ochre
	{0x6b, 0x7f, 0xd6, 0xff}, // indigo
}

// MirrorColor is the colour the segment map gives the mirror at index i of
// a file's mirror list; the Mirrors tab uses the same colours.
func MirrorColor(i int) color.Color {
	if i < 0 {
		return color.Transparent
	}
	return mirrorColors[i%len(mirrorColors)]
}

// palette is the segment map's colours for the current theme.
type palette struct {
	bg, missing, earlier, bad color.NRGBA
	parity                    color.NRGBA // pieces rebuilt from parity
}

// Pieces rebuilt from parity are a deep indigo, nearly black, on the light
// theme and a pale lavender on the dark one: far in lightness from every
// mirror colour (all mid-tones), from the failed-hash red and from the
// greys of missing and earlier pieces, so they stand apart for readers
// who do not tell hues apart too (TestParityColourStandsApart).
var (
	parityLight = color.NRGBA{0x2b, 0x23, 0x50, 0xff}
	parityDark  = color.NRGBA{0xe6, 0xdc, 0xff, 0xff}
)

func newPalette(th fyne.Theme, v fyne.ThemeVariant) palette {
	bg := nrgba(th.Color(theme.ColorNameInputBackground, v))
	fg := nrgba(th.Color(theme.ColorNameForeground, v))
	return palette{
		bg:      bg,
		missing: mix(bg, fg, 0.13),
		earlier: mix(bg, fg, 0.42),
		bad:     nrgba(th.Color(theme.ColorNameError, v)),
		parity:  parityColour(th, v),
	}
}

// parityColour picks the light or the dark theme's parity colour by the
// background's lightness, so a theme that names its own variant still
// gets the one that reads on it.
func parityColour(th fyne.Theme, v fyne.ThemeVariant) color.NRGBA {
	bg := nrgba(th.Color(theme.ColorNameInputBackground, v))
	if int(bg.R)+int(bg.G)+int(bg.B) < 3*0x80 {
		return parityDark
	}
	return parityLight
}

func (p palette) mirror(i int) color.NRGBA {
	if i == RebuiltFromParity {
		return p.parity
	}
	if i < 0 {
		return p.earlier
	}
	return mirrorColors[i%len(mirrorColors)]
}

func (p palette) cellColor(c cell) color.NRGBA {
	switch c.state {
	case PieceBad:
		return p.bad
	case PieceActive:
		// A tint of the mirror filling it: plainly the same hue, plainly
		// not finished.
		return mix(p.missing, p.mirror(c.mirror), activeTint(c.mirror))
	case PieceDone:
		return p.mirror(c.mirror)
	}
	if c.done > 0 {
		return mix(p.missing, p.mirror(c.mirror), 0.25+0.6*c.done)
	}
	return p.missing
}

// activeTint is how far toward its filler's colour a piece in hand is
// drawn. Parity's colour is near the theme's text colour, so a light tint
// of it would be a grey like the pieces done earlier: a piece being
// rebuilt takes more of it.
func activeTint(filler int) float64 {
	if filler == RebuiltFromParity {
		return 0.7
	}
	return 0.45
}

func (p palette) legendColor(key int) color.NRGBA {
	switch key {
	case keyMissing:
		return p.missing
	case keyActive:
		return mix(p.missing, p.mirror(0), 0.45)
	case keyEarlier:
		return p.earlier
	case keyBad:
		return p.bad
	case keyParity:
		return p.parity
	}
	return p.mirror(key)
}

func (p PieceMap) hasBad() bool { return slices.Contains(p.State, PieceBad) }

// hasRebuilt reports whether a piece done or in hand was rebuilt from
// parity.
func (p PieceMap) hasRebuilt() bool {
	for i, s := range p.State {
		if s != PieceMissing && p.mirrorAt(i) == RebuiltFromParity {
			return true
		}
	}
	return false
}

func nrgba(c color.Color) color.NRGBA {
	return color.NRGBAModel.Convert(c).(color.NRGBA)
}

// mix blends a toward b by t in [0, 1], opaque.
func mix(a, b color.NRGBA, t float64) color.NRGBA {
	l := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + (float64(y)-float64(x))*t)) }
	return color.NRGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), 0xff}
}

// Summary describes a piece map in a line: "412 of 1,024 pieces done · 3
// in progress · 1 failed its hash". Pieces in hand that are being rebuilt
// from parity are said so ("3 being rebuilt from parity"), not counted as
// in progress from a mirror.
func (p PieceMap) Summary() string {
	var done, active, bad, rebuilt, rebuilding int
	for i, s := range p.State {
		switch s {
		case PieceDone:
			done++
			if p.mirrorAt(i) == RebuiltFromParity {
				rebuilt++
			}
		case PieceActive:
			if p.mirrorAt(i) == RebuiltFromParity {
				rebuilding++
			} else {
				active++
			}
		case PieceBad:
			bad++
		}
	}
	s := fmt.Sprintf(lang.L("%s of %s pieces done"), count(done), count(p.Len()))
	if rebuilt > 0 {
		s += " · " + countL("%s rebuilt from parity", rebuilt)
	}
	if rebuilding > 0 {
		s += " · " + countL("%s being rebuilt from parity", rebuilding)
	}
	if active > 0 {
		s += " · " + fmt.Sprintf(lang.L("%s in progress"), count(active))
	}
	if bad > 0 {
		s += " · " + fmt.Sprintf(lang.L("%s failed the hash"), count(bad))
	}
	return s
}
