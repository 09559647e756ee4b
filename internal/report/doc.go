// Package report compares two runs and renders runs, run lists and
// comparisons for humans (aligned text, GitHub markdown) and for programs
// (indented JSON).
//
// Comparisons recompute latency percentiles from the encoded HDR histograms
// kept in bench.Stats, so that the figures of two runs come from the same
// arithmetic whatever produced their stored summaries. Every renderer writes
// to an io.Writer and its output depends only on its input, so that golden
// files can pin it down.
//
// Each output format is one Format in formats.go: its name, media type,
// file extension and a renderer for each Kind it writes. The Write
// functions look their format up there, and so do the CLI's flags, the
// HTTP API's negotiation and the web page's download links.
package report
