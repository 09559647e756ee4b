package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/internal/store"
)

// TestRunBadSpec checks that run refuses bad specs before it opens the
// history or the Docker runtime: runLocal opens the database first, so a
// database file that was never created proves neither was touched.
func TestRunBadSpec(t *testing.T) {
	// The context is cancelled from the start: should a bad spec slip through
	// validation, the run ends at once instead of building and attacking
	// targets.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name string
		args []string
		want string // in stderr: the field, and what is wrong with it
	}{
		// An unknown target, named by its index in --targets.
		{"UnknownTarget", []string{"--targets", "go,nope"}, `targets[1]: unknown target "nope"`},
		// A stage with a negative duration in a spec file.
		{"NegativeDuration", []string{"-f", "testdata/spec/negative-duration.yaml"}, "profile.stages[1].duration: must be from 1s to 1h0m0s"},
		// A spec file's profile with no stages (not silently replaced by smoke).
		{"ProfileWithoutStages", []string{"-f", "testdata/spec/empty-stages.yaml"}, "profile.stages: a profile needs at least one stage"},
		// A stage above the config file's maxRate; the message states the maximum.
		{"RateAboveMaximum", []string{"--config", "testdata/config/maxrate-100.yaml", "-f", "testdata/spec/rate-500.yaml"},
			"profile.stages[1].rate: must be 0 or from 0.1 to 100 requests/s (the configured maximum), got 500"},
		// An endpoint outside the contract.
		{"UnknownEndpoint", []string{"--endpoint", "nope"}, `workload.requests[0].endpoint: unknown endpoint "nope"`},
		// A parameter that is not an integer.
		{"ParamNotInteger", []string{"--endpoint", "heavy", "--param", "duration=abc"}, "workload.requests[0].params.duration: must be an integer"},
		// A parameter the endpoint does not take.
		{"ParamUnknown", []string{"--endpoint", "light", "--param", "duration=5"}, "workload.requests[0].params.duration: light takes no parameter"},
		// --param without --endpoint.
		{"ParamWithoutEndpoint", []string{"--param", "duration=5"}, "workload: --param needs --endpoint"},
		// --endpoint and --request together.
		{"EndpointAndRequest", []string{"--endpoint", "heavy", "--request", "light"}, "workload: give either --endpoint"},
		// A --request weight that is not a positive integer.
		{"BadRequestWeight", []string{"--request", "light", "--request", "heavy?duration=5@-1"}, "workload.requests[1]: weight"},
		// An output format run does not write.
		{"UnknownOutput", []string{"-o", "yaml"}, `output: unknown format "yaml"`},
		// A profile name that is no built-in.
		{"UnknownProfile", []string{"--profile", "nope"}, `profile.name: no built-in profile "nope"`},
		// A profile file that does not exist.
		{"ProfileFileMissing", []string{"--profile", "testdata/profile/nope.yaml"}, `profile: no profile file "testdata/profile/nope.yaml"`},
		// A spec file field the spec does not have.
		{"SpecUnknownField", []string{"-f", "testdata/spec/unknown-field.yaml"}, `threads: unknown field; known fields: `},
		// A spec file that is not YAML.
		{"SpecMalformed", []string{"-f", "testdata/spec/malformed.yaml"}, "testdata/spec/malformed.yaml: not valid YAML: line 1"},
		// A timeout above the guardrail.
		{"TimeoutAboveMaximum", []string{"--timeout", "10m"}, "workload.timeout: must be above 0 and at most 2m0s"},
		// Limits too small for a JVM.
		{"MemoryTooSmall", []string{"--memory", "10"}, "limits.memoryMiB: must be from 64 to"},
		// A negative scale.
		{"NegativeScale", []string{"--profile", "ramp", "--scale", "-1"}, "profile.scale: must be a positive number"},
		// A load engine that does not exist.
		{"LoadEngineUnknown", []string{"--load-engine", "wrk"}, `profile.engine: must be "threadbench" (the default) or "vegeta", got "wrk"`},
		// A closed ramp, which vegeta's fixed workers cannot send: refused before anything starts.
		{"VegetaClosedRamp", []string{"--load-engine", "vegeta", "--profile", "testdata/profile/closed-ramp.yaml", "--endpoint", "light"}, "profile.stages[1].ramp: the vegeta engine cannot ramp a closed profile"},
		// A results encoding vegeta does not have.
		{"ResultsFormatUnknown", []string{"--results", "r.bin", "--results-format", "xml"}, `results-format: must be one of gob, json, csv, got "xml"`},
		// A vegeta targets file with a malformed line: the file and line named.
		{"TargetsFileBadLine", []string{"--requests", "testdata/targets/bad-header.txt"}, "testdata/targets/bad-header.txt:4: want a header Name: value, got \"X-Broken\""},
		// An engine the configuration does not have, named in the message.
		{"EngineNotConfigured", []string{"--engine", "lab"}, `engine: unknown engine "lab" (configured: local)`},
		// An engine by URL: only configured names are accepted.
		{"EngineURL", []string{"--engine", "tcp://198.18.0.2:2375"}, `engine: names a configured engine by its name`},
	} {
		t.Run(tt.name, func(t *testing.T) { wantRunRefused(t, ctx, tt.args, tt.want) })
	}
}

