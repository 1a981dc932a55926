package ui

// Rules of this file: PyGate's theme adds the syntax colours to Fyne's
// default theme and changes nothing else.

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

type pygateTheme struct{ fyne.Theme }

func newTheme() fyne.Theme { return pygateTheme{theme.DefaultTheme()} }

func (t pygateTheme) Color(name fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	dark := v == theme.VariantDark
	pick := func(light, darkC color.NRGBA) color.Color {
		if dark {
			return darkC
		}
		return light
	}
	switch name {
	case colorKeyword:
		return pick(color.NRGBA{0x7b, 0x30, 0xd0, 0xff}, color.NRGBA{0xc6, 0x92, 0xff, 0xff})
	case colorString:
		return pick(color.NRGBA{0x1a, 0x7f, 0x37, 0xff}, color.NRGBA{0x8b, 0xd5, 0x8b, 0xff})
	case colorComment:
		return pick(color.NRGBA{0x6a, 0x73, 0x7d, 0xff}, color.NRGBA{0x8b, 0x94, 0x9e, 0xff})
	case colorNumber:
		return pick(color.NRGBA{0xb3, 0x5c, 0x00, 0xff}, color.NRGBA{0xff, 0xa6, 0x57, 0xff})
	case colorName:
		return pick(color.NRGBA{0x05, 0x50, 0xae, 0xff}, color.NRGBA{0x79, 0xc0, 0xff, 0xff})
	case colorDanger:
		return pick(color.NRGBA{0xc6, 0x28, 0x28, 0xff}, color.NRGBA{0xff, 0x6b, 0x6b, 0xff})
	}
	return t.Theme.Color(name, v)
}

// colorDanger marks what the person should weigh before allowing.
const colorDanger fyne.ThemeColorName = "pygate-danger"
