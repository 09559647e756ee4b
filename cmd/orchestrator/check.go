package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/check"
	"github.com/threadbench/threadbench/internal/report"
	"github.com/threadbench/threadbench/internal/spec"
	"github.com/threadbench/threadbench/internal/targets"
)

// checkFlags are what check judges a run by and where it writes verdicts.
type checkFlags struct {
	objectives []string
	baseline   string
	threshold  float64
	figures    string
	junit      string
	summary    string
}

// checkPlan is checkFlags read: nothing of it is wrong once it exists.
type checkPlan struct {
	objectives []check.Objective
	baseline   *check.Baseline
	figures    []string // judged against the baseline: every judged figure when empty
}

func newCheckCmd(g *globalState) *cobra.Command {
	var (
		flags specFlags
		own   ownFlags
		cf    checkFlags
		quiet bool
	)
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Run a spec as run does, then pass or fail it against objectives and a baseline run: for CI",
		Long: "Run the spec as run does and store it, then judge it: against each --objective, per target, on the\n" +
			"whole attack (throughput at least, latency percentiles and error rate at most), and against a --baseline\n" +
			"run as compare compares them: throughput, p50 to p99 and the error rate, whole attack and stage by stage,\n" +
			"fail when significantly worse (Mann-Whitney U at alpha 0.05) by at least --threshold percent. The\n" +
			"baseline is a run ID, label:KEY=VALUE for the latest succeeded run of the same spec name carrying\n" +
			"that label, or file:PATH for a run document committed beside the spec (run -o json writes one).\n" +
			"In a GitHub Actions or GitLab CI job the run is labelled with its commit, branch and build.\n" +
			"Exit 0: every verdict passed; 3: one failed (the reasons are printed); 2: bad input (nothing ran);\n" +
			"1: the run itself failed. With --server the daemon runs the spec and the baseline is found in its history.\n" +
			"--junit writes the verdicts as JUnit XML, --summary as Markdown for\n" +
			"$GITHUB_STEP_SUMMARY or a pull-request comment (one line when nothing failed or changed).",
		Example: "  orchestrator check -f bench.yaml --objective 'go:throughput>=100,p99<=250ms,errors<=1%'\n" +
			"  orchestrator check -f bench.yaml --baseline label:branch=main --junit check.xml --summary \"$GITHUB_STEP_SUMMARY\"\n" +
			"  orchestrator check -f bench.yaml --baseline r01jq3v8k2m4n6p8q --label host=ci-7",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			plan, err := cf.plan()
			if err != nil {
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
				return runCheckRemote(g, cfg, rs, plan, cf, quiet)
			}
			return runCheck(g, cfg, rs, plan, cf, quiet)
		},
	}
	flags.register(cmd.Flags(), g.catalog.DefaultNames())
	own.register(cmd.Flags())
	f := cmd.Flags()
	f.String("java-base-image", "", "Java: JRE base image (default "+targets.DefaultJavaBaseImage+", or one assembled from the host JDK)")
	f.StringArrayVar(&cf.objectives, "objective", nil, "TARGET:TERMS a target must meet over the whole attack, e.g. 'go:throughput>=100,p99<=250ms,errors<=1%'\n(throughput>=REQ/S; p50, p90, p95, p99, p999<=DURATION; errors<=SHARE; capacity>=REQ/S for a spec that\nsearches capacity: its confirmed answer; repeatable)")
	f.StringVar(&cf.baseline, "baseline", "", "the run to compare with: a run ID, label:KEY=VALUE for the latest succeeded run of the same spec name carrying it,\nor file:PATH for a run document kept in a file (run -o json, runs show -o json)")
	f.Float64Var(&cf.threshold, "threshold", bench.DefaultNoiseThreshold, "with --baseline: minimum effect in percent; smaller changes are never worse")
	f.StringVar(&cf.figures, "figures", "", "with --baseline: judge only these figures, e.g. throughput,p99 (default "+strings.Join(check.JudgedFigures, ",")+")")
	f.StringVar(&cf.junit, "junit", "", "write the verdicts to this file as JUnit XML")
	f.StringVar(&cf.summary, "summary", "", "write a Markdown summary to this file (appended to, as $GITHUB_STEP_SUMMARY wants)")
	f.BoolVarP(&quiet, "quiet", "q", false, "no live progress")
	return cmd
}

