// Package chart renders line and bar charts as static SVG on the server.
//
// The reports and the daemon's page draw their charts with this package
// rather than with a JavaScript charting library because:
//
//   - the HTML report must open offline, from a file, with no request to
//     another host: no CDN, no script to bundle, nothing to keep up to date;
//   - an SVG is text the test suite can pin with golden files, parse as XML
//     and query by class, so a chart is reviewed like any other output;
//   - the output is deterministic (fixed number formatting, no map order)
//     and small (coordinates rounded to 0.1 px, long series reduced to the
//     lowest and highest point of each pixel column so peaks survive);
//   - hover values use the browser's native <title> tooltips, so a page that
//     forbids scripts still shows them.
//
// Every chart root is <svg class="chart" data-chart="ID" role="img"> with an
// aria-label and a <title>; every series (or bar) is a
// <g class="series" data-series="NAME">. Text and axes use currentColor, so
// an inline chart takes the colour of the page around it; no chart defines
// an id or a <style>, so several charts can share one HTML document.
//
// Series colours come from a fixed colour-blind-friendly palette (Color), by
// index: give the i-th target index i in every chart and in every HTML table
// and its colour will match everywhere.
package chart
