package main

import (
	"context"
	"encoding/xml"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/store"
)

// TestCheckBadInput checks that check refuses bad input, naming the flag
// or field, before it opens the history or an engine (wantRunRefused's
// proof: no history directory).
func TestCheckBadInput(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // should bad input slip through, nothing runs
	goLight := func(args ...string) []string {
		return append([]string{"--targets", "go", "--endpoint", "light"}, args...)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		// An objective on a target the run does not have.
		{"ObjectiveTargetNotInRun", goLight("--objective", "java-virtual:p99<=250ms"),
			`--objective: "java-virtual:p99<=250ms": the run has no target "java-virtual" (it has go)`},
		// A term an objective cannot have.
		{"ObjectiveMalformed", goLight("--objective", "go:p99>=250ms"), `--objective: "p99>=250ms": want metric<=value`},
		{"ObjectiveNoTarget", goLight("--objective", "p99<=250ms"), `--objective: "p99<=250ms": want TARGET:TERMS`},
		// Neither an objective nor a baseline: nothing to judge.
		{"NothingToJudge", goLight(), "--objective: nothing to judge: give --objective, --baseline or both"},
		// A baseline label without its value.
		{"BaselineMalformed", goLight("--baseline", "label:branch"), `--baseline: "label:branch": want label:KEY=VALUE`},
		// A baseline by label for a spec without a name.
		{"BaselineLabelNoName", goLight("--baseline", "label:branch=main"), "--baseline: label:branch=main finds the latest run of the same spec name: name the spec"},
		// A label without a value, and one whose key Prepare refuses.
		{"LabelNoValue", goLight("--objective", "go:p99<=1s", "--label", "main"), `--label: "main": want KEY=VALUE`},
		{"LabelBadKey", goLight("--objective", "go:p99<=1s", "--label", "my branch=main"), `labels: key "my branch"`},
		// Figures judged without a baseline, and one that is not judged.
		{"FiguresNoBaseline", goLight("--objective", "go:p99<=1s", "--figures", "throughput"), "--figures: judges figures against a baseline: give --baseline too"},
		{"FiguresUnknown", goLight("--baseline", "r1", "--figures", "throughput,max"), `--figures: "max" is not a judged figure`},
		// A file in a directory that is not there.
		{"JUnitNoDirectory", goLight("--objective", "go:p99<=1s", "--junit", "/nonexistent/check.xml"), "--junit: /nonexistent/check.xml: no directory /nonexistent"},
		// Through a daemon, an objective on a target the spec does not run
		// is refused before the daemon is asked anything.
		{"ServerObjectiveTarget", goLight("--objective", "java-virtual:p99<=1s", "--server", "http://127.0.0.1:9"), `--objective: "java-virtual:p99<=1s": the run has no target "java-virtual"`},
		// A capacity floor on a spec that searches none.
		{"CapacityNoSearch", goLight("--objective", "go:capacity>=100"), `--objective: "go:capacity>=100": capacity>= bounds a capacity search's answer, and the spec searches none`},
		// A baseline file that is not there.
		{"BaselineFileMissing", goLight("--baseline", "file:/nonexistent/main.json"), "--baseline: read /nonexistent/main.json"},
		// An experiment of several parts makes several runs.
		{"SeveralRuns", []string{"--experiment", "seed-001", "--objective", "go:p99<=1s"}, "experiment.part: the experiment makes 2 runs and a check judges one"},
		// A bad spec, as run refuses it.
		{"BadSpec", goLight("--objective", "go:p99<=1s", "--timeout", "10m"), "workload.timeout: must be above 0 and at most 2m0s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dbDir := filepath.Join(t.TempDir(), "history")
			args := append([]string{"check", "--db", filepath.Join(dbDir, "history.db")}, tt.args...)
			code, stdout, stderr := runContext(t, ctx, map[string]string{"HOME": t.TempDir()}, args...)
			wantBadInput(t, code, stdout, stderr, tt.want)
			if _, err := os.Stat(dbDir); !os.IsNotExist(err) {
				t.Errorf("history directory %s exists (err %v): opened before the input was checked", dbDir, err)
			}
		})
	}
}

