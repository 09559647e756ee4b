package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

func newCompareCmd(g *globalState) *cobra.Command {
	var (
		output    string
		threshold float64
		failOnPct float64
	)
	cmd := &cobra.Command{
		Use:   "compare BASE HEAD",
		Short: "Compare two runs target by target: throughput, latency percentiles, errors, resources",
		Long: "Compare two runs target by target. Percentiles are recomputed from the stored histograms.\n" +
			"A figure is better or worse only when the runs differ significantly (Mann-Whitney U at alpha 0.05\n" +
			"on per-round values, or on batch means of per-second values when a run has one round) and by at\n" +
			"least --threshold percent; otherwise there is no significant difference (p = ..., n = ...).\n" +
			"With --fail-on-regression PCT the command exits with code 3 when any figure is significantly\n" +
			"worse by more than PCT percent.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if failOnPct < 0 || threshold < 0 {
				return bench.Errorf(bench.EINVALID, "--threshold and --fail-on-regression must not be negative")
			}
			var cmp bench.Comparison
			err := withHistory(g, cmd, func(h history) error {
				var err error
				if cmp, err = compareRuns(cmd.Context(), h, args[0], args[1], threshold); err != nil {
					return err
				}
				return report.WriteComparison(g.stdout, cmp, output)
			})
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("fail-on-regression") {
				return nil
			}
			if regressions := analysis.Regressions(cmp, failOnPct); len(regressions) > 0 {
				return &exitError{code: exitRegression, err: fmt.Errorf("%d regression(s) beyond %.1f%%:\n  %s",
					len(regressions), failOnPct, strings.Join(regressions, "\n  "))}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&output, "output", "o", report.FormatTable, report.FormatList(report.KindComparison))
	f.Float64Var(&threshold, "threshold", bench.DefaultNoiseThreshold, "minimum effect in percent: smaller changes are never better or worse")
	f.Float64Var(&failOnPct, "fail-on-regression", 0, "exit with code 3 when a figure is significantly worse by more than this percentage")
	return cmd
}
