// Package report renders runs, run lists, comparisons, reports and the
// catalogs for humans (aligned text, GitHub markdown, HTML) and for
// programs (indented JSON, CSV). What a report or a comparison concludes
// comes from package analysis; this package only writes it. Every renderer
// writes to an io.Writer and its output depends only on its input, so that
// golden files can pin it down.
//
// Each output format is one Format in formats.go: its name, media type,
// file extension and a renderer for each Kind it writes. The Write
// functions look their format up there, and so do the CLI's flags, the
// HTTP API's negotiation and the web page's download links.
package report