// wantRunRefused runs `run` with args and requires bad input naming want,
// with the history never opened: runLocal opens the database first, so a
// database directory that was never created proves neither it nor an
// engine was touched.
func wantRunRefused(t *testing.T, ctx context.Context, args []string, want string) {
	t.Helper()
	dbDir := filepath.Join(t.TempDir(), "history")
	args = append([]string{"run", "--db", filepath.Join(dbDir, "history.db")}, args...)
	code, stdout, stderr := runContext(t, ctx, map[string]string{"HOME": t.TempDir()}, args...)
	wantBadInput(t, code, stdout, stderr, want)
	if _, err := os.Stat(dbDir); !os.IsNotExist(err) {
		t.Errorf("history directory %s exists (err %v): the database was opened before the input was checked", dbDir, err)
	}
}

// runContext is run with a context of the caller's.
func runContext(t *testing.T, ctx context.Context, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	g := newGlobalState(ctx, strings.NewReader(""), &out, &errOut, func(k string) string { return env[k] })
	code = execute(g, args)
	return code, out.String(), errOut.String()
}

// seeded are the runs seedHistory stores, oldest first.
type seeded struct {
	base, same, slow, live *bench.Run
}

// seedHistory stores four runs of two targets and two stages each, one
// hour apart: base, same (identical results), slow (every latency doubled)
// and live (still running, no results).
func seedHistory(t *testing.T, path string) seeded {
	t.Helper()
	db := store.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	s := seeded{
		base: finishedRun(t, "base", t0, 1),
		same: finishedRun(t, "same", t0.Add(time.Hour), 1),
		slow: finishedRun(t, "slow", t0.Add(2*time.Hour), 2),
		live: &bench.Run{Name: "live", Status: bench.RunRunning, Spec: seedSpec(), CreatedAt: t0.Add(3 * time.Hour),
			Targets: []bench.TargetResult{{Target: "go", Status: bench.TargetRunning}, {Target: "java-virtual", Status: bench.TargetPending}}},
	}
	for _, r := range []*bench.Run{s.base, s.same, s.slow, s.live} {
		if err := db.CreateRun(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func seedSpec() bench.RunSpec {
	return bench.RunSpec{
		Targets: []string{"go", "java-virtual"},
		Profile: bench.Profile{Name: "custom", Model: bench.ModelOpen, Stages: []bench.Stage{
			{Name: "low", Duration: secs(10), Rate: 10},
			{Name: "high", Duration: secs(10), Rate: 20},
		}},
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light", Weight: 1}}, Timeout: secs(5)},
		Warmup:   bench.Warmup{Disabled: true},
		Limits:   bench.Limits{CPUs: 1, MemoryMiB: 512},
	}
}

// finishedRun returns a succeeded run whose latencies are slowdown times
// those of slowdown 1; request counts are the same.
func finishedRun(t *testing.T, name string, created time.Time, slowdown float64) *bench.Run {
	t.Helper()
	spec := seedSpec()
	started, finished := created.Add(time.Second), created.Add(time.Minute)
	run := &bench.Run{Name: name, Status: bench.RunSucceeded, Spec: spec, CreatedAt: created, StartedAt: &started, FinishedAt: &finished}
	for _, target := range spec.Targets {
		tr := bench.TargetResult{Target: target, Status: bench.TargetSucceeded, Limits: spec.Limits}
		var hists []string
		for i, st := range spec.Profile.Stages {
			requests := int64(st.Rate * st.Duration.D().Seconds())
			stats := latencyStats(t, requests, st.Duration.D(), 2*slowdown, 20*slowdown)
			tr.Stages = append(tr.Stages, bench.StageResult{Index: i, Name: st.Name, Model: bench.ModelOpen,
				StartOffset: secs(10 * float64(i)), Duration: st.Duration, Rate: st.Rate, Stats: stats})
			tr.Seconds = append(tr.Seconds, seedSeconds(i, 10*i, stats, int(st.Duration.D().Seconds()))...)
			hists = append(hists, stats.Histogram)
		}
		tr.Total = totalStats(t, tr.Stages, hists)
		run.Targets = append(run.Targets, tr)
	}
	return run
}

// seedSeconds returns a stage's per-second buckets from second from: its
// requests spread evenly, each second's latencies those of the stage
// wobbling by a deterministic ±2%, as compare's within-run tests need.
func seedSeconds(stage, from int, st bench.Stats, seconds int) []bench.Bucket {
	buckets := make([]bench.Bucket, seconds)
	for i := range buckets {
		w := 1 + 0.01*float64(((from+i)*7)%5-2)
		l := st.Latency
		n := st.Requests / int64(seconds)
		buckets[i] = bench.Bucket{Second: from + i, Stage: stage, Stats: bench.Stats{Requests: n, Successes: n, Completed: n,
			OfferedRate: float64(n), Throughput: float64(n), Elapsed: bench.Duration(time.Second),
			Latency: bench.Latency{Min: l.Min, Mean: l.Mean * w, P50: l.P50 * w, P90: l.P90 * w, P95: l.P95 * w, P99: l.P99 * w, P999: l.P999 * w, Max: l.Max * w}}}
	}
	return buckets
}

// latencyStats returns the stats of n successful requests over elapsed
// whose latencies spread evenly from low to high milliseconds, with their
// encoded histogram.
func latencyStats(t *testing.T, n int64, elapsed time.Duration, low, high float64) bench.Stats {
	t.Helper()
	h := hdr.New()
	for i := int64(0); i < n; i++ {
		ms := low + (high-low)*float64(i)/float64(n-1)
		hdr.Record(h, time.Duration(ms*float64(time.Millisecond)))
	}
	enc, err := hdr.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	rate := float64(n) / elapsed.Seconds()
	return bench.Stats{Requests: n, Successes: n, OfferedRate: rate, Throughput: rate, Elapsed: bench.Duration(elapsed),
		StatusCodes: map[string]int64{"200": n}, Latency: hdr.Summarize(h), Histogram: enc}
}

func totalStats(t *testing.T, stages []bench.StageResult, hists []string) *bench.Stats {
	t.Helper()
	h, err := hdr.Merge(hists...)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := hdr.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	var total bench.Stats
	for _, s := range stages {
		total.Requests += s.Stats.Requests
		total.Successes += s.Stats.Successes
		total.Elapsed += s.Stats.Elapsed
	}
	total.OfferedRate = float64(total.Requests) / total.Elapsed.D().Seconds()
	total.Throughput = total.OfferedRate
	total.Latency, total.Histogram = hdr.Summarize(h), enc
	return &total
}

// seededCLI returns a fresh seeded history and a runner of the CLI against it.
func seededCLI(t *testing.T) (seeded, func(args ...string) (int, string, string)) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.db")
	s := seedHistory(t, path)
	env := map[string]string{"THREADBENCH_DB": path, "HOME": t.TempDir()}
	return s, func(args ...string) (int, string, string) {
		t.Helper()
		return run(t, env, args...)
	}
}

// listedIDs returns the first column of a run list table, header dropped.
func listedIDs(table string) []string {
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
		ids = append(ids, strings.Fields(line)[0])
	}
	return ids
}

func mustOK(t *testing.T, code int, stderr string) {
	t.Helper()
	if code != exitOK {
		t.Fatalf("exit code %d, want %d; stderr %s", code, exitOK, stderr)
	}
}

func TestRunsList(t *testing.T) {
	s, cli := seededCLI(t)
	t.Run("NewestFirst", func(t *testing.T) {
		code, stdout, stderr := cli("runs", "list")
		mustOK(t, code, stderr)
		if got, want := listedIDs(stdout), []string{s.live.ID, s.slow.ID, s.same.ID, s.base.ID}; !slices.Equal(got, want) {
			t.Errorf("IDs %v, want %v\n%s", got, want, stdout)
		}
		if strings.Contains(stderr, "more runs") {
			t.Errorf("stderr %q offers more runs; there are none", stderr)
		}
	})
	t.Run("Status", func(t *testing.T) {
		code, stdout, stderr := cli("runs", "list", "--status", "running")
		mustOK(t, code, stderr)
		if got, want := listedIDs(stdout), []string{s.live.ID}; !slices.Equal(got, want) {
			t.Errorf("IDs %v, want %v", got, want)
		}
		code, stdout, stderr = cli("runs", "list", "--status", "succeeded,failed")
		mustOK(t, code, stderr)
		if got, want := listedIDs(stdout), []string{s.slow.ID, s.same.ID, s.base.ID}; !slices.Equal(got, want) {
			t.Errorf("IDs %v, want %v", got, want)
		}
	})
	t.Run("Cursor", func(t *testing.T) {
		var got []string
		args := []string{"runs", "list", "--limit", "1"}
		for range 10 {
			code, stdout, stderr := cli(args...)
			mustOK(t, code, stderr)
			got = append(got, listedIDs(stdout)...)
			_, cursor, more := strings.Cut(strings.TrimSpace(stderr), "more runs: --cursor ")
			if !more {
				break
			}
			args = []string{"runs", "list", "--limit", "1", "--cursor", cursor}
		}
		if want := []string{s.live.ID, s.slow.ID, s.same.ID, s.base.ID}; !slices.Equal(got, want) {
			t.Errorf("paged IDs %v, want %v", got, want)
		}
	})
	t.Run("JSON", func(t *testing.T) {
		code, stdout, stderr := cli("runs", "list", "-o", "json", "--since", "2026-03-01T09:00:00Z", "--until", "2026-03-01T11:00:00Z")
		mustOK(t, code, stderr)
		var page struct {
			Runs       []bench.Run `json:"runs"`
			NextCursor string      `json:"nextCursor"`
		}
		if err := json.Unmarshal([]byte(stdout), &page); err != nil {
			t.Fatalf("decode %s: %v", stdout, err)
		}
		var names []string
		for _, r := range page.Runs {
			names = append(names, r.Name)
		}
		if got, want := names, []string{"slow", "same"}; !slices.Equal(got, want) {
			t.Errorf("names %v, want %v", got, want)
		}
	})
	t.Run("JSONPages", func(t *testing.T) {
		code, stdout, stderr := cli("runs", "list", "-o", "json", "--limit", "1")
		mustOK(t, code, stderr)
		var page struct {
			Runs       []bench.Run `json:"runs"`
			NextCursor string      `json:"nextCursor"`
		}
		if err := json.Unmarshal([]byte(stdout), &page); err != nil {
			t.Fatalf("decode %s: %v", stdout, err)
		}
		if len(page.Runs) != 1 || page.NextCursor == "" {
			t.Fatalf("got %d runs and cursor %q, want 1 run and a cursor to the next page", len(page.Runs), page.NextCursor)
		}
		code, stdout, stderr = cli("runs", "list", "-o", "json", "--limit", "1", "--cursor", page.NextCursor)
		mustOK(t, code, stderr)
		if !strings.Contains(stdout, `"runs"`) || strings.Contains(stdout, page.Runs[0].ID) {
			t.Errorf("second page %s repeats the first page's run %s", stdout, page.Runs[0].ID)
		}
	})
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		// --since takes RFC 3339 only.
		{"ErrSince", []string{"--since", "yesterday"}, "since: must be an RFC 3339 time"},
		// So does --until.
		{"ErrUntil", []string{"--until", "2026-03-01"}, "until: must be an RFC 3339 time"},
		// Statuses are the run statuses.
		{"ErrStatus", []string{"--status", "done"}, `status: unknown status "done"`},
		// Limits are from 1 to 1000.
		{"ErrLimit", []string{"--limit", "0"}, "limit: must be from 1 to 1000"},
		// A cursor this store did not issue.
		{"ErrCursor", []string{"--cursor", "garbage!"}, "cursor"},
		// A format list does not write.
		{"ErrOutput", []string{"-o", "markdown"}, `unknown format "markdown"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(append([]string{"runs", "list"}, tt.args...)...)
			wantBadInput(t, code, stdout, stderr, tt.want)
		})
	}
}

func TestRunsShow(t *testing.T) {
	s, cli := seededCLI(t)
	t.Run("Table", func(t *testing.T) {
		code, stdout, stderr := cli("runs", "show", s.base.ID)
		mustOK(t, code, stderr)
		if fields := strings.Fields(rowsStarting(stdout, "run ")[0]); !slices.Equal(fields, []string{"run", s.base.ID}) {
			t.Errorf("first row %q, want the run's ID", fields)
		}
		for _, want := range []string{"base", "target go: succeeded", "target java-virtual: succeeded"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("output lacks %q:\n%s", want, stdout)
			}
		}
		// Per target: one row per stage and a total, with its request count.
		for _, prefix := range []string{"stage 1 (low)", "stage 2 (high)", "total"} {
			rows := rowsStarting(stdout, prefix)
			if got, want := len(rows), 2; got != want {
				t.Errorf("%d rows starting %q, want %d (one per target):\n%s", got, prefix, want, stdout)
			}
		}
		for _, row := range rowsStarting(stdout, "stage 2 (high)") {
			if fields := strings.Fields(row); !slices.Contains(fields, "200") {
				t.Errorf("stage row %q lacks its 200 requests", row)
			}
		}
	})
	t.Run("JSON", func(t *testing.T) {
		code, stdout, stderr := cli("runs", "show", "-o", "json", s.slow.ID)
		mustOK(t, code, stderr)
		var got bench.Run
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("decode: %v\n%s", err, stdout)
		}
		if got.ID != s.slow.ID || got.Name != "slow" || got.Status != bench.RunSucceeded {
			t.Errorf("run %s %q %s, want %s %q %s", got.ID, got.Name, got.Status, s.slow.ID, "slow", bench.RunSucceeded)
		}
		if got, want := len(got.Targets), 2; got != want {
			t.Fatalf("%d targets, want %d", got, want)
		}
		want := s.slow.Targets[1].Stages[1].Stats
		stats := got.Targets[1].Stages[1].Stats
		if stats.Requests != want.Requests || stats.Latency.P99 != want.Latency.P99 || stats.Histogram != want.Histogram {
			t.Errorf("java-virtual stage 2 stats %+v, want %+v", stats, want)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		code, stdout, stderr := cli("runs", "show", "nope")
		wantBadInput(t, code, stdout, stderr, `run "nope" not found`)
	})
	t.Run("ErrArgs", func(t *testing.T) {
		if code, _, stderr := cli("runs", "show"); code != exitBadInput {
			t.Errorf("exit code %d, want %d; stderr %s", code, exitBadInput, stderr)
		}
	})
}

// rowsStarting returns the lines of out that start, after indentation, with prefix.
func rowsStarting(out, prefix string) []string {
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), prefix) {
			rows = append(rows, line)
		}
	}
	return rows
}

func TestRunsDelete(t *testing.T) {
	s, cli := seededCLI(t)
	t.Run("ErrRunning", func(t *testing.T) {
		// ECONFLICT: valid input, wrong state; exitCode maps it to exitFailure.
		code, stdout, stderr := cli("runs", "delete", s.live.ID)
		if got, want := code, exitFailure; got != want {
			t.Fatalf("exit code %d, want %d; stderr %s", got, want, stderr)
		}
		if want := "only finished runs can be deleted"; !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
		if stdout != "" {
			t.Errorf("stdout %q, want nothing", stdout)
		}
		if code, _, stderr := cli("runs", "show", s.live.ID); code != exitOK {
			t.Errorf("running run gone after a refused delete: exit %d, %s", code, stderr)
		}
	})
	t.Run("OK", func(t *testing.T) {
		code, stdout, stderr := cli("runs", "delete", s.base.ID, s.same.ID)
		mustOK(t, code, stderr)
		if want := "deleted " + s.base.ID + "\ndeleted " + s.same.ID + "\n"; stdout != want {
			t.Errorf("stdout %q, want %q", stdout, want)
		}
		code, stdout, stderr = cli("runs", "list")
		mustOK(t, code, stderr)
		if got, want := listedIDs(stdout), []string{s.live.ID, s.slow.ID}; !slices.Equal(got, want) {
			t.Errorf("IDs after delete %v, want %v", got, want)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		code, _, stderr := cli("runs", "delete", s.base.ID)
		if got, want := code, exitBadInput; got != want {
			t.Fatalf("exit code %d, want %d; stderr %s", got, want, stderr)
		}
		if !strings.Contains(stderr, "not found") {
			t.Errorf("stderr %q lacks %q", stderr, "not found")
		}
	})
}

func TestCompare(t *testing.T) {
	s, cli := seededCLI(t)
	t.Run("Table", func(t *testing.T) {
		code, stdout, stderr := cli("compare", s.base.ID, s.slow.ID)
		mustOK(t, code, stderr)
		for _, want := range []string{s.base.ID, s.slow.ID, "go", "java-virtual", "p99", "+100", "worse"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("table lacks %q:\n%s", want, stdout)
			}
		}
	})
	t.Run("Markdown", func(t *testing.T) {
		code, stdout, stderr := cli("compare", "-o", "markdown", s.base.ID, s.slow.ID)
		mustOK(t, code, stderr)
		if !strings.Contains(stdout, "| ") || !strings.Contains(stdout, "---") {
			t.Errorf("not a markdown table:\n%s", stdout)
		}
		if !strings.Contains(stdout, "p99") {
			t.Errorf("markdown lacks p99:\n%s", stdout)
		}
	})
	t.Run("JSON", func(t *testing.T) {
		code, stdout, stderr := cli("compare", "-o", "json", s.base.ID, s.slow.ID)
		mustOK(t, code, stderr)
		var c bench.Comparison
		if err := json.Unmarshal([]byte(stdout), &c); err != nil {
			t.Fatalf("decode: %v\n%s", err, stdout)
		}
		if c.Base.ID != s.base.ID || c.Head.ID != s.slow.ID {
			t.Errorf("compared %s -> %s, want %s -> %s", c.Base.ID, c.Head.ID, s.base.ID, s.slow.ID)
		}
		if got, want := len(c.Targets), 2; got != want {
			t.Fatalf("%d targets, want %d", got, want)
		}
		if got, want := len(c.Targets[0].Stages), 2; got != want {
			t.Fatalf("%d stages compared, want %d", got, want)
		}
		// Every latency doubled; the histogram's precision is 0.1%. One
		// round: the stages are tested within-run, the whole attack over
		// two loads is not.
		p99 := metric(c.Targets[0].Stages[1].Metrics, "p99")
		if p99 == nil {
			t.Fatalf("no p99 in %+v", c.Targets[0].Stages[1].Metrics)
		}
		if p99.Change < 99 || p99.Change > 101 || p99.Verdict != bench.VerdictWorse || p99.Test == nil || !p99.Test.Significant {
			t.Errorf("p99 %+v, want about +100%%, worse and significant", p99)
		}
	})
	t.Run("FailOnRegression", func(t *testing.T) {
		code, stdout, stderr := cli("compare", "--fail-on-regression", "5", s.base.ID, s.slow.ID)
		if got, want := code, exitRegression; got != want {
			t.Fatalf("exit code %d, want %d; stderr %s", got, want, stderr)
		}
		if stdout == "" {
			t.Error("no comparison on stdout: it is written before the verdict")
		}
		for _, want := range []string{"regression(s) beyond 5.0%", "go stage 2 (high) p99", "java-virtual stage 2 (high) p99", "p < 0.001"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr %q lacks %q", stderr, want)
			}
		}
	})
	t.Run("FailOnRegressionEqual", func(t *testing.T) {
		code, _, stderr := cli("compare", "--fail-on-regression", "5", s.base.ID, s.same.ID)
		mustOK(t, code, stderr)
	})
	t.Run("FailOnRegressionBetter", func(t *testing.T) {
		// slow -> base halves every latency: better, not a regression.
		code, _, stderr := cli("compare", "--fail-on-regression", "5", s.slow.ID, s.base.ID)
		mustOK(t, code, stderr)
	})
	t.Run("RegressionWithinTolerance", func(t *testing.T) {
		// +100% is within a tolerance of 150%.
		code, _, stderr := cli("compare", "--fail-on-regression", "150", s.base.ID, s.slow.ID)
		mustOK(t, code, stderr)
	})
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		// An unknown head run.
		{"ErrHeadNotFound", []string{s.base.ID, "nope"}, `run "nope" not found`},
		// An unknown base run.
		{"ErrBaseNotFound", []string{"nope", s.base.ID}, `run "nope" not found`},
		// Two runs, no more, no less.
		{"ErrOneArg", []string{s.base.ID}, "accepts 2 arg(s)"},
		// Tolerances are not negative.
		{"ErrNegativeTolerance", []string{"--fail-on-regression", "-1", s.base.ID, s.slow.ID}, "must not be negative"},
		// A format compare does not write.
		{"ErrOutput", []string{"-o", "html", s.base.ID, s.slow.ID}, `unknown format "html"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(append([]string{"compare"}, tt.args...)...)
			wantBadInput(t, code, stdout, stderr, tt.want)
		})
	}
}

