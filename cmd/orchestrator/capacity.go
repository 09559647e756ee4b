package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/capacity"
	"github.com/threadbench/threadbench/internal/report"
	"github.com/threadbench/threadbench/internal/scalability"
)

// capacityFlags are the capacity command's own flags.
type capacityFlags struct {
	slo           string
	budget        time.Duration
	precision     float64
	confirmations int
	mustPass      int
	goal          time.Duration
	trial         time.Duration
	confirm       time.Duration
	settle        time.Duration
	startRate     float64
	maxRate       float64
	sweep         []int
	sweepDuration time.Duration
}

func newCapacityCmd(g *globalState) *cobra.Command {
	var (
		flags  specFlags
		cf     capacityFlags
		output string
		quiet  bool
		own    ownFlags
	)
	cmd := &cobra.Command{
		Use:   "capacity",
		Short: "Find the highest rate each target sustains within an objective, or fit the USL to a concurrency sweep",
		Long: "Per target, under the open model, search for the highest arrival rate whose trials meet the objective\n" +
			"(--slo): short trials double up from --start-rate until one fails, bisection narrows the bracket to\n" +
			"--precision, and the answer is confirmed --confirmations times at full length: the objective is judged\n" +
			"over their time pooled (their latency histograms merged), at least --goal-duration long. With\n" +
			"--must-pass, the strict rule instead: that many windows must pass each (as many as --confirmations:\n" +
			"every one). A budget that ends after a pass answers the highest rate that passed, unconfirmed. A trial the load\n" +
			"generator limited stops the search and says so. Every trial is stored as a stage of an ordinary run.\n\n" +
			"With --sweep, run a closed-model sweep at those concurrencies instead and fit the Universal\n" +
			"Scalability Law per target: contention σ, coherency κ, the peak N* and its throughput.",
		Example: "  orchestrator capacity --targets go,java-platform,java-virtual --slo 'p99<=300ms' --endpoint heavy --param duration=200\n" +
			"  orchestrator capacity --targets java-platform --sweep 25,50,100,200,400,800 --endpoint heavy --param duration=100\n" +
			"  orchestrator capacity --jar target/app.jar --requests requests.http --slo 'p99<=200ms'",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := report.LookupFormat(report.KindRun, output, "output"); err != nil {
				return err
			}
			cfg, err := loadConfig(g, cmd.Flags())
			if err != nil {
				return err
			}
			if cfg.Server != "" {
				return bench.FieldErrorf("--server", "capacity runs locally for now: leave out --server")
			}
			spec, err := cf.spec(&flags, cmd.Flags(), g.getenv)
			if err != nil {
				return err
			}
			if err := own.apply(g, cmd.Flags(), &spec, flags.fileTargets(), false); err != nil {
				return err
			}
			return flagError(runLocal(g, cfg, spec, output, quiet, nil))
		},
	}
	flags.register(cmd.Flags(), g.catalog.DefaultNames())
	own.register(cmd.Flags())
	f := cmd.Flags()
	f.StringVar(&cf.slo, "slo", "", "the objective every trial must meet, e.g. 'p99<=250ms,errors<=0.1%' (p50, p90, p95, p99, p999, errors, drops)")
	f.DurationVar(&cf.budget, "budget", 0, fmt.Sprintf("time the search may take for all targets together (default %s a target)", capacity.DefaultBudget))
	f.Float64Var(&cf.precision, "precision", capacity.DefaultPrecision, "relative width of the bracket at which bisection stops")
	f.IntVar(&cf.confirmations, "confirmations", capacity.DefaultConfirmations, "full-length trials at the answer")
	f.IntVar(&cf.mustPass, "must-pass", 0, "judge window by window, the strict rule: confirmations that must pass each (as many as --confirmations for every one)")
	f.Lookup("must-pass").DefValue = "the pooled rule" // 0 in the spec
	f.DurationVar(&cf.goal, "goal-duration", 0, "time the objective is judged over at a rate, its confirmations' histograms pooled; more confirmations run where theirs is shorter")
	f.Lookup("goal-duration").DefValue = "the confirmations' time, " + capacity.DefaultGoalDuration.String() // 0 in the spec
	f.DurationVar(&cf.trial, "trial", capacity.DefaultTrialDuration, "length of a bracketing or bisecting trial")
	f.DurationVar(&cf.confirm, "confirm", capacity.DefaultConfirmDuration, "length of a confirmation")
	f.DurationVar(&cf.settle, "settle", capacity.DefaultSettle, "pause between trials")
	f.Float64Var(&cf.startRate, "start-rate", 0, fmt.Sprintf("req/s of the first trial (default: a target's thread-pool bound, threads ÷ service time, where it has one and the endpoint's duration is known; else %g)", capacity.DefaultStartRate))
	f.Float64Var(&cf.maxRate, "max-rate", 0, "req/s above which the search does not go (default: the guardrail's maximum rate)")
	f.IntSliceVar(&cf.sweep, "sweep", nil, fmt.Sprintf("closed-model concurrencies to sweep and fit the USL to, e.g. 1,2,4,8,16,32 (at least %d)", scalability.MinPoints))
	f.DurationVar(&cf.sweepDuration, "sweep-duration", 10*time.Second, "length of each step of a sweep")
	f.StringVarP(&output, "output", "o", report.FormatTable, "table, or json for the stored run document")
	f.BoolVarP(&quiet, "quiet", "q", false, "no live progress")
	return cmd
}

