// Package analysis concludes what a run, or two runs, say: Analyze turns a
// stored run into its bench.Report (each label's figures with intervals over
// the steady part of each window, ranks, the pairs users ask about, the
// bounds a figure cannot pass, and the findings in words), and Compare sets
// two runs side by side in a bench.Comparison with a verdict per figure.
//
// Latency percentiles are recomputed from the encoded HDR histograms kept
// in bench.Stats, so that the figures of two runs come from the same
// arithmetic whatever produced their stored summaries.
//
// Package report writes what this package concludes; it draws the figures,
// units and names of its tables from here (Num, ValueWithUnit, StageLabel,
// the Unit and Metric names, ResourceSummary, Plain) so that a table and a
// finding say a figure the same way. Nothing here writes a format.
package analysis