func metric(ms []bench.MetricDelta, name string) *bench.MetricDelta {
	for i := range ms {
		if ms[i].Name == name {
			return &ms[i]
		}
	}
	return nil
}

func TestProfilesList(t *testing.T) {
	names := builtin.ProfileNames()
	if got, want := len(names), 5; got != want {
		t.Fatalf("%d built-in profiles, want %d: %v", got, want, names)
	}
	t.Run("Table", func(t *testing.T) {
		code, stdout, stderr := run(t, nil, "profiles", "list")
		mustOK(t, code, stderr)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if got, want := len(lines), 1+len(names); got != want {
			t.Fatalf("%d lines, want %d:\n%s", got, want, stdout)
		}
		for i, name := range names {
			if got := strings.Fields(lines[i+1])[0]; got != name {
				t.Errorf("line %d names %q, want %q", i+1, got, name)
			}
		}
		// The steps profile doubles from 16 to 512 clients, 10 s each.
		if !strings.Contains(stdout, "16x10s 32x10s 64x10s") {
			t.Errorf("steps' stages not shown compactly:\n%s", stdout)
		}
	})
	t.Run("JSON", func(t *testing.T) {
		code, stdout, stderr := run(t, nil, "profiles", "list", "-o", "json")
		mustOK(t, code, stderr)
		var profiles []bench.Profile
		if err := json.Unmarshal([]byte(stdout), &profiles); err != nil {
			t.Fatalf("decode: %v\n%s", err, stdout)
		}
		var got []string
		for _, p := range profiles {
			got = append(got, p.Name)
			if len(p.Stages) == 0 || p.Workload == nil || len(p.Workload.Requests) == 0 {
				t.Errorf("profile %s has no stages or no workload: %+v", p.Name, p)
			}
		}
		if !slices.Equal(got, names) {
			t.Errorf("names %v, want %v", got, names)
		}
	})
	t.Run("ErrOutput", func(t *testing.T) {
		code, _, stderr := run(t, nil, "profiles", "list", "-o", "markdown")
		if got, want := code, exitBadInput; got != want {
			t.Fatalf("exit code %d, want %d; stderr %s", got, want, stderr)
		}
		if !strings.Contains(stderr, "output:") {
			t.Errorf("stderr %q does not name output", stderr)
		}
	})
}

