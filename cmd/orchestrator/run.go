package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/database"
	"github.com/threadbench/threadbench/internal/httpapi"
	"github.com/threadbench/threadbench/internal/load"
	"github.com/threadbench/threadbench/internal/load/vegeta"
	"github.com/threadbench/threadbench/internal/metrics"
	"github.com/threadbench/threadbench/internal/report"
	"github.com/threadbench/threadbench/internal/runner"
	"github.com/threadbench/threadbench/internal/spec"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/internal/targets"
)

func newRunCmd(g *globalState) *cobra.Command {
	var (
		flags          specFlags
		output         string
		quiet          bool
		submitAttempts int
		results        vegeta.ResultsFiles
		own            ownFlags
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run targets one at a time under the same staged load, and store the results",
		Long: "Build, start and attack each target in turn under identical limits, print a results table per\n" +
			"target and stage, and store the run in the history. With --server (or THREADBENCH_SERVER) the\n" +
			"run is submitted to a daemon and followed until it ends.",
		Example: "  orchestrator run --targets go --profile smoke --endpoint heavy --param duration=500\n" +
			"  orchestrator run --profile seed-k6 --scale 0.05\n" +
			"  orchestrator run --experiment seed-003 --scale 0.5\n" +
			"  orchestrator run --profile steps --request heavy?duration=200@1 --request light@1 -o json\n" +
			"  orchestrator run --jar target/app.jar --requests requests.http --profile steps",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := report.LookupFormat(report.KindRun, output, "output"); err != nil {
				return err
			}
			if err := vegeta.CheckResultsFormat(results.Format, "results-format"); err != nil {
				return err
			}
			cfg, err := loadConfig(g, cmd.Flags())
			if err != nil {
				return err
			}
			rs, err := flags.spec(cmd.Flags(), g.getenv)
			if err != nil {
				return err
			}
			if err := own.apply(g, cmd.Flags(), &rs, flags.fileTargets(), cfg.Server != ""); err != nil {
				return err
			}
			if cfg.Server != "" {
				if results.Path != "" {
					return bench.FieldErrorf("results", "results files are written by a local run, not over --server")
				}
				return runRemote(g, cfg, rs, output, quiet, submitAttempts)
			}
			var responses bench.ResponseLog
			if results.Path != "" {
				if cfg.Swarm != nil {
					return bench.FieldErrorf("results", "the configuration sends attacks from swarm generators, which keep no results file; run without swarm: for one")
				}
				responses = results
			}
			return runLocal(g, cfg, rs, output, quiet, responses)
		},
	}
	flags.register(cmd.Flags(), g.catalog.DefaultNames())
	own.register(cmd.Flags())
	cmd.Flags().String("java-base-image", "", "Java: JRE base image (default "+targets.DefaultJavaBaseImage+", or one assembled from the host JDK)")
	cmd.Flags().StringVarP(&output, "output", "o", report.FormatTable, "table, or json for the stored run document")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no live progress")
	cmd.Flags().IntVar(&submitAttempts, "submit-attempts", defaultSubmitAttempts, "with --server: how many times to submit while the daemon's run queue is full, waiting what its Retry-After says in between")
	cmd.Flags().StringVar(&results.Path, "results", "", "write every measured request in vegeta's results encoding, a file per target named for it\n(results.gob: results.go.gob, ...), for vegeta report, plot and encode")
	cmd.Flags().StringVar(&results.Format, "results-format", vegeta.FormatGob, "encoding of --results: "+strings.Join(vegeta.ResultsFormats, ", "))
	return cmd
}

// listResultsFiles tells where each target's results file went.
func listResultsFiles(g *globalState, run *bench.Run, responses bench.ResponseLog) {
	files, ok := responses.(vegeta.ResultsFiles)
	if !ok {
		return
	}
	for _, tr := range run.Targets {
		if path := files.ForPart(run.Spec).FileFor(tr.Key()); fileExists(path) {
			fmt.Fprintf(g.stderr, "results of %s: %s\n", tr.Key(), path)
		}
	}
}

// runDeps are the parts a run needs, closed together: the runner's
// configuration with the Docker engines, the load engine and the sampler.
type runDeps struct {
	config  runner.Config
	engines *targets.Engines
	close   []func()
	// api is the daemon's API, whose requests the load engine counts as
	// disturbance; nil for a local run.
	api atomic.Pointer[httpapi.Server]
}

// apiRequests counts the requests the daemon's API has answered, 0 without one.
func (d *runDeps) apiRequests() int64 {
	if api := d.api.Load(); api != nil {
		return api.Served()
	}
	return 0
}

// openRunDeps makes the parts that execute runs, the daemon's and a CLI
// run's alike: the Docker runtime, the load engine and the sampler. The
// conformance build and tests put a stand-in in their place (standin.go).
var openRunDeps = newRunDeps