// plan reads the flags, refusing bad ones with the flag's name.
func (cf checkFlags) plan() (checkPlan, error) {
	var p checkPlan
	for _, s := range cf.objectives {
		o, err := check.ParseObjective(s)
		if err != nil {
			return p, err
		}
		p.objectives = append(p.objectives, o)
	}
	if cf.baseline != "" {
		b, err := check.ParseBaseline(cf.baseline)
		if err != nil {
			return p, err
		}
		p.baseline = &b
	}
	if len(p.objectives) == 0 && p.baseline == nil {
		return p, bench.FieldErrorf(check.FieldObjective, "nothing to judge: give --objective, --baseline or both")
	}
	if cf.threshold < 0 {
		return p, bench.FieldErrorf("--threshold", "must not be negative, got %g", cf.threshold)
	}
	if cf.figures != "" {
		if p.baseline == nil {
			return p, bench.FieldErrorf(check.FieldFigures, "judges figures against a baseline: give --baseline too")
		}
		figures, err := check.ParseFigures(cf.figures)
		if err != nil {
			return p, err
		}
		p.figures = figures
	}
	for _, out := range []struct{ flag, path string }{{"--junit", cf.junit}, {"--summary", cf.summary}} {
		if err := checkWritable(out.flag, out.path); err != nil {
			return p, err
		}
	}
	return p, nil
}

// checkWritable refuses an output file whose directory does not exist,
// before a run that would have nowhere to write its verdict.
func checkWritable(flag, path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return bench.FieldErrorf(flag, "%s: no directory %s to write it in", path, filepath.Dir(path))
	}
	return nil
}

// runCheck checks the spec and the objectives' targets, finds the
// baseline, runs the spec, judges the run and writes the verdicts. A
// failed verdict is exit status 3.
func runCheck(g *globalState, cfg config, rs bench.RunSpec, plan checkPlan, cf checkFlags, quiet bool) error {
	prepared, err := prepareOne(g, cfg, rs)
	if err != nil {
		return err
	}
	if err := check.CheckTargets(plan.objectives, check.SubjectLabels(prepared), prepared.Capacity != nil); err != nil {
		return err
	}
	var base *baselineRun
	if plan.baseline != nil {
		if base, err = openBaseline(g, cfg, *plan.baseline, prepared.Name); err != nil {
			return err
		}
		defer base.close()
	}
	runs, err := runLocalRuns(g, cfg, rs, report.FormatTable, quiet, nil)
	if err != nil {
		return err
	}
	against, err := base.against(g, runs[0], plan, cf.threshold)
	if err != nil {
		return err
	}
	return verdict(g, check.Judge(runs[0], plan.objectives, against), cf)
}

// runCheckRemote is runCheck through a daemon: the objectives' targets
// and the baseline are checked before the spec is submitted where the spec
// says them (else against the run the daemon prepared, cancelled while
// queued if they do not fit), the run is followed to its end, and judged
// here against the baseline found in the daemon's history.
func runCheckRemote(g *globalState, cfg config, rs bench.RunSpec, plan checkPlan, cf checkFlags, quiet bool) error {
	if rs.Experiment == nil {
		if err := check.CheckTargets(plan.objectives, check.SubjectLabels(rs), rs.Capacity != nil); err != nil {
			return err
		}
	}
	var base *baselineRun
	if plan.baseline != nil {
		var err error
		if base, err = openBaseline(g, cfg, *plan.baseline, rs.Name); err != nil {
			return err
		}
		defer base.close()
	}
	c, first, err := submitRemote(g, cfg, rs, defaultSubmitAttempts)
	if err != nil {
		return err
	}
	if err := fitsCheck(first, plan); err != nil {
		for _, id := range runParts(first) {
			if _, cerr := c.Cancel(context.Background(), id); cerr != nil {
				fmt.Fprintf(g.stderr, "cancel run %s: %s\n", id, errorText(cerr))
			}
		}
		return fmt.Errorf("%w (run %s cancelled while queued on %s)", err, first.ID, cfg.Server)
	}
	fmt.Fprintf(g.stderr, "run %s queued on %s\n", first.ID, cfg.Server)
	final, err := followRemoteRun(g, cfg, c, []string{first.ID}, quiet)
	if err != nil || final == nil {
		return err // the stream failed, or the user detached
	}
	if err := finishRun(g, final, report.FormatTable, cfg.Server); err != nil {
		return err
	}
	against, err := base.against(g, final, plan, cf.threshold)
	if err != nil {
		return err
	}
	return verdict(g, check.Judge(final, plan.objectives, against), cf)
}