// wantBadInput checks a command refused its input: exit code 2, stderr
// naming the problem, nothing on stdout.
func wantBadInput(t *testing.T, code int, stdout, stderr, want string) {
	t.Helper()
	if got, wantCode := code, exitBadInput; got != wantCode {
		t.Fatalf("exit code %d, want %d; stderr %s", got, wantCode, stderr)
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing", stdout)
	}
}

// TestRunOwnServiceBadInput: a service of one's own given wrongly is
// refused, naming the field, before the history or an engine is touched.
func TestRunOwnServiceBadInput(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	jar := filepath.Join(dir, "orders-1.0.jar")
	os.WriteFile(jar, []byte("PK"), 0o644)
	config := func(body string) string {
		path := filepath.Join(t.TempDir(), "config.yaml")
		os.WriteFile(path, []byte(body), 0o644)
		return path
	}
	goodConfig := config("targets:\n  - name: orders\n    jar: " + jar + "\n")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"JarMissing", []string{"--jar", "testdata/nope.jar"}, "jar: no jar file at testdata/nope.jar"},
		// A service of one's own serves no contract endpoint: its own requests are needed.
		// (the rule is spec.Prepare's, the daemon's too: the profile's requests are contract endpoints)
		{"NoOwnRequests", []string{"--jar", jar}, "workload.requests[0].endpoint: orders@platform is a service of your own, which serves no contract endpoint: attack it with requests of your own, given by uri"},
		{"ContractEndpoint", []string{"--jar", jar, "--endpoint", "light"}, "workload.requests[0].endpoint: orders@platform is a service of your own"},
		{"ContractEndpointInAFile", []string{"--jar", jar, "-f", config("workload:\n  requests:\n    - uri: /orders\n    - endpoint: heavy\n")}, "workload.requests[1].endpoint: orders@platform is a service of your own"},
		{"TwoSources", []string{"--jar", jar, "--image", "orders:1"}, "jar: give one of --jar, --image or --dockerfile"},
		{"DockerfileMissing", []string{"--dockerfile", dir}, "dockerfile: no Dockerfile in directory"},
		{"HealthAlone", []string{"--health", "/ready"}, "health: --health is for a service of your own"},
		{"PortEnvAlone", []string{"--port-env", "PORT"}, "port-env: --port-env is for a service of your own"},
		{"BadPortEnv", []string{"--image", "orders:1", "--port-env", "9-port", "--requests", "testdata/targets/shop.txt"}, `portEnv: must be an environment variable name, got "9-port"`},
		{"UnknownVariant", []string{"--jar", jar, "--variant", "turbo", "--requests", "testdata/targets/shop.txt"}, `variant: target orders has no variant "turbo" (variant: platform, virtual)`},
		{"JarToDaemon", []string{"--server", "http://127.0.0.1:9", "--jar", jar}, "jar: a daemon runs only the targets of its configuration"},
		{"JarWithExperiment", []string{"--jar", jar, "--experiment", "seed-000"}, "jar: an experiment runs the built-in targets"},
		{"ConfigJarMissing", []string{"--config", config("targets:\n  - name: orders\n    jar: nope.jar\n")}, "targets[0].jar: no jar file at"},
		{"ConfigTwice", []string{"--config", config("targets:\n  - {name: orders, jar: " + jar + "}\n  - {name: orders, image: x}\n")}, `targets[1].name: target "orders" is defined twice`},
		{"ConfigUnknownVariant", []string{"--config", goodConfig, "--targets", "orders@turbo"}, `targets[0]: target orders has no variant "turbo" (variant: platform, virtual)`},
		// Its axes: a JDK the project cannot build, a value or an axis it
		// has not, an axis whose name collides with another.
		{"JDKCannotBuild", []string{"--jar", jar, "--jdk", "21,17"}, "jdk: this host builds JREs for Java 25 and 21 only, got 17"},
		{"JDKTwice", []string{"--jar", jar, "--jdk", "21,21"}, "jdk: Java 21 is given twice"},
		{"JDKsWithoutJava", []string{"--targets", "go", "--jdk", "21,25"}, "jdk: no target of the run varies by JDK (go)"},
		{"UnknownJDKValue", []string{"--jar", jar, "--jdk", "21,25", "--variant", "virtual,jdk=17", "--requests", "testdata/targets/shop.txt"}, `variant: target orders has no jdk "17" (jdk: 21, 25)`},
		{"UnknownAxis", []string{"--jar", jar, "--variant", "gc=z", "--requests", "testdata/targets/shop.txt"}, `variant: target orders has no axis "gc" (axes: variant)`},
		{"ConfigUnknownAxisValue", []string{"--config", config("targets:\n  - name: orders\n    jar: " + jar + poolAxis), "--targets", "orders@virtual,pool=t800",
			"--requests", "testdata/targets/shop.txt"}, `targets[0]: target orders has no pool "t800" (pool: t200, t400)`},
		{"ConfigJDKAxisCannotBuild", []string{"--config", config("targets:\n  - {name: orders, jar: " + jar + ", jdks: [21, 17]}\n")}, "targets[0].jdks: this host builds JREs for Java 25 and 21 only, got 17"},
		{"AxisBadForm", []string{"--jar", jar, "--axis", "pool=t8"}, `axis: must be AXIS.VALUE=NAME=VALUE or AXIS.VALUE=-FLAG, got "pool=t8"`},
		{"AxisCollides", []string{"--jar", jar, "--axis", "jdk.a=X=1", "--axis", "jdk.b=X=2"}, "axes.jdk: collides with the JDK axis"},
		{"AxisOneValue", []string{"--jar", jar, "--axis", "pool.t8=X=1"}, "axes.pool: an axis needs at least two values (it has 1)"},
		{"ConfigAxisCollides", []string{"--config", config("targets:\n  - name: orders\n    jar: " + jar + "\n    axes:\n      jdk: {a: {X: \"1\"}, b: {X: \"2\"}}\n")},
			"targets[0].axes.jdk: collides with the JDK axis"},
	} {
		t.Run(tt.name, func(t *testing.T) { wantRunRefused(t, ctx, tt.args, tt.want) })
	}
}

func TestDefaultOwnName(t *testing.T) {
	for _, tt := range []struct{ jar, image, dockerfile, want string }{
		{jar: "target/spring-petclinic-4.0.0-SNAPSHOT.jar", want: "spring-petclinic"},
		{jar: "orders.jar", want: "orders"},
		{jar: "/x/My_App-1.2.jar", want: "my_app"},
		{image: "registry.lan:5000/team/orders:1.4", want: "orders"},
		{image: "orders@sha256:abc", want: "orders"},
		{dockerfile: "testdata/springapp", want: "springapp"},
	} {
		if got := defaultOwnName(tt.jar, tt.image, tt.dockerfile); got != tt.want {
			t.Errorf("defaultOwnName(%q, %q, %q) = %q, want %q", tt.jar, tt.image, tt.dockerfile, got, tt.want)
		}
	}
}
