package chart

import (
	"encoding/xml"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxMagnitude bounds every value drawn; beyond it spans and scales would
// overflow to infinity.
const maxMagnitude = 1e300

// prefixes are the suffixes of large numbers, largest first.
var prefixes = []struct {
	scale  float64
	suffix string
}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}

// px formats a coordinate rounded to a tenth of a pixel: finer than a screen
// shows, coarse enough to keep the output small and stable.
func px(v float64) string {
	r := math.Round(v*10) / 10
	if r == 0 {
		return "0" // never "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// esc escapes s for XML text and for double-quoted attribute values; it also
// replaces characters XML cannot hold, since names come from users.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}

// formatValue formats v for a label: about three significant digits, with
// k, M, G or T from ten thousand up ("12.3k"), and an exponent beyond.
func formatValue(v float64) string {
	return formatDigits(v, 3)
}

// formatPrecise formats v for a tooltip, with a digit more than a label.
func formatPrecise(v float64) string {
	return formatDigits(v, 4)
}

// formatDigits formats v with the given significant digits, using a suffix
// from ten thousand up and an exponent from 10^15.
func formatDigits(v float64, digits int) string {
	a := math.Abs(v)
	if a >= 1e15 {
		return strconv.FormatFloat(v, 'g', digits, 64)
	}
	if a >= 1e4 {
		for _, p := range prefixes {
			if a >= p.scale {
				return significant(v/p.scale, digits) + p.suffix
			}
		}
	}
	return significant(v, digits)
}

// significant formats v, below ten thousand in magnitude, with the given
// significant digits but never fewer integer digits than it has, and no
// trailing zeros.
func significant(v float64, digits int) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a < 1e-3:
		return strconv.FormatFloat(v, 'g', digits, 64)
	}
	decimals := max(0, digits-1-int(math.Floor(math.Log10(a))))
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// tickLabels formats ticks spaced step apart with one shared suffix and just
// the decimals that step needs, so that labels line up and read alike.
func tickLabels(ticks []float64, step float64) []string {
	scale, suffix := tickScale(ticks)
	decimals := decimalsOf(step / scale)
	labels := make([]string, len(ticks))
	for i, t := range ticks {
		switch {
		case t == 0:
			labels[i] = "0"
		case scale == 0:
			labels[i] = strconv.FormatFloat(t, 'g', 3, 64)
		default:
			labels[i] = strconv.FormatFloat(t/scale, 'f', decimals, 64) + suffix
		}
	}
	return labels
}

// tickScale picks the suffix for the largest tick; a scale of 0 means
// exponent notation.
func tickScale(ticks []float64) (float64, string) {
	largest := 0.0
	for _, t := range ticks {
		largest = max(largest, math.Abs(t))
	}
	if largest >= 1e16 {
		return 0, ""
	}
	for _, p := range prefixes {
		if largest >= 10*p.scale {
			return p.scale, p.suffix
		}
	}
	return 1, ""
}

// decimalsOf returns how many decimals it takes to write step exactly.
func decimalsOf(step float64) int {
	for d := 0; d < 12; d++ {
		scaled := step * math.Pow10(d)
		if math.Abs(scaled-math.Round(scaled)) < 1e-6*max(1, scaled) {
			return d
		}
	}
	return 12
}

// textWidth estimates the width of s in a sans-serif font of the given size;
// charts have no font metrics, so layouts leave some slack around it.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * 0.6
}

// truncate shortens s with an ellipsis so that it fits width.
func truncate(s string, width, size float64) string {
	if textWidth(s, size) <= width {
		return s
	}
	runes := []rune(s)
	keep := max(1, int(width/(size*0.6))-1)
	if keep >= len(runes) {
		return s
	}
	return string(runes[:keep]) + "…"
}
