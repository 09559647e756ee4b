//go:build integration

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/internal/stats"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/internal/targets"
	"github.com/threadbench/threadbench/internal/targets/enginetest"
)

// The swarm's generators, on a real two-node swarm: this machine's engine
// as its manager, a second dockerd in a network namespace (enginetest) as
// its worker, both labelled for load. The Go target runs on the worker's
// engine ("lab"), whose address both generators reach: the manager's from
// the root namespace through the link, the worker's in its own. Two tests
// make a swarm each: TestSwarmGenerators, whose verdicts hold however slow
// the machine is, side by side; TestMeasureSwarmOneAndTwoAgree, which
// compares throughput and latency, alone. They never overlap (alone waits
// for every test side by side), and make test runs them in two processes
// one after the other: one engine is in one swarm at a time.

// testSwarmLabel marks the manager node of a swarm this test made with the
// test process's pid, so that a swarm a killed test left is one the next
// may leave, and one a test still running holds is not.
const testSwarmLabel = "io.threadbench.test-swarm"

// cleanupReserve is what a swarm test keeps of its deadline (go test
// -timeout) for its cleanups: a run still going then (queued behind other
// runs on the host's attack lock, say) is interrupted and the test fails,
// rather than go test killing the test binary with this engine still in
// the swarm and the second engine's namespace left.
const cleanupReserve = time.Minute

// generatorLabel is on every generator's service and container.
const generatorLabel = "io.threadbench.role=generator"

// swarmLab is the two-node swarm, its configurations and a history.
type swarmLab struct {
	lab    enginetest.Engine
	swarm  string // config: lab, and the swarm's two generators
	single string // config: lab, and the one-process generator
	bin    string
	db     string
	// env is the environment of its runs: the test's (its attack lock
	// when it runs side by side), not a subtest's, which has none.
	env []string
}

// TestSwarmGenerators: two generators, one per node, attack the Go target
// in the open model and the closed model; the merged requests are the sum
// of the generators' own, the merged percentiles those of their histograms
// summed, each generator's share and clock offset stored, and nothing is
// left of them. A generator killed mid-stage fails its run, naming it; the
// other stops; the stages so far are stored; nothing is left on either
// node.
func TestSwarmGenerators(t *testing.T) {
	sideBySide(t)
	begin := time.Now()
	s := startSwarm(t)
	t.Run("Open", func(t *testing.T) {
		checkGenerators(t, s, s.run(t, s.swarm, openSwarmSpec, nil), 2)
	})
	t.Run("Closed", func(t *testing.T) {
		checkGenerators(t, s, s.run(t, s.swarm, closedSwarmSpec(1), nil), 2)
	})
	t.Run("KilledMidStage", func(t *testing.T) { killMidStage(t, s) })
	t.Logf("the swarm test took %s", time.Since(begin).Round(time.Millisecond))
}

// TestMeasureSwarmOneAndTwoAgree: the same closed attack from the one
// process and from two generators of the swarm agree within the
// run-to-run spread. On one machine the two generators share its CPUs, so
// the point is agreement, not speed.
func TestMeasureSwarmOneAndTwoAgree(t *testing.T) {
	alone(t)
	begin := time.Now()
	s := startSwarm(t)
	two := s.run(t, s.swarm, closedSwarmSpec(3), nil)
	checkGenerators(t, s, two, 2)
	if t.Failed() {
		return
	}
	one := s.run(t, s.single, closedSwarmSpec(3), nil)
	if one.Status != bench.RunSucceeded {
		t.Fatalf("the one-process run %s: %s", one.Status, one.Error)
	}
	// Asked again once, both runs, when they disagree: a clean clone had
	// one process's p50 0.80 ms (1.5 %) over the two's, each run's rounds
	// within 0.4 ms of each other. A chance disagreement (about one in
	// sixty) passes the second time; a merge's or a clock's fault fails
	// both.
	if apart := compareRounds(t, one, two); len(apart) > 0 {
		t.Logf("asked again: %s", strings.Join(apart, "; "))
		two, one = s.run(t, s.swarm, closedSwarmSpec(3), nil), s.run(t, s.single, closedSwarmSpec(3), nil)
		if two.Status != bench.RunSucceeded || one.Status != bench.RunSucceeded {
			t.Fatalf("asked again: the swarm's run %s (%s), the one process's %s (%s)", two.Status, two.Error, one.Status, one.Error)
		}
		for _, d := range compareRounds(t, one, two) {
			t.Errorf("%s, asked twice", d)
		}
	}
	t.Logf("the swarm test took %s", time.Since(begin).Round(time.Millisecond))
}

