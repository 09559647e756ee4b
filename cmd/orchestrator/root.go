package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/runner"
	"github.com/threadbench/threadbench/internal/targets"
)

// Exit codes, distinct so that scripts and CI can tell them apart.
const (
	exitOK         = 0
	exitFailure    = 1 // the command could not do its job (engine down, run failed...)
	exitBadInput   = 2 // the user's input is wrong: flags, spec, unknown IDs
	exitRegression = 3 // a regression or a broken objective: compare --fail-on-regression, check
	exitBusy       = 4 // the daemon's run queue stayed full: nothing was submitted; try again later
)

// globalState is what every command may use: injected streams,
// environment and target catalog, so that tests run the real CLI in-process.
type globalState struct {
	ctx     context.Context
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	getenv  func(string) string
	catalog *targets.Catalog
}

func newGlobalState(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *globalState {
	return &globalState{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv, catalog: targets.DefaultCatalog()}
}

// specCatalog is what this command checks specs against: its targets, the
// configuration's guardrails and engines, this host's CPUs and memory, and
// the built-in profiles and experiments a spec may name.
func (g *globalState) specCatalog(cfg config) bench.Catalog {
	cpus, memory := runner.HostResources()
	infos := g.catalog.Infos()
	unbuildable := g.catalog.Unbuildable()
	for i := range infos {
		infos[i].Unavailable = unbuildable[infos[i].Name]
	}
	return bench.Catalog{Targets: infos, Guardrails: cfg.Guardrails, HostCPUs: cpus, HostMemoryBytes: memory,
		Engines: cfg.catalogEngines(), DefaultEngine: cfg.DefaultEngine, Builtins: builtin.Set, Generators: cfg.Swarm.generators()}
}

func newRootCmd(g *globalState) *cobra.Command {
	root := &cobra.Command{
		Use:           "orchestrator",
		Short:         "Compare Java platform threads, Java virtual threads and Go goroutines under the same load",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(g.stdin)
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.SetContext(g.ctx)
	root.PersistentFlags().String("config", "", "config file (YAML; env "+envConfig+")")
	root.PersistentFlags().String("db", "", "run history database (env "+envDB+"; default in the user's data directory)")
	root.PersistentFlags().String("server", "", "a threadbench daemon to work through instead of the local history (env "+envServer+")")
	root.AddCommand(
		newTargetsCmd(g),
		newRunsCmd(g),
		newCompareCmd(g),
		newReportCmd(g),
		newRunCmd(g),
		newCheckCmd(g),
		newCapacityCmd(g),
		newServeCmd(g),
		newProfilesCmd(g),
		newExperimentsCmd(g),
		newGenerateCmd(g),
	)
	return root
}

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// execute runs the CLI with args and returns the process exit code.
func execute(g *globalState, args []string) int {
	root := newRootCmd(g)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(g.stderr, "error: %s\n", errorText(err))
	return exitCode(err)
}

func errorText(err error) string {
	var ee *exitError
	if errors.As(err, &ee) {
		err = ee.err
	}
	var be *bench.Error
	if errors.As(err, &be) {
		return be.Error()
	}
	return err.Error()
}

func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if bench.ErrorCode(err) == bench.EINVALID || bench.ErrorCode(err) == bench.ENOTFOUND || isUsageError(err) {
		return exitBadInput
	}
	return exitFailure
}

// isUsageError reports cobra's own flag and argument errors, which carry no type.
func isUsageError(err error) bool {
	var fe interface{ FlagError() }
	if errors.As(err, &fe) {
		return true
	}
	msg := err.Error()
	for _, prefix := range []string{"unknown flag", "unknown shorthand flag", "unknown command", "invalid argument", "flag needs an argument", "accepts ", "requires at least", "requires at most"} {
		if len(msg) >= len(prefix) && msg[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}
