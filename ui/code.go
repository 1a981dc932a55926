package ui

// Rules of this file: turning Python code into highlighted, numbered rich
// text. Pure functions of the code; no window is touched here.

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// Syntax colours are theme colour names, so light and dark themes both
// read well (see pygateTheme).
const (
	colorKeyword fyne.ThemeColorName = "pygate-keyword"
	colorString  fyne.ThemeColorName = "pygate-string"
	colorComment fyne.ThemeColorName = "pygate-comment"
	colorNumber  fyne.ThemeColorName = "pygate-number"
	colorName    fyne.ThemeColorName = "pygate-name"
)

func tokenColor(t chroma.TokenType) fyne.ThemeColorName {
	switch {
	case t.InCategory(chroma.Keyword):
		return colorKeyword
	case t.InCategory(chroma.Comment):
		return colorComment
	case t.InSubCategory(chroma.LiteralString):
		return colorString
	case t.InSubCategory(chroma.LiteralNumber):
		return colorNumber
	case t == chroma.NameBuiltin || t == chroma.NameFunction || t == chroma.NameClass || t == chroma.NameDecorator:
		return colorName
	}
	return theme.ColorNameForeground
}

// codeSegments renders code as monospace rich text: a line number column,
// then the tokens coloured by kind. Tabs become four spaces.
func codeSegments(code string) []widget.RichTextSegment {
	code = strings.ReplaceAll(code, "\t", "    ")
	lines := strings.Split(strings.TrimRight(code, "\n"), "\n")
	width := len(fmt.Sprint(len(lines)))
	lexer := lexers.Get("python")
	mono := fyne.TextStyle{Monospace: true}
	var segs []widget.RichTextSegment
	for i, line := range lines {
		segs = append(segs, &widget.TextSegment{
			Text:  fmt.Sprintf("%*d  ", width, i+1),
			Style: widget.RichTextStyle{Inline: true, ColorName: theme.ColorNamePlaceHolder, TextStyle: mono},
		})
		if line == "" {
			segs = append(segs, &widget.TextSegment{Text: " ", Style: widget.RichTextStyle{Inline: true, TextStyle: mono}})
		} else if it, err := lexer.Tokenise(nil, line); err == nil {
			for _, tok := range it.Tokens() {
				text := strings.TrimRight(tok.Value, "\n")
				if text == "" {
					continue
				}
				segs = append(segs, &widget.TextSegment{
					Text:  text,
					Style: widget.RichTextStyle{Inline: true, ColorName: tokenColor(tok.Type), TextStyle: mono},
				})
			}
		} else {
			segs = append(segs, &widget.TextSegment{Text: line, Style: widget.RichTextStyle{Inline: true, TextStyle: mono}})
		}
		// A non-inline empty segment ends the line.
		segs = append(segs, &widget.TextSegment{Text: "", Style: widget.RichTextStyle{Inline: false, TextStyle: mono}})
	}
	return segs
}

// newCodeView is a read-only, scrollable view of highlighted code.
func newCodeView(code string) *widget.RichText {
	rt := widget.NewRichText(codeSegments(code)...)
	rt.Wrapping = fyne.TextWrapOff
	return rt
}