// openSwarmSpec is 1,200 requests in two open stages after a fixed
// warm-up: a load the one CPU of the Go target carries with room to spare.
const openSwarmSpec = `targets: [go]
noProfile: true
profile:
  model: open
  stages:
    - {name: a, duration: 2s, rate: 400}
    - {name: b, duration: 2s, rate: 200}
workload: {requests: [{endpoint: light}]}
warmup: {duration: 1s, rate: 50}
`

// closedSwarmSpec is 16 clients on /api/heavy sleeping 50 ms, in rounds
// (repeat): a load the target bounds, not the generators. On /api/light
// the generators bound it on this machine, and two generator processes
// sent half as much again as one (36,000 against 24,500 req/s, 16
// clients, in the first run of this test): a difference of generators,
// not of the merge.
func closedSwarmSpec(rounds int) string {
	return fmt.Sprintf(`targets: [go]
noProfile: true
repeat: %d
profile:
  model: closed
  stages:
    - {name: c16, duration: 3s, concurrency: 16}
workload: {requests: [{endpoint: heavy, params: {duration: "50"}}]}
warmup: {duration: 1s, rate: 50}
`, rounds)
}

// killSwarmSpec has a second stage long enough to be killed in.
const killSwarmSpec = `targets: [go]
noProfile: true
profile:
  model: open
  stages:
    - {name: first, duration: 2s, rate: 200}
    - {name: second, duration: 20s, rate: 200}
workload: {requests: [{endpoint: light}]}
warmup: {disabled: true}
`

// startSwarm starts the worker's engine, makes the swarm and labels both
// nodes for load; the swarm is left and undone when the test ends.
func startSwarm(t *testing.T) *swarmLab {
	t.Helper()
	begin := time.Now()
	var lab enginetest.Engine
	t.Cleanup(func() { checkHostRestored(t, lab) }) // first made, so last run: after the engine's own cleanups
	lab = enginetest.Start(t)
	t.Logf("second engine up in %s", time.Since(begin).Round(time.Millisecond))
	leaveStaleSwarm(t)
	gwbridge := docker(t, "network", "ls", "-q", "--filter", "name=^docker_gwbridge$") != ""
	docker(t, "swarm", "init", "--advertise-addr", "127.0.0.1", "--listen-addr", "0.0.0.0:2377")
	t.Cleanup(func() { leaveSwarm(t, gwbridge) })
	manager := docker(t, "info", "--format", "{{.Swarm.NodeID}}")
	docker(t, "node", "update", "--label-add", testSwarmLabel+"="+strconv.Itoa(os.Getpid()), manager)
	token := docker(t, "swarm", "join-token", "-q", "worker")
	labCLI := []string{"-H", "unix://" + lab.Socket}
	docker(t, append(labCLI, "swarm", "join", "--token", token, lab.HostAddress+":2377")...)
	t.Cleanup(func() { dockerQuiet(t, append(labCLI, "swarm", "leave", "--force")...) })
	waitNodesReady(t, 2)
	t.Logf("swarm of two nodes in %s", time.Since(begin).Round(time.Millisecond))
	for _, id := range strings.Fields(docker(t, "node", "ls", "-q")) {
		docker(t, "node", "update", "--label-add", "threadbench.load=true", id)
	}
	engine := labEngine(lab) + "defaultEngine: lab\n"
	return &swarmLab{lab: lab, bin: buildOrchestrator(t), db: t.TempDir() + "/history.db", env: processEnv(t),
		swarm:  writeFile(t, "swarm.yaml", engine+fmt.Sprintf("swarm: {manager: local, generators: 2, port: %d}\n", freePort(t))),
		single: writeFile(t, "single.yaml", engine)}
}

// leaveStaleSwarm leaves a swarm an earlier run of this test left (its
// process was killed before its cleanup: the pid on the manager's label
// is gone); a swarm of a test process still alive, or any other swarm, is
// not ours to leave.
func leaveStaleSwarm(t *testing.T) {
	t.Helper()
	if docker(t, "info", "--format", "{{.Swarm.LocalNodeState}}") == "inactive" {
		return
	}
	owner := docker(t, "node", "inspect", "self", "--format", "{{index .Spec.Labels \""+testSwarmLabel+"\"}}")
	pid, err := strconv.Atoi(owner)
	if err != nil || pid <= 0 {
		t.Fatal("this machine's engine is in a swarm this test did not make: leave it (docker swarm leave) to run the test")
	}
	if syscall.Kill(pid, 0) == nil {
		t.Fatalf("this machine's engine is in the swarm of a test still running (pid %d): one swarm test on an engine at a time", pid)
	}
	t.Logf("leaving the swarm a killed run of this test (pid %d) left", pid)
	dockerQuiet(t, "swarm", "leave", "--force")
}

