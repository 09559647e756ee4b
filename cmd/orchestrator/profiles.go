package main

import (
	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/builtin"
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
			return report.WriteProfiles(g.stdout, builtin.Profiles(), output)
		},
	}
	list.Flags().StringVarP(&output, "output", "o", report.FormatTable, report.FormatList(report.KindProfiles))
	cmd.AddCommand(list)
	return cmd
}
