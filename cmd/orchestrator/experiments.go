package main

import (
	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/report"
)

func newExperimentsCmd(g *globalState) *cobra.Command {
	cmd := &cobra.Command{Use: "experiments", Short: "The built-in experiments: the seed articles' experiments, each in one command"}
	var output string
	list := &cobra.Command{
		Use:   "list",
		Short: "List the built-in experiments, the seed each reproduces and what its scale stretches",
		Long: "List the built-in experiments. Run one with: orchestrator run --experiment NAME [--scale F] [--part P]\n" +
			"(an experiment with parts runs each part as a run of its own, in order, unless --part picks one).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return report.WriteExperiments(g.stdout, builtin.Experiments(), output)
		},
	}
	list.Flags().StringVarP(&output, "output", "o", report.FormatTable, report.FormatList(report.KindExperiments))
	cmd.AddCommand(list)
	return cmd
}

// writeExperiment prints an experiment run's seed table after its run
// tables; other runs and formats print nothing more.
func writeExperiment(g *globalState, run *bench.Run, output string) error {
	if output != report.FormatTable || run.Spec.Experiment == nil {
		return nil
	}
	return report.WriteExperimentRun(g.stdout, run, report.FormatTable)
}