// leaveSwarm removes any generator service left, leaves the swarm, and
// removes the bridge swarm mode made if there was none before. It fails
// the test on what it finds left, but goes on: the swarm must be left.
func leaveSwarm(t *testing.T, hadGWBridge bool) {
	if ids, _ := dockerOut("service", "ls", "-q", "--filter", "label="+generatorLabel); ids != "" {
		t.Errorf("generator services left: %s", ids)
		dockerQuiet(t, append([]string{"service", "rm"}, strings.Fields(ids)...)...)
	}
	dockerQuiet(t, "swarm", "leave", "--force")
	if !hadGWBridge {
		dockerQuiet(t, "network", "rm", "docker_gwbridge")
	}
}

// checkHostRestored checks, once everything the test made is undone, that
// this engine is in no swarm, and that the second engine's dockerd and
// namespace are gone.
func checkHostRestored(t *testing.T, lab enginetest.Engine) {
	if state, err := dockerOut("info", "--format", "{{.Swarm.LocalNodeState}}"); err != nil || state != "inactive" {
		t.Errorf("this engine's swarm state after the test: %q %v, want inactive", state, err)
	}
	if lab.Namespace == "" {
		return
	}
	if out, err := exec.Command("ip", "netns", "list").Output(); err != nil || slices.Contains(strings.Fields(string(out)), lab.Namespace) {
		t.Errorf("the namespace %s is left (ip netns list: %q %v)", lab.Namespace, out, err)
	}
	if out, err := exec.Command("pgrep", "-f", lab.Socket).Output(); err == nil {
		t.Errorf("the second dockerd is left: pid %s", bytes.TrimSpace(out))
	}
}