// spec builds the run spec of a search or a sweep from the run flags and
// the command's own, checking everything before anything starts.
func (cf *capacityFlags) spec(flags *specFlags, fs *pflag.FlagSet, getenv func(string) string) (bench.RunSpec, error) {
	for _, name := range []string{"profile", "scale", "experiment", "part", "case", "repeat"} {
		if fs.Changed(name) {
			return bench.RunSpec{}, bench.FieldErrorf("--"+name, "capacity makes its own profile: leave out --%s", name)
		}
	}
	spec, err := flags.spec(fs, getenv)
	if err != nil {
		return spec, err
	}
	if fs.Changed("sweep") {
		if fs.Changed("slo") {
			return spec, bench.FieldErrorf("--sweep", "a sweep is closed-model and fits the USL; it takes no --slo")
		}
		spec.Profile, err = cf.sweepProfile()
		return spec, err
	}
	if cf.slo == "" {
		return spec, bench.FieldErrorf("--slo", "a capacity search needs an objective, e.g. --slo 'p99<=250ms,errors<=0.1%%'")
	}
	if err := cf.checkZero(fs); err != nil {
		return spec, err
	}
	// Prepare checks the settings (mapped back to the flags by flagError)
	// and gives the search its profile; the load engine chosen stays.
	spec.Capacity = &bench.CapacitySpec{Objective: cf.slo, Precision: cf.precision, Confirmations: cf.confirmations, MustPass: cf.mustPass,
		GoalDuration: bench.Duration(cf.goal), TrialDuration: bench.Duration(cf.trial), ConfirmDuration: bench.Duration(cf.confirm), Settle: bench.Duration(cf.settle),
		Budget: bench.Duration(cf.budget), StartRate: cf.startRate, MaxRate: cf.maxRate}
	spec.Profile = bench.Profile{Engine: spec.Profile.Engine}
	return spec, nil
}

// checkZero refuses a setting given as 0, which in a spec stands for its
// default but on the command line is a slip: left out, the flag is the
// default.
func (cf *capacityFlags) checkZero(fs *pflag.FlagSet) error {
	for _, f := range []struct {
		name string
		zero bool
	}{{"precision", cf.precision == 0}, {"confirmations", cf.confirmations == 0}, {"must-pass", cf.mustPass == 0}, {"goal-duration", cf.goal == 0}, {"trial", cf.trial == 0},
		{"confirm", cf.confirm == 0}, {"start-rate", cf.startRate == 0}} {
		if f.zero && fs.Changed(f.name) {
			return bench.FieldErrorf("--"+f.name, "0 stands for the default in a spec: leave --%s out for it (%s), or give a positive value", f.name, fs.Lookup(f.name).DefValue)
		}
	}
	return nil
}

// sweepProfile is a closed profile of one step per concurrency.
func (cf *capacityFlags) sweepProfile() (bench.Profile, error) {
	distinct := map[int]bool{}
	p := bench.Profile{Model: bench.ModelClosed}
	for _, n := range cf.sweep {
		if n < 1 {
			return p, bench.FieldErrorf("--sweep", "%d clients: every step needs at least one", n)
		}
		distinct[n] = true
		p.Stages = append(p.Stages, bench.Stage{Name: fmt.Sprintf("%d clients", n), Duration: bench.Duration(cf.sweepDuration), Concurrency: n})
	}
	if len(distinct) < scalability.MinPoints {
		return p, bench.FieldErrorf("--sweep", "%d distinct concurrencies: a USL fit needs at least %d, e.g. 1,2,4,8,16,32", len(distinct), scalability.MinPoints)
	}
	return p, nil
}

// capacityFlagNames are the flags of the capacity spec's fields.
var capacityFlagNames = map[string]string{
	"capacity.objective": "--slo", "capacity.budget": "--budget", "capacity.precision": "--precision",
	"capacity.confirmations": "--confirmations", "capacity.mustPass": "--must-pass", "capacity.goalDuration": "--goal-duration", "capacity.trialDuration": "--trial", "capacity.confirmDuration": "--confirm",
	"capacity.settle": "--settle", "capacity.startRate": "--start-rate", "capacity.maxRate": "--max-rate",
}

// flagError names the flag, rather than the spec field, a bad value came from.
func flagError(err error) error {
	var be *bench.Error
	if errors.As(err, &be) {
		if name, ok := capacityFlagNames[be.Field]; ok {
			return &bench.Error{Code: be.Code, Field: name, Message: be.Message}
		}
	}
	return err
}