// newRunQueue is the queue every run executes through, the daemon's and a
// CLI run's alike: specs prepared against catalog (spec.PrepareRuns), at
// most maxQueue runs waiting (0: no bound).
func newRunQueue(deps *runDeps, db *store.DB, catalog bench.Catalog, maxQueue int) *runner.Queue {
	prepare := func(rs bench.RunSpec) ([]bench.RunSpec, error) { return spec.PrepareRuns(rs, catalog) }
	return runner.NewQueue(deps.config, db, prepare, maxQueue)
}

func newRunDeps(g *globalState, cfg config, db *store.DB, quiet bool) (*runDeps, error) {
	buildLog := g.stderr
	if quiet {
		buildLog = io.Discard
	}
	// Containers carry the history's identity, so that a daemon's start-up
	// cleanup removes this history's leftovers and nothing else's.
	history, err := db.HistoryID(g.ctx)
	if err != nil {
		return nil, err
	}
	engines, err := cfg.openEngines(g, history)
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	d := &runDeps{engines: engines, close: []func(){func() { engines.Close() }}}
	var attacker bench.Attacker = loadEngines(load.NewEngine(load.WithAPIRequests(d.apiRequests)))
	if cfg.Swarm != nil {
		if attacker, err = newSwarmAttacker(cfg.Swarm, engines, history, buildLog, logger); err != nil {
			d.Close()
			return nil, err
		}
	}
	d.config = runner.Config{
		Targets:  engines,
		Store:    db,
		Series:   db,
		Attacker: attacker,
		// Each target reads its container's stats from its own engine;
		// the local engine's client is for anything else.
		Recorder:  metrics.NewSampler(engines.Local().Client()),
		Databases: database.NewRuntime(engines, database.Options{History: history, Log: buildLog}),
		BuildLog:  buildLog,
		Logger:    logger,
		LockPath:  cfg.AttackLock,
	}
	d.config.Artifacts = db // what recorded inside the targets
	return d, nil
}

// loadEngines are the load engines a profile may name, each recorded by own.
func loadEngines(own *load.Engine) bench.LoadEngineSet {
	return bench.LoadEngineSet{bench.LoadEngineOwn: own, bench.LoadEngineVegeta: vegeta.NewEngine(own)}
}

// Close releases the runtime and recorder.
func (d *runDeps) Close() {
	for i := len(d.close) - 1; i >= 0; i-- {
		d.close[i]()
	}
}

// runAnalysis is the analysis a run's table opens with; the JSON document
// is the run alone.
func runAnalysis(run *bench.Run, output string) *bench.Report {
	if output == report.FormatJSON || len(run.Targets) == 0 {
		return nil
	}
	rep := analysis.Analyze(run, analysis.ReportOptions{})
	return &rep
}

// finishRun prints the stored run and turns a failed run into an exit code.
func finishRun(g *globalState, run *bench.Run, output, where string) error {
	if err := report.WriteRun(g.stdout, run, runAnalysis(run, output), output); err != nil {
		return err
	}
	if err := writeExperiment(g, run, output); err != nil {
		return err
	}
	fmt.Fprintf(g.stderr, "stored run %s (%s) in %s\n", run.ID, run.Status, where)
	if run.Status != bench.RunSucceeded {
		return fmt.Errorf("run %s %s: %s", run.ID, run.Status, run.Error)
	}
	return nil
}

func profileLabel(p bench.Profile) string {
	if p.Name != "" {
		return p.Name
	}
	return fmt.Sprintf("custom %s (%d stages)", p.Model, len(p.Stages))
}

// showProgress prints the run's progress until its events end: phases,
// stages, and one line a second (stage, rate, p99, errors).
func showProgress(w io.Writer, events <-chan bench.Event, quiet bool) {
	stageNames := map[string]string{}
	for ev := range events {
		if quiet {
			continue
		}
		switch ev.Type {
		case bench.EventTarget:
			if ev.Phase != "" && ev.Phase != bench.PhaseDone {
				fmt.Fprintf(w, "[%s] %s\n", ev.Target, ev.Phase)
			} else if ev.Phase == bench.PhaseDone {
				fmt.Fprintf(w, "[%s] %s\n", ev.Target, ev.TargetStatus)
			}
		case bench.EventStage:
			stageNames[ev.Target] = stageLabel(ev.Stage)
			fmt.Fprintf(w, "[%s] stage %s\n", ev.Target, stageNames[ev.Target])
		case bench.EventSecond:
			_ = report.WriteSecondLine(w, ev.Target, *ev.Second, stageNames[ev.Target])
		case bench.EventRun:
			if ev.Message != "" {
				fmt.Fprintf(w, "run %s: %s\n", ev.RunStatus, ev.Message)
			}
		}
	}
}

func stageLabel(s *bench.StageResult) string {
	if s.Warmup {
		return "warm-up"
	}
	label := fmt.Sprintf("%d", s.Index+1)
	if s.Name != "" {
		label += " (" + s.Name + ")"
	}
	model := s.LoadModel()
	return fmt.Sprintf("%s: %s, %.0f %s for %s", label, model.Name(), s.Level(), model.Unit(), s.Duration)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
