// Command icongen draws Braid's icon: three strands braided into one on a
// rounded tile. Each size is drawn at that size, not scaled down, with
// strokes thickened for the small ones so the braid still reads at 16 px.
//
//	go run ./tools/icongen   (writes assets/icon.png and assets/icons/*.png)
package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
)

var strandColours = []color.NRGBA{
	{0x4f, 0xd1, 0xc5, 0xff}, // teal
	{0xf6, 0xc3, 0x5b, 0xff}, // amber
	{0xf2, 0x7d, 0x72, 0xff}, // coral
}

var (
	tileTop    = color.NRGBA{0x2a, 0x44, 0x6b, 0xff}
	tileBottom = color.NRGBA{0x17, 0x25, 0x3d, 0xff}
)

func main() {
	if err := os.MkdirAll("assets/icons", 0o755); err != nil {
		log.Fatal(err)
	}
	write("assets/icon.png", draw(512))
	for _, s := range []int{16, 32, 48, 128, 256} {
		write(filepath.Join("assets/icons", fmt.Sprintf("%d.png", s)), draw(s))
	}
}

func write(path string, img image.Image) {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

type point struct{ x, y, z float64 }

func draw(size int) *image.NRGBA {
	s := float64(size)
	// Small icons get relatively thicker strands and fewer twists.
	width := s * 0.105
	turns := 1.5
	if size <= 32 {
		width = math.Max(s*0.16, 2.2)
		turns = 1.0
	}
	pad := s * 0.2
	amp := s * 0.17
	radius := s * 0.22
	edge := s * 0.02 // the tile's inset, so the rounded corners read

	strands := make([][]point, 3)
	for i := range strands {
		phase := 2 * math.Pi * float64(i) / 3
		for k := 0; k <= 400; k++ {
			t := float64(k) / 400
			y := pad + t*(s-2*pad)
			a := 2*math.Pi*turns*t + phase
			strands[i] = append(strands[i], point{s/2 + amp*math.Sin(a), y, math.Cos(a)})
		}
	}

	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			x, y := float64(px)+0.5, float64(py)+0.5
			tile := roundedCover(x, y, edge, s-edge, radius)
			if tile == 0 {
				continue
			}
			c := mix(tileTop, tileBottom, y/s)
			// Strands at this pixel, back to front; each is drawn with a
			// dark rim so the one above it shows where they cross.
			type hit struct {
				cover, rim, z float64
				i             int
			}
			var hits []hit
			for i, st := range strands {
				d, z := nearest(st, x, y)
				hits = append(hits, hit{
					cover: clamp(width/2 - d + 0.5),
					rim:   clamp(width/2 + math.Max(width*0.18, 1) - d + 0.5),
					z:     z, i: i,
				})
			}
			sort.Slice(hits, func(a, b int) bool { return hits[a].z < hits[b].z })
			for _, h := range hits {
				c = over(c, tileBottom, h.rim)
				c = over(c, shade(strandColours[h.i], h.z), h.cover)
			}
			c.A = uint8(255 * tile)
			img.SetNRGBA(px, py, c)
		}
	}
	return img
}

// nearest returns the distance from (x, y) to the polyline and the depth
// there.
func nearest(st []point, x, y float64) (float64, float64) {
	best, z := math.Inf(1), 0.0
	for k := 1; k < len(st); k++ {
		a, b := st[k-1], st[k]
		dx, dy := b.x-a.x, b.y-a.y
		t := ((x-a.x)*dx + (y-a.y)*dy) / (dx*dx + dy*dy)
		t = math.Max(0, math.Min(1, t))
		ex, ey := a.x+t*dx-x, a.y+t*dy-y
		if d := math.Hypot(ex, ey); d < best {
			best, z = d, a.z+t*(b.z-a.z)
		}
	}
	return best, z
}

// roundedCover is how much of the pixel at (x, y) lies inside the rounded
// square from lo to hi with corner radius r.
func roundedCover(x, y, lo, hi, r float64) float64 {
	cx := math.Max(lo+r, math.Min(hi-r, x))
	cy := math.Max(lo+r, math.Min(hi-r, y))
	return clamp(r - math.Hypot(x-cx, y-cy) + 0.5)
}

func clamp(v float64) float64 { return math.Max(0, math.Min(1, v)) }

func mix(a, b color.NRGBA, t float64) color.NRGBA {
	l := func(p, q uint8) uint8 { return uint8(float64(p) + (float64(q)-float64(p))*t) }
	return color.NRGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), 255}
}

func over(dst, src color.NRGBA, alpha float64) color.NRGBA {
	return mix(dst, src, alpha)
}

// shade darkens a strand where it turns away (z < 0), so it reads as round.
func shade(c color.NRGBA, z float64) color.NRGBA {
	return mix(c, color.NRGBA{0x10, 0x18, 0x28, 0xff}, 0.35*(1-z)/2)
}
