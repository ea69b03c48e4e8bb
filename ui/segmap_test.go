package ui

import (
	"image"
	"image/color"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// runs builds a piece map from runs of (count, state, mirror).
type run struct {
	n      int
	state  PieceState
	mirror int16
}

func pieceMap(runs ...run) PieceMap {
	var p PieceMap
	for _, r := range runs {
		for range r.n {
			p.State = append(p.State, r.state)
			p.Mirror = append(p.Mirror, r.mirror)
		}
	}
	return p
}

// smallMap is a download caught in the act: three mirrors, each with a
// segment done and one in progress, a piece that failed its hash, pieces
// from an earlier session, and the tail missing.
func smallMap() PieceMap {
	return pieceMap(
		run{36, PieceDone, 0}, run{4, PieceActive, 0},
		run{20, PieceDone, 1}, run{1, PieceBad, 2}, run{14, PieceDone, 1}, run{5, PieceActive, 1},
		run{12, PieceDone, 2}, run{3, PieceActive, 2},
		run{10, PieceDone, NoMirror},
		run{35, PieceMissing, NoMirror},
	)
}

// bigMap is a 100,000-piece file, far more pieces than cells.
func bigMap() PieceMap {
	return pieceMap(
		run{30000, PieceDone, 0}, run{500, PieceActive, 0}, run{9500, PieceMissing, NoMirror},
		run{20000, PieceDone, 1}, run{300, PieceActive, 1}, run{14700, PieceMissing, NoMirror},
		run{15000, PieceDone, 2}, run{10000, PieceMissing, NoMirror},
	)
}

// parityMap is a download whose mirrors all sent three pieces bad: the
// three were rebuilt from the file's parity set, one is being rebuilt
// now, and a run of a 4-cell grid is mostly parity's.
func parityMap() PieceMap {
	return pieceMap(
		run{30, PieceDone, 0}, run{1, PieceDone, RebuiltFromParity}, run{25, PieceDone, 1},
		run{2, PieceDone, RebuiltFromParity}, run{20, PieceDone, 2}, run{1, PieceActive, RebuiltFromParity},
		run{15, PieceDone, 0}, run{6, PieceMissing, NoMirror},
	)
}

var threeMirrors = []string{"mirror.example.org", "ftp.example.net", "dl.example.de:8080"}

func TestBucket(t *testing.T) {
	tests := []struct {
		name string
		p    PieceMap
		n    int
		want []cell
	}{
		{
			name: "one piece per cell",
			p:    pieceMap(run{1, PieceDone, 1}, run{1, PieceActive, 0}, run{1, PieceMissing, NoMirror}, run{1, PieceBad, 2}),
			n:    4,
			want: []cell{
				{state: PieceDone, mirror: 1, done: 1},
				{state: PieceActive, mirror: 0, done: 0},
				{state: PieceMissing, mirror: NoMirror, done: 0},
				{state: PieceBad, mirror: 2, done: 0},
			},
		},
		{
			name: "a bad piece shows over a run done",
			p:    pieceMap(run{3, PieceDone, 0}, run{1, PieceBad, 1}),
			n:    1,
			want: []cell{{state: PieceBad, mirror: 0, done: 0.75}},
		},
		{
			name: "an active piece shows over a run partly done",
			p:    pieceMap(run{1, PieceActive, 1}, run{3, PieceMissing, NoMirror}, run{4, PieceDone, 0}),
			n:    2,
			want: []cell{
				{state: PieceActive, mirror: 1, done: 0},
				{state: PieceDone, mirror: 0, done: 1},
			},
		},
		{
			name: "a run partly done takes the colour of the mirror that did most",
			p:    pieceMap(run{1, PieceDone, 0}, run{2, PieceDone, 2}, run{1, PieceMissing, NoMirror}),
			n:    1,
			want: []cell{{state: PieceMissing, mirror: 2, done: 0.75}},
		},
		{
			name: "pieces done in an earlier session have no mirror",
			p:    pieceMap(run{2, PieceDone, NoMirror}),
			n:    1,
			want: []cell{{state: PieceDone, mirror: NoMirror, done: 1}},
		},
		{
			name: "uneven runs cover every piece once",
			p:    pieceMap(run{7, PieceDone, 0}),
			n:    3,
			want: []cell{
				{state: PieceDone, mirror: 0, done: 1},
				{state: PieceDone, mirror: 0, done: 1},
				{state: PieceDone, mirror: 0, done: 1},
			},
		},
		{
			name: "a piece rebuilt from parity has parity's colour, not a mirror's",
			p:    pieceMap(run{1, PieceDone, RebuiltFromParity}, run{1, PieceActive, RebuiltFromParity}, run{1, PieceBad, RebuiltFromParity}),
			n:    3,
			want: []cell{
				{state: PieceDone, mirror: RebuiltFromParity, done: 1},
				{state: PieceActive, mirror: RebuiltFromParity, done: 0},
				{state: PieceBad, mirror: RebuiltFromParity, done: 0},
			},
		},
		{
			name: "a run mostly rebuilt from parity takes parity's colour",
			p:    pieceMap(run{1, PieceDone, 1}, run{2, PieceDone, RebuiltFromParity}, run{1, PieceDone, 1}, run{1, PieceDone, RebuiltFromParity}),
			n:    2,
			want: []cell{
				{state: PieceDone, mirror: 1, done: 1},                 // pieces 0–1: a tie goes to the mirror
				{state: PieceDone, mirror: RebuiltFromParity, done: 1}, // pieces 2–4: two of three rebuilt
			},
		},
		{
			name: "a filler below the known ones is no mirror, never an index",
			p:    pieceMap(run{2, PieceDone, -7}),
			n:    1,
			want: []cell{{state: PieceDone, mirror: NoMirror, done: 1}},
		},
		{
			name: "no pieces",
			p:    PieceMap{},
			n:    2,
			want: []cell{{mirror: 0}, {mirror: 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := bucket(tt.p, tt.n)
			if !slices.Equal(got, tt.want) {
				t.Errorf("bucket(%d pieces, %d) =\n %+v\nwant\n %+v", tt.p.Len(), tt.n, got, tt.want)
			}
		})
	}
}

func TestPlanGrid(t *testing.T) {
	tests := []struct {
		name         string
		pieces, w, h int
		scale        float64
		want         grid
	}{
		{"few pieces get full-size cells", 12, 200, 50, 1, grid{pitch: 22, size: 21, cols: 9, rows: 2, cells: 12}},
		{"cells shrink until every piece has one", 400, 200, 50, 1, grid{pitch: 5, size: 4, cols: 40, rows: 10, cells: 400}},
		{"hi-dpi doubles the cell and the gap", 12, 400, 100, 2, grid{pitch: 44, size: 42, cols: 9, rows: 2, cells: 12}},
		{"too many pieces share the smallest cells", 100000, 200, 50, 1, grid{pitch: 4, size: 3, cols: 50, rows: 12, cells: 600}},
		{"no pieces", 0, 200, 50, 1, grid{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := planGrid(tt.pieces, tt.w, tt.h, tt.scale)
			if got != tt.want {
				t.Errorf("planGrid(%d, %d×%d, %g) = %+v, want %+v", tt.pieces, tt.w, tt.h, tt.scale, got, tt.want)
			}
		})
	}
}

func TestSegmentMapGolden(t *testing.T) {
	tests := []struct {
		name    string
		theme   func() fyne.Theme
		p       PieceMap
		mirrors []string
		size    fyne.Size
	}{
		{"segmap_light.png", lightTheme, smallMap(), threeMirrors, fyne.NewSize(420, 170)},
		{"segmap_dark.png", darkTheme, smallMap(), threeMirrors, fyne.NewSize(420, 170)},
		{"segmap_100k.png", lightTheme, bigMap(), threeMirrors, fyne.NewSize(420, 170)},
		{"segmap_empty.png", lightTheme, PieceMap{}, nil, fyne.NewSize(300, 100)},
		{"segmap_parity_light.png", lightTheme, parityMap(), threeMirrors, fyne.NewSize(420, 170)},
		{"segmap_parity_dark.png", darkTheme, parityMap(), threeMirrors, fyne.NewSize(420, 170)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := test.NewTempApp(t)
			a.Settings().SetTheme(tt.theme())
			m := NewSegmentMap()
			m.Set(tt.p, tt.mirrors)
			img := capture(t, m, tt.size)
			assertGolden(t, tt.name, img)
		})
	}
}

// TestSegmentMapColours reads the drawn raster back and checks each cell
// has the colour its piece's state and mirror call for.
func TestSegmentMapColours(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(lightTheme())
	m := NewSegmentMap()
	p := pieceMap(run{1, PieceDone, 0}, run{1, PieceDone, 1}, run{1, PieceActive, 1}, run{1, PieceBad, 2}, run{1, PieceMissing, NoMirror}, run{1, PieceDone, NoMirror},
		run{1, PieceDone, RebuiltFromParity}, run{1, PieceActive, RebuiltFromParity}, run{1, PieceDone, -9})
	m.Set(p, threeMirrors)
	w := test.NewTempWindow(t, m)
	w.SetPadded(false)
	w.Resize(fyne.NewSize(500, 200))
	r := test.TempWidgetRenderer(t, m).(*segRenderer)
	sz := r.raster.Size()
	img := r.draw(int(sz.Width), int(sz.Height))
	g := planGrid(p.Len(), int(sz.Width), int(sz.Height), 1)
	pal := r.palette
	want := []color.NRGBA{
		mirrorColors[0],
		mirrorColors[1],
		mix(pal.missing, mirrorColors[1], 0.45),
		pal.bad,
		pal.missing,
		pal.earlier,
		parityLight,
		mix(pal.missing, parityLight, 0.7),
		pal.earlier, // an unknown filler below 0: no mirror's colour
	}
	for i, c := range want {
		x, y := (i%g.cols)*g.pitch+g.size/2, (i/g.cols)*g.pitch+g.size/2
		if got := nrgba(img.At(x, y)); got != c {
			t.Errorf("piece %d at (%d,%d) drawn %v, want %v", i, x, y, got, c)
		}
	}
	// The gap after the last piece's cell stays clear.
	last := len(want)
	x, y := (last%g.cols)*g.pitch+g.size/2, (last/g.cols)*g.pitch+g.size/2
	if _, _, _, alpha := img.At(x, y).RGBA(); alpha != 0 {
		t.Errorf("cell past the last piece is painted")
	}
}

func TestSegmentMapLegend(t *testing.T) {
	test.NewTempApp(t)
	m := NewSegmentMap()
	w := test.NewTempWindow(t, m)
	w.Resize(fyne.NewSize(500, 150))
	r := test.TempWidgetRenderer(t, m).(*segRenderer)

	labels := func() []string {
		var out []string
		for _, o := range r.legend.Objects {
			it := o.(*legendItem)
			out = append(out, it.label.Text)
		}
		return out
	}
	m.Set(pieceMap(run{4, PieceDone, 0}), threeMirrors[:1])
	if got, want := labels(), []string{"mirror.example.org", "In progress", "Done earlier", "Missing"}; !slices.Equal(got, want) {
		t.Errorf("legend %q, want %q", got, want)
	}
	m.Set(parityMap(), threeMirrors)
	if got, want := labels(), append(slices.Clone(threeMirrors), "In progress", "Done earlier", "Missing", "Rebuilt from parity"); !slices.Equal(got, want) {
		t.Errorf("legend %q, want %q", got, want)
	}
	last := r.legend.Objects[len(r.legend.Objects)-1].(*legendItem)
	if got := nrgba(last.swatch.FillColor); got != r.palette.parity || (got != parityLight && got != parityDark) {
		t.Errorf("the parity swatch is %v, want the theme's parity colour %v", got, r.palette.parity)
	}
	m.Set(pieceMap(run{4, PieceDone, 0}, run{1, PieceMissing, RebuiltFromParity}), threeMirrors)
	if got := labels(); slices.Contains(got, "Rebuilt from parity") {
		t.Errorf("legend %q names parity for a piece still missing", got)
	}
	m.Set(smallMap(), threeMirrors)
	if got, want := labels(), append(slices.Clone(threeMirrors), "In progress", "Done earlier", "Missing", "Failed hash"); !slices.Equal(got, want) {
		t.Errorf("legend %q, want %q", got, want)
	}
	before := r.legend.Objects[0]
	m.Set(pieceMap(run{5, PieceBad, 1}), threeMirrors)
	if r.legend.Objects[0] != before {
		t.Errorf("legend rebuilt though the mirrors did not change")
	}
}

func TestPieceMapSummary(t *testing.T) {
	tests := []struct {
		p    PieceMap
		want string
	}{
		{PieceMap{}, "0 of 0 pieces done"},
		{smallMap(), "92 of 140 pieces done · 12 in progress · 1 failed the hash"},
		{bigMap(), "65,000 of 100,000 pieces done · 800 in progress"},
		{parityMap(), "93 of 100 pieces done · 3 rebuilt from parity · 1 being rebuilt from parity"},
		// A rebuild under way: the pieces in hand are parity's, not a
		// mirror's, and the caption says so as the state line does.
		{pieceMap(run{93, PieceDone, 0}, run{3, PieceActive, RebuiltFromParity}), "93 of 96 pieces done · 3 being rebuilt from parity"},
		{pieceMap(run{90, PieceDone, 1}, run{2, PieceActive, 0}, run{1, PieceActive, RebuiltFromParity}, run{3, PieceMissing, NoMirror}),
			"90 of 96 pieces done · 1 being rebuilt from parity · 2 in progress"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.p.Summary(); got != tt.want {
				t.Errorf("Summary() = %q, want %q", got, tt.want)
			}
		})
	}
}

// BenchmarkSegmentMapDraw100k draws a 100,000-piece map into an
// 800×200-pixel raster: the work of one tick on the Segments tab.
func BenchmarkSegmentMapDraw100k(b *testing.B) {
	test.NewTempApp(b)
	m := NewSegmentMap()
	m.Set(bigMap(), threeMirrors)
	w := test.NewWindow(m)
	defer w.Close()
	w.Resize(fyne.NewSize(812, 260))
	r := test.WidgetRenderer(m).(*segRenderer)
	var img image.Image
	b.ReportAllocs()
	for b.Loop() {
		img = r.draw(800, 200)
	}
	if img.Bounds().Dx() != 800 {
		b.Fatal("wrong size")
	}
}
