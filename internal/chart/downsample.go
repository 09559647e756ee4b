package chart

// downsampleAbove is the number of points past which a series is reduced:
// more than that adds bytes, not detail, at a chart's width.
const downsampleAbove = 1000

// downsample reduces pts, sorted by X, to the lowest and the highest point
// of each of columns equal slices of [x0, x1], kept in their original order.
// A line through them looks the same at that many pixels, and every peak and
// every trough survives, which averaging or picking every n-th would lose.
func downsample(pts []Point, x0, x1 float64, columns int) []Point {
	if len(pts) <= 2*columns || x1 <= x0 || columns < 1 {
		return pts
	}
	out := make([]Point, 0, 2*columns)
	for start := 0; start < len(pts); {
		col := column(pts[start].X, x0, x1, columns)
		end := start + 1
		for end < len(pts) && column(pts[end].X, x0, x1, columns) == col {
			end++
		}
		out = appendExtremes(out, pts[start:end])
		start = end
	}
	return out
}

// column returns which of columns equal slices of [x0, x1] holds x.
func column(x, x0, x1 float64, columns int) int {
	c := int((x - x0) / (x1 - x0) * float64(columns))
	return max(0, min(columns-1, c))
}

// appendExtremes appends the lowest and the highest point of bucket, in the
// order they came, or one point if they are the same.
func appendExtremes(out, bucket []Point) []Point {
	low, high := 0, 0
	for i, p := range bucket {
		if p.Y < bucket[low].Y {
			low = i
		}
		if p.Y > bucket[high].Y {
			high = i
		}
	}
	switch {
	case low == high:
		return append(out, bucket[low])
	case low < high:
		return append(out, bucket[low], bucket[high])
	default:
		return append(out, bucket[high], bucket[low])
	}
}
