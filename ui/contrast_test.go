package ui

import (
	"image/color"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// relLuminance is WCAG 2's relative luminance of c (opaque).
func relLuminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// contrastRatio is WCAG 2's contrast ratio of two opaque colours, 1 to 21.
func contrastRatio(a, b color.Color) float64 {
	la, lb := relLuminance(a), relLuminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// over is c drawn over the opaque colour bg.
func over(c, bg color.Color) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	o := color.NRGBAModel.Convert(bg).(color.NRGBA)
	a := float64(n.A) / 255
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*a + float64(y)*(1-a))) }
	return color.NRGBA{mix(n.R, o.R), mix(n.G, o.G), mix(n.B, o.B), 0xff}
}

// TestThemeTextContrast checks every colour the window writes text in
// against every background text is drawn on, in both variants: at least
// 4.5:1, WCAG AA for normal text. A translucent background (the
// selection, a hover) is taken over the window's background. The
// coloured buttons' text is checked on its button.
func TestThemeTextContrast(t *testing.T) {
	th := NewTheme()
	texts := []fyne.ThemeColorName{theme.ColorNameForeground, theme.ColorNamePlaceHolder, theme.ColorNamePrimary,
		theme.ColorNameHyperlink, theme.ColorNameSuccess, theme.ColorNameWarning, theme.ColorNameError}
	grounds := []fyne.ThemeColorName{theme.ColorNameBackground, theme.ColorNameHeaderBackground, theme.ColorNameInputBackground,
		theme.ColorNameMenuBackground, theme.ColorNameOverlayBackground, theme.ColorNameSelection, theme.ColorNameButton,
		theme.ColorNameHover}
	on := [][2]fyne.ThemeColorName{
		{theme.ColorNameForegroundOnPrimary, theme.ColorNamePrimary},
		{theme.ColorNameForegroundOnError, theme.ColorNameError},
		{theme.ColorNameForegroundOnSuccess, theme.ColorNameSuccess},
		{theme.ColorNameForegroundOnWarning, theme.ColorNameWarning},
	}
	for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		base := th.Color(theme.ColorNameBackground, v)
		for _, fg := range texts {
			for _, bg := range grounds {
				b := over(th.Color(bg, v), base)
				if r := contrastRatio(over(th.Color(fg, v), b), b); r < 4.5 {
					t.Errorf("variant %d: %s text on %s is %.2f:1, below 4.5:1", v, fg, bg, r)
				}
			}
		}
		for _, p := range on {
			if r := contrastRatio(th.Color(p[0], v), th.Color(p[1], v)); r < 4.5 {
				t.Errorf("variant %d: %s on %s is %.2f:1, below 4.5:1", v, p[0], p[1], r)
			}
		}
	}
}