// waitNodesReady waits until the swarm has n ready nodes.
func waitNodesReady(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		states := strings.Fields(docker(t, "node", "ls", "--format", "{{.Status}}"))
		if len(states) == n && !slices.ContainsFunc(states, func(s string) bool { return s != "Ready" }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("swarm nodes %v, want %d ready", states, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// freePort is a TCP port free on this host now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// docker runs the docker CLI and returns its output, trimmed; it fails
// the test if the command fails.
func docker(t *testing.T, args ...string) string {
	t.Helper()
	out, err := dockerOut(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// dockerOut runs the docker CLI and returns its output, trimmed.
func dockerOut(args ...string) (string, error) {
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("docker %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// dockerQuiet runs the docker CLI in a cleanup: a failure is logged.
func dockerQuiet(t *testing.T, args ...string) {
	if _, err := dockerOut(args...); err != nil {
		t.Log(err)
	}
}

// run runs spec with the configuration as a process of the built binary
// (the generators' image is made of it), calling progress with each line
// of its progress, and returns the stored run, whatever its status.
func (s *swarmLab) run(t *testing.T, config, spec string, progress func(string)) *bench.Run {
	t.Helper()
	began := time.Now()
	ctx := context.Background()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-cleanupReserve))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, s.bin, "--config", config, "--db", s.db, "run", "-o", "json", "-f", writeFile(t, "spec.yaml", spec))
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // the run removes its generators
	cmd.WaitDelay = 30 * time.Second
	cmd.Env = s.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(pipe)
	for lines.Scan() {
		stderr.WriteString(lines.Text() + "\n")
		if progress != nil {
			progress(lines.Text())
		}
	}
	_ = cmd.Wait()
	t.Logf("run took %s:\n%s", time.Since(began).Round(time.Millisecond), stderr.String())
	if ctx.Err() != nil {
		t.Fatalf("the run was interrupted %s before the test's deadline (go test -timeout), to leave the swarm in time", cleanupReserve)
	}
	var printed bench.Run
	if err := json.Unmarshal(stdout.Bytes(), &printed); err != nil {
		t.Fatalf("stdout is not a run document: %v\n%s", err, stdout.String())
	}
	h := store.NewDB(s.db)
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	run, err := h.FindRunByID(context.Background(), printed.ID)
	if err != nil {
		t.Fatalf("the run is not stored: %v", err)
	}
	return run
}

// checkGenerators checks a run of n generators per round: every one on a
// node of its own, its share, its clock offset within the round trip it
// was measured over (one host, one clock), the merged requests its own
// added up and the merged percentiles its histograms' summed; and nothing
// of the generators, nor of the target, left.
func checkGenerators(t *testing.T, s *swarmLab, run *bench.Run, n int) {
	t.Helper()
	if run.Status != bench.RunSucceeded {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	for _, tr := range run.Targets {
		if len(tr.Generators) != n {
			t.Fatalf("%s: %d generators recorded, want %d", tr.Key(), len(tr.Generators), n)
		}
		var addresses []string
		for i, g := range tr.Generators {
			addresses = append(addresses, strings.Split(g.Address, ":")[0])
			if g.Share != (bench.Share{Index: i, Of: n}) || g.Node == "" || g.CPUModel == "" || g.RoundTripMs <= 0 || g.Total == nil {
				t.Errorf("%s: generator %d: %+v", tr.Key(), i, g)
			}
			if g.ClockOffsetMs > g.RoundTripMs || g.ClockOffsetMs < -g.RoundTripMs {
				t.Errorf("%s: %s: clock offset %.3f ms beyond its round trip %.3f ms on one host", tr.Key(), g.Name(), g.ClockOffsetMs, g.RoundTripMs)
			}
			t.Logf("%s: %s: clock offset %+.3f ms (round trip %.3f ms), %d requests, p50 %.3f ms", tr.Key(), g.Name(), g.ClockOffsetMs, g.RoundTripMs, g.Total.Requests, g.Total.Latency.P50)
		}
		slices.Sort(addresses)
		if want := []string{"127.0.0.1", s.lab.Address}; !slices.Equal(addresses, want) {
			t.Errorf("%s: generators at %v, want one on each node %v", tr.Key(), addresses, want)
		}
		checkMerged(t, tr.Key()+" total", *tr.Total, generatorWindows(tr, -1))
		for i, st := range tr.Stages {
			checkMerged(t, fmt.Sprintf("%s stage %d", tr.Key(), i), st.Stats, generatorWindows(tr, i))
		}
	}
	checkNothingLeft(t, s, run.ID)
	code, stdout, stderr := runCLI(t, nil, "--db", s.db, "report", run.ID)
	mustOK(t, code, stderr)
	if !strings.Contains(stdout, fmt.Sprintf("%d swarm generators", n)) || !strings.Contains(stdout, s.lab.Address+":") {
		t.Errorf("the report does not say how many generators and where:\n%s", stdout)
	}
}

// generatorWindows are each generator's own stage i (its total for -1).
func generatorWindows(tr bench.TargetResult, i int) []bench.Stats {
	var out []bench.Stats
	for _, g := range tr.Generators {
		if i < 0 {
			out = append(out, *g.Total)
		} else if i < len(g.Stages) {
			out = append(out, g.Stages[i].Stats)
		}
	}
	return out
}

// checkMerged checks a merged window against the generators' own: the
// requests and completions their sum, p50 and p99 their histograms'
// summed.
func checkMerged(t *testing.T, what string, merged bench.Stats, parts []bench.Stats) {
	t.Helper()
	var requests, completed int64
	sum := hdr.New()
	for _, p := range parts {
		requests, completed = requests+p.Requests, completed+p.Completed
		h, err := hdr.Decode(p.Histogram)
		if err != nil {
			t.Fatalf("%s: a generator's histogram: %v", what, err)
		}
		sum.Merge(h)
	}
	want := hdr.Summarize(sum)
	if merged.Requests != requests || merged.Completed != completed || merged.Requests == 0 {
		t.Errorf("%s: merged %d requests, %d completed; the generators' own add up to %d, %d", what, merged.Requests, merged.Completed, requests, completed)
	}
	if merged.Latency.P50 != want.P50 || merged.Latency.P99 != want.P99 {
		t.Errorf("%s: merged p50 %g p99 %g ms, the summed histograms' %g %g", what, merged.Latency.P50, merged.Latency.P99, want.P50, want.P99)
	}
}

// checkNothingLeft checks that no generator service, generator container
// or target container of the run is left on either node.
func checkNothingLeft(t *testing.T, s *swarmLab, runID string) {
	t.Helper()
	if ids := docker(t, "service", "ls", "-q", "--filter", "label="+generatorLabel); ids != "" {
		t.Errorf("generator services left: %s", ids)
	}
	if left := labelledContainers(t, func(c container.Summary) string { return c.ID }, generatorLabel); len(left) != 0 {
		t.Errorf("generator containers left on this engine: %v", left)
	}
	if left := s.lab.Containers(t, generatorLabel); len(left) != 0 {
		t.Errorf("generator containers left on lab: %v", left)
	}
	if left := s.lab.Containers(t, targets.LabelManaged+"=true", targets.LabelRun+"="+runID); len(left) != 0 {
		t.Errorf("target containers of run %s left on lab: %v", runID, left)
	}
}

// compareRounds says where the closed attack's throughput and p50 from one
// generator and from two disagree. They agree within the spread of each
// one's own rounds: the medians of the two lie within one and a half times the
// larger range of rounds apart (for three rounds of a normal spread, a
// chance failure about one time in sixty; a merge that counted a
// generator twice or not at all lies far outside), the range no finer
// than the histograms' precision.
// agreeShare is the least spread compareRounds allows the rounds, as a
// share of the figure.
const agreeShare = 0.01

func compareRounds(t *testing.T, one, two *bench.Run) (apart []string) {
	t.Helper()
	for _, figure := range []struct {
		name string
		of   func(bench.Stats) float64
	}{
		{"throughput req/s", func(s bench.Stats) float64 { return s.Throughput }},
		{"p50 ms", func(s bench.Stats) float64 { return s.Latency.P50 }},
	} {
		a, b := roundsOf(one, figure.of), roundsOf(two, figure.of)
		ma, mb := stats.Median(a, 0).Center, stats.Median(b, 0).Center
		// No finer than 1 % of the figure: rounds whose p50 fell in one
		// bucket of the histograms have no range, and the generators
		// themselves differ a little (one process of 16 clients on the
		// generator CPU, or two of 8): clean-clone run 17 had the two's
		// p50 0.13 ms (0.25 %) under the one's, the rounds within 0.06 ms
		// of each other. A merge or clock fault moves a 50 ms call by
		// milliseconds.
		spread := max(rangeOf(a), rangeOf(b), max(ma, mb)*agreeShare)
		t.Logf("%s: one generator %v (median %.3f), two %v (median %.3f); spread of the rounds %.3f", figure.name, a, ma, b, mb, spread)
		if d := mb - ma; d > 1.5*spread || -d > 1.5*spread {
			apart = append(apart, fmt.Sprintf("%s: two generators' median %.3f, one's %.3f: %.3f apart, beyond 1.5 times the rounds' spread %.3f", figure.name, mb, ma, d, spread))
		}
	}
	return apart
}

func roundsOf(run *bench.Run, of func(bench.Stats) float64) []float64 {
	var out []float64
	for _, tr := range run.Targets {
		if tr.Total != nil {
			out = append(out, of(*tr.Total))
		}
	}
	return out
}

func rangeOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return slices.Max(v) - slices.Min(v)
}

// killMidStage kills the worker's generator a second into the second
// stage: the run fails naming it and its task's exit, the other generator
// stops (the run, target and generators removed, ends before the stage
// would have), the first stage is stored whole, and nothing is left on
// either node.
func killMidStage(t *testing.T, s *swarmLab) {
	var killedAt time.Time
	run := s.run(t, s.swarm, killSwarmSpec, func(line string) {
		if killedAt.IsZero() && strings.Contains(line, "] stage 2 (second)") {
			time.Sleep(time.Second)
			ids := s.lab.Containers(t, generatorLabel)
			if len(ids) != 1 {
				t.Errorf("generator containers on lab: %v, want one to kill", ids)
				return
			}
			docker(t, "-H", "unix://"+s.lab.Socket, "kill", ids[0])
			killedAt = time.Now()
		}
	})
	if killedAt.IsZero() {
		t.Fatalf("the second stage never started: %s %s", run.Status, run.Error)
	}
	tr := run.Target("go")
	if run.Status != bench.RunFailed || !strings.Contains(run.Error, "at "+s.lab.Address+":") || !strings.Contains(run.Error, "failed during the attack") || !strings.Contains(run.Error, "exit (137)") {
		t.Errorf("run %s: %q; want it failed, naming the generator at %s and its exit", run.Status, run.Error, s.lab.Address)
	}
	if ended, rest := run.FinishedAt.Sub(killedAt), 19*time.Second; ended > rest {
		t.Errorf("the run ended %s after the kill, later than the stage's %s left: the other generator did not stop", ended, rest)
	}
	if tr == nil || len(tr.Stages) == 0 || tr.Stages[0].Name != "first" || tr.Stages[0].Stats.Requests != 400 {
		t.Errorf("stages stored %+v: want the first, with its 400 requests from both generators", tr)
	} else {
		t.Logf("stored: %d stage(s), the first with %d requests; the run ended %s after the kill: %s",
			len(tr.Stages), tr.Stages[0].Stats.Requests, run.FinishedAt.Sub(killedAt).Round(time.Millisecond), run.Error)
	}
	checkNothingLeft(t, s, run.ID)
}