// TestCheckBadBaseline checks that a baseline the history cannot give is
// refused, naming --baseline, and that nothing runs: the history keeps
// its four seeded runs.
func TestCheckBadBaseline(t *testing.T) {
	useStandIn(t) // should a check slip through, it runs here and is counted
	path := filepath.Join(t.TempDir(), "history.db")
	s := seedHistory(t, path)
	env := map[string]string{"THREADBENCH_DB": path, "HOME": t.TempDir()}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		// No run of the name carries the label.
		{"UnknownLabel", []string{"--name", "base", "--baseline", "label:branch=main"},
			`--baseline: no succeeded run named "base" carries the label branch=main`},
		// A run of another spec.
		{"OtherSpec", []string{"--name", "nightly", "--baseline", s.base.ID},
			`--baseline: run ` + s.base.ID + ` is of spec "base", not "nightly": compare runs of the same spec`},
		// A run still running.
		{"NotFinished", []string{"--name", "live", "--baseline", s.live.ID}, `--baseline: run ` + s.live.ID + ` running: a baseline must have succeeded`},
		// No such run.
		{"UnknownRun", []string{"--name", "base", "--baseline", "rnope"}, "--baseline: no run rnope in the history"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"check", "--targets", "go", "--endpoint", "light"}, tt.args...)
			code, stdout, stderr := run(t, env, args...)
			wantBadInput(t, code, stdout, stderr, tt.want)
			if n := len(storedRuns(t, path)); n != 4 {
				t.Errorf("%d runs in the history, want the 4 seeded: something ran", n)
			}
		})
	}
}

// useStandIn runs the test's runs on the stand-in: the real queue, runner
// and store, made-up figures (100 requests of 2 ms a stage).
func useStandIn(t *testing.T) {
	saved := openRunDeps
	t.Cleanup(func() { openRunDeps = saved })
	openRunDeps = func(g *globalState, cfg config, db *store.DB, _ bool) (*runDeps, error) {
		return newStandInDeps(g, cfg, db, time.Millisecond), nil
	}
}

