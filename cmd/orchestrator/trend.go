package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/client"
	"github.com/threadbench/threadbench/internal/report"
	"github.com/threadbench/threadbench/internal/trend"
)

func newRunsTrendCmd(g *globalState) *cobra.Command {
	var (
		q      trend.Query
		output string
	)
	cmd := &cobra.Command{
		Use:   "trend NAME",
		Short: "Follow a figure of one target over the runs of a spec, and mark where it changed",
		Long: "Read every succeeded run of spec NAME (carrying --label, when given) that measured --target, oldest\n" +
			"first, and its whole-attack --figure with its interval, as a report gives them (capacity: a capacity search's\n" +
			"answer, confirmed or not). Change points are found\n" +
			"by " + trend.Method + " at alpha " + fmt.Sprint(trend.DefaultAlpha) +
			", with a fixed seed and at least 3 runs on each side: on runs of noise alone one is reported about\n" +
			"once in 20 series. Each is marked better or worse, with the means either side and its p-value.",
		Example: "  orchestrator runs trend nightly --target go --figure throughput\n" +
			"  orchestrator runs trend nightly --target java-virtual --figure p99 --label branch=main -o json",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Name = args[0]
			if err := q.Check(); err != nil {
				return err
			}
			if _, err := report.LookupFormat(report.KindTrend, output, "output"); err != nil {
				return err
			}
			return withHistory(g, cmd, func(h history) error {
				t, err := readTrend(cmd.Context(), h, q)
				if err != nil {
					return err
				}
				return report.WriteTrend(g.stdout, t, output)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&q.Target, trend.FieldTarget, "", "the target whose figure to follow, e.g. go (required)")
	f.StringVar(&q.Figure, trend.FieldFigure, trend.Figures[0].Name, "the figure: "+strings.Join(trend.FigureNames(), ", "))
	f.StringVar(&q.Label, trend.FieldLabel, "", "only runs carrying this label, KEY=VALUE")
	f.StringVarP(&output, "output", "o", report.FormatTable, report.FormatList(report.KindTrend))
	return cmd
}

// readTrend reads a trend: on the daemon when there is one (it reads the
// runs where they are), else from the local history.
func readTrend(ctx context.Context, h history, q trend.Query) (trend.Trend, error) {
	if c, ok := h.(*client.Client); ok {
		return c.Trend(ctx, q)
	}
	return trend.Read(ctx, h, q, trend.Options{})
}
