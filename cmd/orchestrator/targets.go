package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
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
	var output string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the targets a run can compare",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// The configuration's own targets are listed too.
			if _, err := loadConfig(g, cmd.Flags()); err != nil {
				return err
			}
			return report.WriteTargets(g.stdout, g.catalog.Infos(), output)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", report.FormatTable, report.FormatList(report.KindTargets))
	return cmd
}

func newTargetsBuildCmd(g *globalState) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "build [NAME[@VARIANT]...]",
		Short: "Build the targets' images (all of them when no name is given); unchanged sources reuse the cached image",
		Long: "Build the targets' images on an engine, local by default. On a remote engine (--engine NAME, one of the\n" +
			"configuration's engines) an image the local engine has from the same inputs is loaded rather than built.",
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(g, cmd.Flags())
			if err != nil {
				return err
			}
			names, err := targetNames(g, args)
			if err != nil {
				return err
			}
			engine := flagString(cmd.Flags(), "engine")
			if err := bench.CheckEngine(engine, g.specCatalog(cfg), "engine"); err != nil {
				return err
			}
			engines, err := cfg.openEngines(g, "")
			if err != nil {
				return err
			}
			defer engines.Close()
			rt, err := engines.Runtime(engine)
			if err != nil {
				return err
			}
			for _, name := range names {
				if err := buildTarget(g, rt, name); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().String("java-base-image", "",
		"JRE image the Java targets run on (default "+targets.DefaultJavaBaseImage+", or a JRE assembled from the host's JDK when that cannot be pulled; config javaBaseImage, env "+envJavaBaseImage+")")
	cmd.Flags().String("engine", bench.EngineLocal, "the engine to build on, by its name in the configuration")
	return cmd
}

// targetNames checks names against the catalog before anything runs, drops
// repeats, and defaults to the whole catalog.
func targetNames(g *globalState, args []string) ([]string, error) {
	if len(args) == 0 {
		return g.catalog.Names(), nil
	}
	var names []string
	seen := map[string]bool{}
	for i, name := range args {
		if err := bench.CheckTargetRef(name, g.catalog.Infos(), fmt.Sprintf("targets[%d]", i)); err != nil {
			return nil, err
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names, nil
}

// buildTarget builds one target, progress to stderr, result line to stdout.
func buildTarget(g *globalState, rt *targets.Runtime, name string) error {
	fmt.Fprintf(g.stderr, "building %s...\n", name)
	start := time.Now()
	img, err := rt.BuildTarget(g.ctx, name, targets.BuildOptions{Log: g.stderr})
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
