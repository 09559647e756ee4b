package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/threadbench/threadbench/api"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
	"github.com/threadbench/threadbench/internal/spec"
)

func newRunsCmd(g *globalState) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "Read the run history: list, show and delete runs, and follow a figure over them",
	}
	cmd.AddCommand(newRunsListCmd(g), newRunsShowCmd(g), newRunsDeleteCmd(g), newRunsTrendCmd(g))
	return cmd
}

func newRunsListCmd(g *globalState) *cobra.Command {
	var (
		statuses, labels    []string
		target, name        string
		since, until, after string
		limit               int
		output              string
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List runs, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			filter := bench.RunFilter{Target: target, Name: name, Limit: limit, Cursor: after}
			if err := parseFilter(&filter, statuses, since, until); err != nil {
				return err
			}
			var err error
			if filter.Labels, err = spec.ParseLabelPairs(labels, "label"); err != nil {
				return err
			}
			return withHistory(g, cmd, func(h history) error {
				runs, next, err := h.FindRunSummaries(cmd.Context(), filter)
				if err != nil {
					return err
				}
				if output == report.FormatJSON {
					return writeRunPage(g.stdout, runs, next)
				}
				if err := report.WriteRunList(g.stdout, runs, output); err != nil {
					return err
				}
				if next != "" && output != report.FormatJSON {
					fmt.Fprintf(g.stderr, "more runs: --cursor %s\n", next)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&statuses, "status", nil, "only runs with these statuses (queued, running, succeeded, failed, canceled, interrupted)")
	f.StringVar(&target, "target", "", "only runs that include this target")
	f.StringVar(&name, "name", "", "only runs whose name contains this")
	f.StringArrayVar(&labels, "label", nil, "only runs carrying this label, KEY=VALUE (repeatable: every one)")
	f.StringVar(&since, "since", "", "only runs created at or after this time (RFC 3339)")
	f.StringVar(&until, "until", "", "only runs created before this time (RFC 3339)")
	f.IntVar(&limit, "limit", 20, "at most this many runs")
	f.StringVar(&after, "cursor", "", "continue a previous listing from its cursor")
	f.StringVarP(&output, "output", "o", report.FormatTable, report.FormatList(report.KindRunList))
	return cmd
}

// writeRunPage writes a page of run summaries as JSON in the daemon's
// shape, with the cursor of the next page, so that scripts can page through.
func writeRunPage(w io.Writer, runs []bench.RunSummary, next string) error {
	if runs == nil {
		runs = []bench.RunSummary{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(api.RunList{Runs: runs, NextCursor: next})
}

// parseFilter turns the list flags into a filter, refusing bad values.
func parseFilter(f *bench.RunFilter, statuses []string, since, until string) error {
	for _, s := range statuses {
		st := bench.RunStatus(strings.TrimSpace(s))
		if !validStatus(st) {
			return bench.FieldErrorf("status", "unknown status %q (valid: %v)", s, bench.RunStatuses)
		}
		f.Status = append(f.Status, st)
	}
	for _, p := range []struct {
		flag, value string
		into        **time.Time
	}{{"since", since, &f.Since}, {"until", until, &f.Until}} {
		if p.value == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, p.value)
		if err != nil {
			return bench.FieldErrorf(p.flag, "must be an RFC 3339 time such as 2026-11-21T08:00:00Z, got %q", p.value)
		}
		*p.into = &t
	}
	if f.Limit < 1 || f.Limit > 1000 {
		return bench.FieldErrorf("limit", "must be from 1 to 1000, got %d", f.Limit)
	}
	return nil
}

func validStatus(s bench.RunStatus) bool {
	for _, v := range bench.RunStatuses {
		if v == s {
			return true
		}
	}
	return false
}

func newRunsShowCmd(g *globalState) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show one run: environment, per-target, per-stage results and resources",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withHistory(g, cmd, func(h history) error {
				run, err := h.FindRunByID(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if err := report.WriteRun(g.stdout, run, runAnalysis(run, output), output); err != nil {
					return err
				}
				return writeExperiment(g, run, output)
			})
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", report.FormatTable, report.FormatList(report.KindRun))
	return cmd
}

func newRunsDeleteCmd(g *globalState) *cobra.Command {
	return &cobra.Command{
		Use:   "delete RUN...",
		Short: "Delete finished runs from the history",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withHistory(g, cmd, func(h history) error {
				for _, id := range args {
					if err := h.DeleteRun(cmd.Context(), id); err != nil {
						return err
					}
					fmt.Fprintf(g.stdout, "deleted %s\n", id)
				}
				return nil
			})
		},
	}
}
