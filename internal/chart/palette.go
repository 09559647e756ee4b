package chart

// palette is the Okabe–Ito colour-blind-friendly palette without its yellow
// and black, which are hard to read on a white or a dark page respectively.
var palette = [...]string{
	"#0072B2", // blue
	"#D55E00", // vermillion
	"#009E73", // bluish green
	"#CC79A7", // reddish purple
	"#E69F00", // orange
	"#56B4E9", // sky blue
}

// dashes tells apart series whose colours repeat: the first len(palette)
// series are solid, the next ones dashed, then dotted.
var dashes = [...]string{"", "6 3", "2 2"}

// Color returns the colour of the i-th series, as "#RRGGBB". Colours repeat
// after len(Palette()) series; line charts then dash the repeated lines.
func Color(i int) string {
	return palette[wrap(i, len(palette))]
}

// Palette returns a copy of the series colours, in index order, for pages
// that colour a table or a legend of their own to match the charts.
func Palette() []string {
	return append([]string(nil), palette[:]...)
}

// dash returns the stroke-dasharray of the i-th series, "" for a solid line.
func dash(i int) string {
	return dashes[wrap(i/len(palette), len(dashes))]
}

// wrap maps any index, negative included, into [0, n).
func wrap(i, n int) int {
	return (i%n + n) % n
}