// TestCheckStandIn runs check end to end on the stand-in: a run labelled
// by its CI job, a later one that finds it by its branch and writes JUnit
// and a one-line summary, and an objective broken with exit status 3.
func TestCheckStandIn(t *testing.T) {
	useStandIn(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	check := []string{"check", "-q", "--db", db, "--name", "ci", "--targets", "go", "--profile", "smoke", "--no-warmup", "--endpoint", "light"}
	onMain := map[string]string{"GITHUB_SHA": "3f2a9c1", "GITHUB_REF_NAME": "main", "GITHUB_RUN_ID": "81"}

	code, stdout, stderr := run(t, onMain, append(check, "--objective", "go:throughput>=1,p99<=1s", "--label", "host=ci-7")...)
	if code != exitOK || !strings.Contains(stdout, "check: passed (2 verdicts judged)") {
		t.Fatalf("first check: exit %d\n%s\n%s", code, stdout, stderr)
	}
	main := storedRuns(t, db)[0]
	if want := map[string]string{"commit": "3f2a9c1", "branch": "main", "build": "81", "host": "ci-7"}; !maps.Equal(main.Spec.Labels, want) {
		t.Errorf("labels %v, want %v", main.Spec.Labels, want)
	}

	onBranch := map[string]string{"GITHUB_SHA": "9d8e7f6", "GITHUB_REF_NAME": "42/merge", "GITHUB_HEAD_REF": "faster", "GITHUB_RUN_ID": "82"}
	junit, summary := filepath.Join(dir, "check.xml"), filepath.Join(dir, "summary.md")
	os.WriteFile(summary, []byte("an earlier step's summary\n"), 0o644)
	code, stdout, stderr = run(t, onBranch, append(check, "--baseline", "label:branch=main", "--junit", junit, "--summary", summary)...)
	if code != exitOK || !strings.Contains(stdout, "(label:branch=main)") {
		t.Fatalf("check against main: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var suites struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if b, err := os.ReadFile(junit); err != nil || xml.Unmarshal(b, &suites) != nil || len(suites.Suites) != 1 || len(suites.Suites[0].Cases) == 0 {
		t.Errorf("JUnit file: %v\n%s", err, b)
	}
	b, _ := os.ReadFile(summary)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "threadbench check passed: run `") || !strings.Contains(lines[1], "against `"+main.ID+"` (ci)") {
		t.Errorf("summary, appended to the earlier step's:\n%s", b)
	}

	code, stdout, stderr = run(t, onBranch, append(check, "--objective", "go:p99<=1ms")...)
	if code != exitRegression || !strings.Contains(stderr, "check failed, 1 verdict(s):\n  go p99 ") || !strings.Contains(stdout, "FAIL") {
		t.Errorf("broken objective: exit %d, want %d\n%s\n%s", code, exitRegression, stdout, stderr)
	}
	if n := len(storedRuns(t, db)); n != 3 {
		t.Errorf("%d runs stored, want the 3 checked", n)
	}
}

// TestCheckBaselineOfOtherName: a label carried only by another spec's
// runs is no baseline.
func TestCheckBaselineOfOtherName(t *testing.T) {
	useStandIn(t)
	db := filepath.Join(t.TempDir(), "history.db")
	base := []string{"check", "-q", "--db", db, "--targets", "go", "--profile", "smoke", "--no-warmup", "--endpoint", "light"}
	if code, _, stderr := run(t, nil, append(base, "--name", "smoke-a", "--label", "branch=main", "--objective", "go:p99<=1s")...); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, stdout, stderr := run(t, nil, append(base, "--name", "smoke", "--baseline", "label:branch=main")...)
	wantBadInput(t, code, stdout, stderr, `--baseline: no succeeded run named "smoke" carries the label branch=main`)
	if got := len(storedRuns(t, db)); got != 1 {
		t.Errorf("%d runs, want 1: the refused check ran", got)
	}
	_ = bench.RunSucceeded
}

// ciWorkflow is what TestCIExample reads of docs/ci/github-actions.yml.
type ciWorkflow struct {
	On   map[string]any `yaml:"on"`
	Jobs map[string]struct {
		RunsOn string `yaml:"runs-on"`
		Steps  []struct {
			Name string `yaml:"name"`
			Uses string `yaml:"uses"`
			Run  string `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// gitlabJob is what TestCIExample reads of docs/ci/gitlab-ci.yml's job.
type gitlabJob struct {
	Rules []struct {
		If        string            `yaml:"if"`
		Variables map[string]string `yaml:"variables"`
	} `yaml:"rules"`
	Cache struct {
		Policy string `yaml:"policy"`
	} `yaml:"cache"`
	Script    []string `yaml:"script"`
	Artifacts struct {
		Reports map[string]string `yaml:"reports"`
	} `yaml:"artifacts"`
}

// ghExpression is a GitHub Actions expression that gives a quoted string
// when its condition holds and the empty string otherwise.
var ghExpression = regexp.MustCompile(`\$\{\{[^}]*&& '([^']*)' \|\| ''\s*\}\}`)

// ciEvent is one CI event an example's check command runs on: the job's
// environment, and the command as the CI system expands it.
type ciEvent struct {
	name    string
	env     map[string]string
	command string
}

// TestCIExample parses the GitHub Actions and GitLab CI examples as YAML
// and runs each one's check command on the stand-in, as main's push and
// then as a pull (merge) request against it: its flags are the CLI's, its
// spec file is valid, and the request finds main's run by its label.
func TestCIExample(t *testing.T) {
	useStandIn(t)
	t.Run("GitHubActions", func(t *testing.T) {
		var wf ciWorkflow
		readCIExample(t, "github-actions.yml", &wf)
		var command string
		for _, job := range wf.Jobs {
			for _, step := range job.Steps {
				if strings.Contains(step.Run, "orchestrator check") {
					command = step.Run
				}
			}
		}
		_, onPullRequest := wf.On["pull_request"]
		if _, onPush := wf.On["push"]; !onPush || !onPullRequest || command == "" {
			t.Fatalf("the workflow runs on %v, check command %q: want pushes, pull requests and a check step", wf.On, command)
		}
		runCIExample(t, []ciEvent{
			{"push", map[string]string{"GITHUB_EVENT_NAME": "push", "GITHUB_REF_NAME": "main", "GITHUB_SHA": "3f2a9c1", "GITHUB_RUN_ID": "81"},
				ghExpression.ReplaceAllString(command, "")},
			{"pull_request", map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_REF_NAME": "7/merge", "GITHUB_HEAD_REF": "faster", "GITHUB_SHA": "9d8e7f6", "GITHUB_RUN_ID": "82"},
				ghExpression.ReplaceAllString(command, "$1")},
		})
	})
	t.Run("GitLabCI", func(t *testing.T) {
		var jobs map[string]gitlabJob
		readCIExample(t, "gitlab-ci.yml", &jobs)
		job, ok := jobs["benchmark"]
		var command string
		for _, line := range job.Script {
			if strings.Contains(line, "orchestrator check") {
				command = line
			}
		}
		if !ok || len(job.Rules) != 2 || command == "" || job.Artifacts.Reports["junit"] != "check.xml" || job.Cache.Policy != "$HISTORY_POLICY" {
			t.Fatalf("job %+v: want a benchmark job with two rules, a check command, its JUnit report and the cache's policy by rule", job)
		}
		var events []ciEvent
		for i, rule := range job.Rules {
			ev := ciEvent{name: "push", env: map[string]string{"CI_COMMIT_REF_NAME": "main", "CI_COMMIT_SHA": "3f2a9c1", "CI_PIPELINE_ID": "81"}}
			if i == 1 {
				ev = ciEvent{name: "merge_request", env: map[string]string{"CI_COMMIT_REF_NAME": "faster", "CI_COMMIT_SHA": "9d8e7f6", "CI_PIPELINE_ID": "82", "CI_MERGE_REQUEST_IID": "7"}}
			}
			if policy := rule.Variables["HISTORY_POLICY"]; policy != map[int]string{0: "pull-push", 1: "pull"}[i] {
				t.Errorf("rule %q: cache policy %q; want main's pushes to save the history and merge requests only to read it", rule.If, policy)
			}
			ev.command = strings.ReplaceAll(command, "$BASELINE", rule.Variables["BASELINE"])
			events = append(events, ev)
		}
		runCIExample(t, events)
	})
}

// readCIExample reads docs/ci/NAME as YAML into v.
func readCIExample(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile("../../docs/ci/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s is not YAML: %v", name, err)
	}
}

// runCIExample runs each event's check command in turn on one history:
// the first stores main's run, the second finds it as its baseline.
func runCIExample(t *testing.T, events []ciEvent) {
	t.Helper()
	dir := t.TempDir()
	for i, event := range events {
		args := shellWords(event.command)
		if len(args) < 2 || !strings.HasSuffix(args[0], "orchestrator") {
			t.Fatalf("%s: command %q", event.name, args)
		}
		args = append([]string{"--db", filepath.Join(dir, "history.db")}, args[1:]...)
		for i, a := range args {
			switch {
			case strings.HasPrefix(a, "docs/"):
				args[i] = "../../" + a
			case a == "check.xml" || a == "check.md":
				args[i] = filepath.Join(dir, event.name+"-"+a)
			}
		}
		code, stdout, stderr := run(t, event.env, args...)
		if code != exitOK && code != exitRegression { // the stand-in's made-up figures may break an objective
			t.Fatalf("%s: %q exits %d\n%s", event.name, args, code, stderr)
		}
		for _, f := range []string{"check.xml", "check.md"} {
			if _, err := os.Stat(filepath.Join(dir, event.name+"-"+f)); err != nil {
				t.Errorf("%s: %v", event.name, err)
			}
		}
		if i == 1 && !strings.Contains(stdout, "(label:branch=main)") {
			t.Errorf("the %s's check found no baseline:\n%s", event.name, stdout)
		}
	}
}

// shellWords splits a command line as a shell does words: at blanks,
// keeping single-quoted text whole.
func shellWords(s string) []string {
	var words []string
	var word strings.Builder
	inWord, quoted := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case !quoted && (r == ' ' || r == '\n' || r == '\t'):
			if inWord {
				words = append(words, word.String())
				word.Reset()
			}
			inWord = false
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words
}

// TestSpecLabels: labels come in layers, the spec file's, then a CI job's
// environment, then --label; outside CI and without any, there are none.
func TestSpecLabels(t *testing.T) {
	file := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(file, []byte("targets: [go]\nlabels: {suite: ci, branch: from-file, build: 7}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitlab := map[string]string{"CI_COMMIT_SHA": "abc123", "CI_COMMIT_REF_NAME": "main", "CI_PIPELINE_ID": "77"}
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		want map[string]string
	}{
		{"None", nil, nil, nil},
		{"File", nil, []string{"-f", file}, map[string]string{"suite": "ci", "branch": "from-file", "build": "7"}},
		{"EnvOverFile", gitlab, []string{"-f", file}, map[string]string{"suite": "ci", "branch": "main", "build": "77", "commit": "abc123"}},
		{"FlagOverEnv", gitlab, []string{"-f", file, "--label", "branch=release", "--label", "host=ci-7"},
			map[string]string{"suite": "ci", "branch": "release", "build": "77", "commit": "abc123", "host": "ci-7"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := parseSpecEnv(t, tt.env, tt.args...)
			if err != nil || !maps.Equal(spec.Labels, tt.want) || (tt.want == nil) != (spec.Labels == nil) {
				t.Errorf("labels %v (err %v), want %v", spec.Labels, err, tt.want)
			}
		})
	}
}
