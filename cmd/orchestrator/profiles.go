package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
	"github.com/threadbench/threadbench/internal/report"
)

func newProfilesCmd(g *globalState) *cobra.Command {
	cmd := &cobra.Command{Use: "profiles", Short: "The built-in load profiles"}
	var output string
	list := &cobra.Command{
		Use:   "list",
		Short: "List the built-in profiles with their stages",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(output, report.FormatTable, report.FormatJSON); err != nil {
				return err
			}
			profiles := load.Builtins()
			if output == report.FormatJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(profiles)
			}
			w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tMODEL\tLENGTH\tSTAGES\tDESCRIPTION")
			for _, p := range profiles {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", p.Name, p.Model, p.Duration(), stagesLabel(p), p.Description)
			}
			return w.Flush()
		},
	}
	list.Flags().StringVarP(&output, "output", "o", report.FormatTable, "table or json")
	cmd.AddCommand(list)
	return cmd
}

// stagesLabel writes a profile's shape compactly: "0->100/6s 100->300/12s" or "16x10s 32x10s".
func stagesLabel(p bench.Profile) string {
	var parts []string
	prev := 0.0
	for _, s := range p.Stages {
		level := s.Rate
		if p.Model == bench.ModelClosed {
			level = float64(s.Concurrency)
		}
		if s.Ramp {
			parts = append(parts, fmt.Sprintf("%g->%g/%s", prev, level, s.Duration))
		} else {
			parts = append(parts, fmt.Sprintf("%gx%s", level, s.Duration))
		}
		prev = level
	}
	return strings.Join(parts, " ")
}
