package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

func newTargetsCmd(g *globalState) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "targets",
		Short: "List the target servers and build their images",
	}
	cmd.AddCommand(newTargetsListCmd(g), newTargetsBuildCmd(g))
	return cmd
}

func newTargetsListCmd(g *globalState) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the targets a run can compare",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tKIND\tTHREAD MODEL\tMETRICS\tDESCRIPTION")
			for _, e := range targets.Entries() {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", e.Name, e.Kind, e.ThreadModel, e.MetricsPath, e.Description)
			}
			return w.Flush()
		},
	}
}

func newTargetsBuildCmd(g *globalState) *cobra.Command {
	var javaBase string
	cmd := &cobra.Command{
		Use:   "build [NAME...]",
		Short: "Build the targets' images (all of them when no name is given); unchanged sources reuse the cached image",
		RunE: func(cmd *cobra.Command, args []string) error {
			names, err := targetNames(args)
			if err != nil {
				return err
			}
			rt, err := targets.NewRuntime(targets.RuntimeOptions{RepoRoot: g.getenv(targets.RepoEnv)})
			if err != nil {
				return err
			}
			defer rt.Close()
			for _, name := range names {
				if err := buildTarget(g, rt, name, javaBase); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&javaBase, "java-base-image", "",
		"JRE image the Java targets run on (default "+targets.DefaultJavaBaseImage+", or a JRE assembled from the host's JDK when that cannot be pulled)")
	return cmd
}

// targetNames checks names against the catalog before anything runs, drops
// repeats, and defaults to the whole catalog.
func targetNames(args []string) ([]string, error) {
	if len(args) == 0 {
		return targets.Names(), nil
	}
	var names []string
	seen := map[string]bool{}
	for _, name := range args {
		if _, err := targets.Lookup(name); err != nil {
			return nil, bench.Errorf(bench.EINVALID, "%s", bench.ErrorMessage(err))
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names, nil
}

// buildTarget builds one target, progress to stderr, result line to stdout.
func buildTarget(g *globalState, rt *targets.Runtime, name, javaBase string) error {
	fmt.Fprintf(g.stderr, "building %s...\n", name)
	start := time.Now()
	img, err := rt.Build(g.ctx, name, targets.BuildOptions{JavaBaseImage: javaBase, Log: g.stderr})
	if err != nil {
		return fmt.Errorf("build %s: %w", name, err)
	}
	state := "built"
	if img.Cached {
		state = "cached"
	}
	fmt.Fprintf(g.stderr, "%s: %s in %s\n", name, state, time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(g.stdout, "%-13s  %s  %s (%s)\n", name, img.Ref, state, img.BaseImage)
	return nil
}
