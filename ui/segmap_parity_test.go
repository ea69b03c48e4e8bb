package ui

import (
	"image/color"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// TestParityColourStandsApart: the colour of pieces rebuilt from parity
// is far (CIELAB ΔE of 20 or more; the mirror colours' closest pair is 17
// apart) from every mirror colour, from the failed-hash red, from the
// greys of missing and earlier pieces and from the background, on the
// light and the dark theme, seen with full colour vision and as readers
// with deuteranopia, protanopia and tritanopia see it (Machado et al.'s
// simulation, severity 1).
func TestParityColourStandsApart(t *testing.T) {
	const least = 20.0
	for _, v := range []struct {
		name string
		th   fyne.Theme
		want color.NRGBA
	}{{"light", lightTheme(), parityLight}, {"dark", darkTheme(), parityDark}} {
		p := newPalette(v.th, theme.VariantLight) // the variantTheme holds its own variant
		if p.parity != v.want {
			t.Errorf("%s: parity colour %v, want %v", v.name, p.parity, v.want)
		}
		others := map[string]color.NRGBA{"failed hash": p.bad, "missing": p.missing, "done earlier": p.earlier, "background": p.bg}
		for i, m := range mirrorColors {
			others["mirror "+string(rune('0'+i))] = m
		}
		// A piece being rebuilt is a tint of the colour: apart from the
		// greys and from the pieces rebuilt already.
		active := mix(p.missing, p.parity, activeTint(RebuiltFromParity))
		for name, c := range map[string]color.NRGBA{"missing": p.missing, "done earlier": p.earlier, "rebuilt": p.parity} {
			if d := deltaE(seenWith("", active), seenWith("", c)); d < 15 {
				t.Errorf("%s theme: a piece being rebuilt (%v) is %.1f from %s %v, want 15 or more", v.name, active, d, name, c)
			}
		}
		for _, vision := range []string{"", "deuteranopia", "protanopia", "tritanopia"} {
			for name, c := range others {
				if d := deltaE(seenWith(vision, p.parity), seenWith(vision, c)); d < least {
					t.Errorf("%s theme, %s: parity %v is %.1f from %s %v, want %.0f or more", v.name, cmpOr(vision, "full colour vision"), p.parity, d, name, c, least)
				}
			}
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// machado are the linear-RGB matrices of Machado, Oliveira and Fernandes
// (2009) for full dichromacy.
var machado = map[string][3][3]float64{
	"deuteranopia": {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}},
	"protanopia":   {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}},
	"tritanopia":   {{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}},
}

// seenWith is c as a reader with the vision named sees it ("" as is), in
// linear RGB.
func seenWith(vision string, c color.NRGBA) [3]float64 {
	l := [3]float64{toLinear(c.R), toLinear(c.G), toLinear(c.B)}
	m, ok := machado[vision]
	if !ok {
		return l
	}
	var out [3]float64
	for i, row := range m {
		out[i] = min(1, max(0, row[0]*l[0]+row[1]*l[1]+row[2]*l[2]))
	}
	return out
}

func toLinear(v uint8) float64 {
	c := float64(v) / 255
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// deltaE is the CIE76 distance of two linear-RGB colours in CIELAB (D65).
func deltaE(a, b [3]float64) float64 {
	la, lb := lab(a), lab(b)
	return math.Sqrt((la[0]-lb[0])*(la[0]-lb[0]) + (la[1]-lb[1])*(la[1]-lb[1]) + (la[2]-lb[2])*(la[2]-lb[2]))
}

func lab(c [3]float64) [3]float64 {
	x := (0.4124*c[0] + 0.3576*c[1] + 0.1805*c[2]) / 0.95047
	y := 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
	z := (0.0193*c[0] + 0.1192*c[1] + 0.9505*c[2]) / 1.08883
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
}
