package chart

// Exported for the external tests of unexported maths.
var (
	NiceTicks     = niceTicks
	TicksWithin   = ticksWithin
	Downsample    = downsample
	FormatValue   = formatValue
	FormatPrecise = formatPrecise
	TickLabels    = tickLabels
	Px            = px
)