// fitsCheck refuses a submitted run a check cannot judge: several parts,
// or objectives on targets its prepared spec does not run.
func fitsCheck(first *bench.Run, plan checkPlan) error {
	if err := onePart(len(runParts(first))); err != nil {
		return err
	}
	return check.CheckTargets(plan.objectives, check.SubjectLabels(first.Spec), first.Spec.Capacity != nil)
}

// onePart refuses a spec that makes several runs: a check judges one.
func onePart(runs int) error {
	if runs > 1 {
		return bench.FieldErrorf("experiment.part", "the experiment makes %d runs and a check judges one: pick a part (--part)", runs)
	}
	return nil
}

// baselineRun is the run a check compares with: in the history it was
// found in, which stays open for the comparison, or read from its file.
type baselineRun struct {
	history  history
	id       string
	run      *bench.Run // a baseline given as a file
	chosenBy check.Baseline
}

// openBaseline finds the baseline of a run named name, before the run
// starts: read from its file, or found in the history it opens; the
// caller closes it.
func openBaseline(g *globalState, cfg config, b check.Baseline, name string) (*baselineRun, error) {
	if err := b.CheckName(name); err != nil {
		return nil, err
	}
	if b.File != "" {
		run, err := b.ReadFile(name)
		if err != nil {
			return nil, err
		}
		return &baselineRun{id: run.ID, run: run, chosenBy: b}, nil
	}
	h, err := openHistory(cfg)
	if err != nil {
		return nil, err
	}
	id, err := b.Find(g.ctx, h, name)
	if err != nil {
		h.Close()
		return nil, err
	}
	return &baselineRun{history: h, id: id, chosenBy: b}, nil
}

// close closes the history the baseline was found in.
func (b *baselineRun) close() {
	if b.history != nil {
		b.history.Close()
	}
}

// against compares head with the baseline, nil without one: where the
// baseline is a file, here; else as compare does, on the daemon for one.
func (b *baselineRun) against(g *globalState, head *bench.Run, plan checkPlan, threshold float64) (*check.Against, error) {
	if b == nil {
		return nil, nil
	}
	var cmp bench.Comparison
	if b.run != nil {
		cmp = analysis.Compare(b.run, head, analysis.CompareOptions{NoiseThreshold: threshold})
	} else {
		var err error
		if cmp, err = compareRuns(g.ctx, b.history, b.id, head.ID, threshold); err != nil {
			return nil, err
		}
	}
	return &check.Against{Comparison: cmp, ChosenBy: b.chosenBy.String(), Figures: plan.figures}, nil
}

// prepareOne prepares the spec as a local run does, and refuses one that
// makes several runs: a check judges one.
func prepareOne(g *globalState, cfg config, rs bench.RunSpec) (bench.RunSpec, error) {
	catalog := g.specCatalog(cfg)
	catalog.AllowImages = true
	specs, err := spec.PrepareRuns(rs, catalog)
	if err != nil {
		return bench.RunSpec{}, err
	}
	if err := onePart(len(specs)); err != nil {
		return bench.RunSpec{}, err
	}
	return specs[0], nil
}

// verdict prints the check's verdicts, writes the files asked for, and
// turns a failure into exit status 3 with its reasons.
func verdict(g *globalState, r check.Result, cf checkFlags) error {
	fmt.Fprintln(g.stdout)
	if err := report.WriteCheck(g.stdout, r, report.FormatTable); err != nil {
		return err
	}
	if err := writeVerdict(cf.junit, r, report.FormatJUnit, false); err != nil {
		return err
	}
	if err := writeVerdict(cf.summary, r, report.FormatMarkdown, true); err != nil {
		return err
	}
	if failures := r.Failures(); len(failures) > 0 {
		return &exitError{code: exitRegression, err: fmt.Errorf("check failed, %d verdict(s):\n  %s", len(failures), strings.Join(failures, "\n  "))}
	}
	return nil
}

// writeVerdict writes r to path in format, appending when asked (a step
// summary file gathers every step's).
func writeVerdict(path string, r check.Result, format string, appending bool) error {
	if path == "" {
		return nil
	}
	var buf bytes.Buffer
	if err := report.WriteCheck(&buf, r, format); err != nil {
		return err
	}
	mode := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appending {
		mode = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, mode, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
