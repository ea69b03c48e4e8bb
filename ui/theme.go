package ui

import (
	"cmp"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Theme is Fyne's default theme, light or dark as the desktop prefers,
// with calmer status colours (the default success green and warning
// orange are signal colours, loud on a list where most rows are done),
// and every colour that text is written in readable: at least 4.5:1
// (WCAG AA) against every background it is drawn on, a selected row's
// included. Fyne's light placeholder grey (3.5:1), its blue (4.0:1 on
// the dark background) and its light success, warning and error colours
// are darker or lighter here. Disabled controls keep Fyne's faint
// colour: they are meant to read as out of use.
// It is safe for concurrent use.
type Theme struct {
	fyne.Theme
	mode ThemeMode
}

// ThemeMode is the user's choice of light or dark.
type ThemeMode string

// The theme modes Settings offers; "" is ThemeSystem.
const (
	ThemeSystem ThemeMode = "system" // as the desktop prefers
	ThemeLight  ThemeMode = "light"
	ThemeDark   ThemeMode = "dark"
)

// NewTheme returns Braid's theme, light or dark as the desktop prefers.
func NewTheme() *Theme { return NewThemeMode(ThemeSystem) }

// NewThemeMode returns Braid's theme, always light or dark, or as the
// desktop prefers.
func NewThemeMode(m ThemeMode) *Theme { return &Theme{theme.DefaultTheme(), m} }

// Mode is the choice the theme follows.
func (t *Theme) Mode() ThemeMode { return cmp.Or(t.mode, ThemeSystem) }

// variant is v, or the variant the user chose over the desktop's.
func (t *Theme) variant(v fyne.ThemeVariant) fyne.ThemeVariant {
	switch t.mode {
	case ThemeLight:
		return theme.VariantLight
	case ThemeDark:
		return theme.VariantDark
	}
	return v
}

// Color is the theme's colour for n in variant v.
func (t *Theme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	v = t.variant(v)
	dark := v == theme.VariantDark
	switch n {
	case theme.ColorNameSuccess:
		if dark {
			return color.NRGBA{0x4c, 0xc3, 0x8a, 0xff}
		}
		return color.NRGBA{0x16, 0x62, 0x38, 0xff}
	case theme.ColorNameWarning:
		if dark {
			return color.NRGBA{0xe8, 0xb0, 0x4a, 0xff}
		}
		return color.NRGBA{0x7d, 0x4a, 0x00, 0xff}
	case theme.ColorNameError:
		if dark {
			return color.NRGBA{0xf2, 0x6d, 0x63, 0xff}
		}
		return color.NRGBA{0xb0, 0x27, 0x1e, 0xff}
	case theme.ColorNamePrimary, theme.ColorNameHyperlink:
		if dark {
			return color.NRGBA{0x6e, 0xa8, 0xfe, 0xff}
		}
		return color.NRGBA{0x1a, 0x56, 0xc8, 0xff}
	case theme.ColorNameForegroundOnPrimary:
		if dark {
			return color.NRGBA{0x17, 0x17, 0x18, 0xff}
		}
	case theme.ColorNamePlaceHolder:
		if dark {
			break
		}
		return color.NRGBA{0x5e, 0x5e, 0x5e, 0xff}
	}
	return t.Theme.Color(n, v)
}

// Font is the font for text in style s. Plain, bold and italic text
// name Fyne's bundled symbol font first: Fyne draws each character
// from the first font that has it, then from its bundled Noto Sans,
// then from the system's fonts. Noto Sans has no arrows, and a system
// without fonts that do (a Wine prefix, some Windows and Linux
// installs) drew "↓ 2.3 MiB/s" as "�2.3 MiB/s". The symbol font has the
// arrows and keyboard signs only, nothing Noto Sans has, so every other
// character, and each line's height and baseline (taken from the space),
// stays Noto Sans's. A space right after an arrow stays in the arrow's
// font, which has no space, and shows as a box: Braid writes "↓2.3 MiB/s".
func (t *Theme) Font(s fyne.TextStyle) fyne.Resource {
	if s.Monospace || s.Symbol {
		return t.Theme.Font(s)
	}
	return theme.DefaultSymbolFont()
}
