package spec_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/spec"
)

// testCatalog is the three targets of the built-in catalog, Java on JDK 25 or 21.
func testCatalog(g bench.Guardrails) bench.Catalog {
	jdks := []string{"25", "21"}
	return bench.Catalog{Guardrails: g, HostCPUs: 2, HostMemoryBytes: 24 << 30, Targets: []bench.TargetInfo{
		{Name: bench.TargetGo, Kind: "go"},
		{Name: bench.TargetJavaPlatform, Kind: "java", Variant: "jdk", Variants: jdks, DefaultVariant: "25"},
		{Name: bench.TargetJavaVirtual, Kind: "java", Variant: "jdk", Variants: jdks, DefaultVariant: "25"},
		{Name: bench.TargetJavaReactive, Kind: "java", Variant: "jdk", Variants: jdks, DefaultVariant: "25", OnlyNamed: true},
	}, Builtins: builtin.Set}
}

// validSpec is a spec that passes; each test row breaks one thing.
func validSpec() bench.RunSpec {
	return bench.RunSpec{
		Targets: []string{bench.TargetGo, bench.TargetJavaVirtual},
		Profile: bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{hold(10, 100), ramp(10, 0)}},
		Workload: bench.Workload{Requests: []bench.Request{
			{Endpoint: "heavy", Params: map[string]string{"duration": "200"}},
			{Endpoint: "cpu", Params: map[string]string{"work": "1000"}, Weight: 3},
		}},
	}
}

func closedSpec(stages ...bench.Stage) bench.RunSpec {
	s := validSpec()
	s.Profile = bench.Profile{Model: bench.ModelClosed, Stages: stages}
	return s
}

func TestPrepareSpecValid(t *testing.T) {
	rs := validSpec()
	if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil {
		t.Fatal(err)
	}
	if got, want := rs.Workload.Requests[0].Weight, 1; got != want {
		t.Errorf("defaults not applied: weight %d, want %d", got, want)
	}
	if w := rs.Warmup; !w.UntilSteady || w.MaxDuration != bench.DefaultWarmupMaxDuration {
		t.Errorf("warm-up %+v, want one until steady (the default), at most %s", w, bench.DefaultWarmupMaxDuration)
	}
	// a closed ramp down to 0 is fine
	rs = closedSpec(bench.Stage{Duration: sec(5), Concurrency: 10}, bench.Stage{Duration: sec(5), Ramp: true})
	if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil {
		t.Errorf("closed ramp to 0: %v", err)
	}
	// vegeta sends an open profile with ramps, and a closed one that holds
	for _, rs := range []bench.RunSpec{validSpec(), closedSpec(bench.Stage{Duration: sec(5), Concurrency: 10}, bench.Stage{Duration: sec(5), Concurrency: 20})} {
		rs.Profile.Engine = bench.LoadEngineVegeta
		if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil {
			t.Errorf("vegeta, %s model: %v", rs.Profile.Model, err)
		}
	}
}

func TestPrepareSpecBuiltin(t *testing.T) {
	rs := bench.RunSpec{Targets: []string{bench.TargetGo}, Profile: bench.Profile{Name: "seed-k6", Scale: 0.5}}
	if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil {
		t.Fatal(err)
	}
	if got, want := rs.Profile.Model, bench.ModelClosed; got != want {
		t.Errorf("model %s, want %s", got, want)
	}
	if got, want := rs.Profile.Duration().D(), 270*time.Second; got != want {
		t.Errorf("seed-k6 at scale 0.5 lasts %s, want %s", got, want)
	}
	if got, want := len(rs.Workload.Requests), 2; got != want {
		t.Fatalf("workload has %d requests, want the built-in's %d", got, want)
	}
	if got, want := rs.Workload.Requests[0].Path(), "/api/heavy?duration=500"; got != want {
		t.Errorf("first request %s, want %s", got, want)
	}

	// the rs's own workload wins over the built-in's
	rs = bench.RunSpec{Targets: []string{bench.TargetGo}, Profile: bench.Profile{Name: "smoke"},
		Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "cpu"}}}}
	if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil {
		t.Fatal(err)
	}
	if got, want := rs.Workload.Requests[0].Endpoint, "cpu"; len(rs.Workload.Requests) != 1 || got != want {
		t.Errorf("workload %+v, want the rs's own", rs.Workload.Requests)
	}
}

func TestPrepareSpecErrors(t *testing.T) {
	g := bench.Guardrails{MaxRate: 1000, MaxConcurrency: 500, MaxDuration: bench.Duration(10 * time.Minute), MaxTimeout: bench.Duration(time.Minute)}
	tests := []struct {
		name   string
		change func(*bench.RunSpec)
		field  string
		says   string // part of the message
	}{
		// no target at all
		{"no targets", func(s *bench.RunSpec) { s.Targets = nil }, "targets", "at least one"},
		// a target the catalog does not have
		{"unknown target", func(s *bench.RunSpec) { s.Targets = []string{"go", "rust"} }, "targets[1]", "java-platform"},
		// the same target twice
		{"duplicate target", func(s *bench.RunSpec) { s.Targets = []string{"go", "go"} }, "targets[1]", "twice"},
		// a request of one's own: a path, not a URL
		{"uri not a path", func(s *bench.RunSpec) { s.Workload.Requests[0] = bench.Request{URI: "http://x/a"} }, "workload.requests[0].uri", "starting with /"},
		// an endpoint and a uri at once
		{"uri and endpoint", func(s *bench.RunSpec) { s.Workload.Requests[0].URI = "/a" }, "workload.requests[0].uri", "not both"},
		// a method that is no HTTP token
		{"bad method", func(s *bench.RunSpec) { s.Workload.Requests[0] = bench.Request{URI: "/a", Method: "get it"} }, "workload.requests[0].method", "capitals"},
		// a method for a contract endpoint
		{"method with endpoint", func(s *bench.RunSpec) { s.Workload.Requests[0].Method = "POST" }, "workload.requests[0].method", "given by uri"},
		// a header value over two lines
		{"header two lines", func(s *bench.RunSpec) {
			s.Workload.Requests[0] = bench.Request{URI: "/a", Header: map[string][]string{"X-A": {"1\r\nX-B: 2"}}}
		}, "workload.requests[0].header.X-A", "one line"},
		// a load engine that does not exist
		{"unknown load engine", func(s *bench.RunSpec) { s.Profile.Engine = "wrk" }, "profile.engine", `"vegeta"`},
		// vegeta's workers are fixed for an attack: a closed ramp cannot be sent
		{"vegeta closed ramp", func(s *bench.RunSpec) {
			*s = closedSpec(bench.Stage{Duration: sec(5), Concurrency: 10}, bench.Stage{Duration: sec(5), Concurrency: 20, Ramp: true})
			s.Profile.Engine = bench.LoadEngineVegeta
		}, "profile.stages[1].ramp", "cannot ramp"},
		// vegeta sends single requests: no think times
		{"vegeta iteration", func(s *bench.RunSpec) {
			*s = closedSpec(bench.Stage{Duration: sec(5), Concurrency: 10})
			s.Profile.Engine = bench.LoadEngineVegeta
			s.Workload = bench.Workload{Iteration: []bench.Step{{Request: &bench.Request{Endpoint: "light"}}, {Sleep: &bench.Sleep{Min: bench.Duration(time.Second)}}}}
		}, "workload.iteration", "think times"},
		// a name that is no built-in
		{"unknown profile name", func(s *bench.RunSpec) { s.Profile = bench.Profile{Name: "spike"} }, "profile.name", "seed-k6"},
		// a negative scale for a built-in
		{"negative scale", func(s *bench.RunSpec) { s.Profile = bench.Profile{Name: "smoke", Scale: -2} }, "profile.scale", "positive"},
		// neither a name nor stages
		{"no stages", func(s *bench.RunSpec) { s.Profile = bench.Profile{} }, "profile.stages", "at least one stage"},
		// a model that does not exist
		{"bad model", func(s *bench.RunSpec) { s.Profile.Model = "hybrid" }, "profile.model", "open"},
		// a zero-length stage
		{"zero duration", func(s *bench.RunSpec) { s.Profile.Stages[1].Duration = 0 }, "profile.stages[1].duration", "from 1s"},
		// a negative-length stage, the third one
		{"negative duration", func(s *bench.RunSpec) { s.Profile.Stages = append(s.Profile.Stages, hold(-1, 5)) }, "profile.stages[2].duration", "from 1s"},
		// a negative rate
		{"negative rate", func(s *bench.RunSpec) { s.Profile.Stages[0].Rate = -1 }, "profile.stages[0].rate", "1000"},
		// above the configured maximum, which the message states
		{"rate above max", func(s *bench.RunSpec) { s.Profile.Stages[0].Rate = 1001 }, "profile.stages[0].rate", "maximum"},
		// an open stage with a concurrency
		{"open with concurrency", func(s *bench.RunSpec) { s.Profile.Stages[1].Concurrency = 5 }, "profile.stages[1].concurrency", "rate"},
		// an open profile that sends nothing
		{"all rates zero", func(s *bench.RunSpec) { s.Profile.Stages = []bench.Stage{hold(5, 0)} }, "profile.stages", "no stage"},
		// a closed stage with a rate
		{"closed with rate", func(s *bench.RunSpec) { *s = closedSpec(bench.Stage{Duration: sec(5), Concurrency: 4, Rate: 10}) }, "profile.stages[0].rate", "concurrency"},
		// a negative concurrency
		{"negative concurrency", func(s *bench.RunSpec) { *s = closedSpec(bench.Stage{Duration: sec(5), Concurrency: -4}) }, "profile.stages[0].concurrency", "500"},
		// above the configured maximum
		{"concurrency above max", func(s *bench.RunSpec) {
			*s = closedSpec(bench.Stage{Duration: sec(5), Concurrency: 4}, bench.Stage{Duration: sec(5), Concurrency: 501})
		}, "profile.stages[1].concurrency", "maximum"},
		// a closed hold at 0 is no ramp target
		{"closed hold at zero", func(s *bench.RunSpec) { *s = closedSpec(bench.Stage{Duration: sec(5)}) }, "profile.stages[0].concurrency", "ramp"},
		// no requests, and a profile without a workload of its own
		{"no requests", func(s *bench.RunSpec) { s.Workload.Requests = nil }, "workload.requests", "light"},
		// an endpoint outside the contract
		{"unknown endpoint", func(s *bench.RunSpec) { s.Workload.Requests[1].Endpoint = "sleep" }, "workload.requests[1].endpoint", "synchronized"},
		// a parameter the endpoint does not take
		{"unknown param", func(s *bench.RunSpec) { s.Workload.Requests[1].Params["duration"] = "5" }, "workload.requests[1].params.duration", "work"},
		// not an integer
		{"param not integer", func(s *bench.RunSpec) { s.Workload.Requests[0].Params["duration"] = "2s" }, "workload.requests[0].params.duration", "integer"},
		// above the contract's range
		{"duration out of range", func(s *bench.RunSpec) { s.Workload.Requests[0].Params["duration"] = "60001" }, "workload.requests[0].params.duration", "60000"},
		// below the contract's range
		{"work negative", func(s *bench.RunSpec) { s.Workload.Requests[1].Params["work"] = "-1" }, "workload.requests[1].params.work", "100000"},
		// above the contract's range
		{"work out of range", func(s *bench.RunSpec) { s.Workload.Requests[1].Params["work"] = "100001" }, "workload.requests[1].params.work", "100000"},
		// a negative weight
		{"negative weight", func(s *bench.RunSpec) { s.Workload.Requests[1].Weight = -1 }, "workload.requests[1].weight", "from 1 to 1000"},
		// a negative timeout
		{"negative timeout", func(s *bench.RunSpec) { s.Workload.Timeout = -1 }, "workload.timeout", "above 0"},
		// a timeout above the maximum
		{"timeout above max", func(s *bench.RunSpec) { s.Workload.Timeout = bench.Duration(2 * time.Minute) }, "workload.timeout", "1m0s"},
		// a negative warm-up
		{"negative warm-up", func(s *bench.RunSpec) { s.Warmup.Duration = -1 }, "warmup.duration", "from 0"},
		// a warm-up longer than a run may be
		{"warm-up above max", func(s *bench.RunSpec) { s.Warmup.Duration = bench.Duration(11 * time.Minute) }, "warmup.duration", "10m0s"},
		// a warm-up rate above the maximum
		{"warm-up rate above max", func(s *bench.RunSpec) { s.Warmup.Rate = 5000 }, "warmup.rate", "1000"},
		// a warm-up until steady has a maximum and a window, not a fixed length or rate
		{"until steady with a duration", func(s *bench.RunSpec) { s.Warmup = bench.Warmup{UntilSteady: true, Duration: sec(5)} }, "warmup.duration", "maxDuration"},
		{"until steady with a rate", func(s *bench.RunSpec) { s.Warmup = bench.Warmup{UntilSteady: true, Rate: 20} }, "warmup.rate", "first stage's load"},
		{"until steady, window too short", func(s *bench.RunSpec) { s.Warmup = bench.Warmup{UntilSteady: true, Window: sec(2)} }, "warmup.window", "at least 5s"},
		{"until steady, maximum under the window", func(s *bench.RunSpec) {
			s.Warmup = bench.Warmup{UntilSteady: true, Window: sec(10), MaxDuration: sec(6)}
		}, "warmup.maxDuration", "from the window"},
		{"until steady, maximum above the guardrail", func(s *bench.RunSpec) {
			s.Warmup = bench.Warmup{UntilSteady: true, MaxDuration: bench.Duration(11 * time.Minute)}
		}, "warmup.maxDuration", "10m0s"},
		{"until steady but disabled", func(s *bench.RunSpec) { s.Warmup = bench.Warmup{UntilSteady: true, Disabled: true} }, "warmup.untilSteady", "disabled"},
		{"a window on a fixed warm-up", func(s *bench.RunSpec) { s.Warmup = bench.Warmup{Duration: sec(5), Window: sec(10)} }, "warmup.window", "untilSteady"},
		{"a fraction of a fixed warm-up", func(s *bench.RunSpec) { s.Warmup = bench.Warmup{Rate: 20, Fraction: 0.5} }, "warmup.fraction", "untilSteady"},
		{"a fraction above 1", func(s *bench.RunSpec) { s.Warmup = bench.Warmup{Fraction: 1.5} }, "warmup.fraction", "at most 1"},
		{"until steady before a capacity search", func(s *bench.RunSpec) {
			s.Warmup = bench.Warmup{UntilSteady: true}
			s.Profile = bench.Profile{}
			s.Capacity = &bench.CapacitySpec{Objective: "p99<=1s"}
		}, "warmup.untilSteady", "capacity"},
		// a capacity search's fixed warm-up takes a maximum for a cold JVM's (runner's warmUntilSteady), within bounds
		{"a maximum on a fixed warm-up", func(s *bench.RunSpec) { s.Warmup = bench.Warmup{Duration: sec(5), MaxDuration: sec(20)} }, "warmup.maxDuration", "capacity search"},
		{"a capacity search's cold maximum under the window", func(s *bench.RunSpec) {
			s.Warmup = bench.Warmup{Duration: sec(5), Rate: 50, MaxDuration: sec(5)}
			s.Profile = bench.Profile{}
			s.Capacity = &bench.CapacitySpec{Objective: "p99<=1s"}
		}, "warmup.maxDuration", "from 10s"},
		// its maximum counts towards the guardrail
		{"until steady too long", func(s *bench.RunSpec) {
			s.Warmup = bench.Warmup{UntilSteady: true, MaxDuration: bench.Duration(2 * time.Minute)}
			s.Profile.Stages[0].Duration = bench.Duration(9 * time.Minute)
		}, "profile.stages", "10m0s"},
		// warm-up plus profile over the maximum
		{"too long", func(s *bench.RunSpec) {
			s.Warmup.Duration = bench.Duration(time.Minute)
			s.Profile.Stages[0].Duration = bench.Duration(9 * time.Minute)
		}, "profile.stages", "10m0s"},
		// no CPU
		{"negative cpus", func(s *bench.RunSpec) { s.Limits.CPUs = -0.5 }, "limits.cpus", "above 0"},
		// too little memory for a JVM
		{"too little memory", func(s *bench.RunSpec) { s.Limits.MemoryMiB = 32 }, "limits.memoryMiB", "64"},
		// a stage too short to measure anything but start-up
		{"nanosecond stage", func(s *bench.RunSpec) { s.Profile.Stages[0].Duration = 1 }, "profile.stages[0].duration", "from 1s"},
		// a rate that sends nothing in any sensible time
		{"tiny rate", func(s *bench.RunSpec) { s.Profile.Stages[0].Rate = 1e-300 }, "profile.stages[0].rate", "0 or from 0.1"},
		// stages whose sum overflows int64 nanoseconds must not wrap past the guardrail
		{"overflowing stages", func(s *bench.RunSpec) {
			huge := bench.Duration(2562047 * time.Hour)
			s.Profile.Stages = []bench.Stage{{Duration: huge, Rate: 1}, {Duration: huge, Rate: 1}}
		}, "profile.stages[0].duration", "10m0s"},
		{"overflowing total", func(s *bench.RunSpec) {
			s.Profile.Stages = []bench.Stage{hold(500, 1), hold(500, 1)}
		}, "profile.stages", "above the configured maximum"},
		// an unknown variant of a known target
		{"unknown jdk", func(s *bench.RunSpec) { s.Targets = []string{"java-virtual@17"} }, "targets[0]", "jdk: 25, 21"},
		{"variant of a target without any", func(s *bench.RunSpec) { s.Targets = []string{"go@1.22"} }, "targets[0]", "no variants"},
		// Java options are checked before anything starts
		{"bogus gc", func(s *bench.RunSpec) { s.Java.GC = "bogus" }, "java.gc", "unknown garbage collector"},
		{"gc with flags", func(s *bench.RunSpec) { s.Java.GC = "-XX:+Foo -Dx=y" }, "java.gc", "unknown garbage collector"},
		{"negative tomcat threads", func(s *bench.RunSpec) { s.Java.TomcatMaxThreads = -5 }, "java.tomcatMaxThreads", "from 1 to 10000"},
		{"huge tomcat threads", func(s *bench.RunSpec) { s.Java.TomcatMaxThreads = 1e9 }, "java.tomcatMaxThreads", "from 1 to 10000"},
		{"huge parallelism", func(s *bench.RunSpec) { s.Java.VirtualParallelism = 100000 }, "java.virtualParallelism", "256"},
		{"heap above 100%", func(s *bench.RunSpec) { s.Java.HeapPercent = 101 }, "java.heapPercent", "at most 100"},
		// limits within the host
		{"more cpus than the host", func(s *bench.RunSpec) { s.Limits.CPUs = 1e9 }, "limits.cpus", "at most 2"},
		{"more memory than the host", func(s *bench.RunSpec) { s.Limits.MemoryMiB = 1e15 }, "limits.memoryMiB", "24576"},
		// a name is a label, not a payload
		{"long name", func(s *bench.RunSpec) { s.Name = strings.Repeat("x", 201) }, "name", "200"},
		{"control characters in name", func(s *bench.RunSpec) { s.Name = "a\nb\x00" }, "name", "control"},
		// labels are words too
		{"label key with =", func(s *bench.RunSpec) { s.Labels = map[string]string{"a=b": "c"} }, "labels", `key "a=b"`},
		{"empty label key", func(s *bench.RunSpec) { s.Labels = map[string]string{"": "c"} }, "labels", `key ""`},
		{"long label value", func(s *bench.RunSpec) { s.Labels = map[string]string{"branch": strings.Repeat("x", 201)} }, "labels.branch", "200"},
		{"control characters in a label", func(s *bench.RunSpec) { s.Labels = map[string]string{"commit": "a\nb"} }, "labels.commit", "control"},
		{"too many labels", func(s *bench.RunSpec) { s.Labels = manyLabels(33) }, "labels", "at most 32"},
		// the first problem wins: an unknown target before a bad stage
		{"first problem", func(s *bench.RunSpec) { s.Targets = []string{"x"}; s.Profile.Stages[0].Rate = -1 }, "targets[0]", "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := validSpec()
			tt.change(&rs)
			err := spec.Prepare(&rs, testCatalog(g))
			var e *bench.Error
			if !asError(err, &e) {
				t.Fatalf("PrepareSpec = %v, want a *bench.Error", err)
			}
			t.Log(err)
			if e.Code != bench.EINVALID || e.Field != tt.field {
				t.Errorf("error %s %q, want %s %q (%v)", e.Code, e.Field, bench.EINVALID, tt.field, err)
			}
			if !strings.Contains(e.Message, tt.says) {
				t.Errorf("message %q does not say %q", e.Message, tt.says)
			}
		})
	}
}

func TestPrepareSpecDefaultGuardrails(t *testing.T) {
	// zero guardrails mean the defaults, not "nothing allowed"
	rs := validSpec()
	if err := spec.Prepare(&rs, testCatalog(bench.Guardrails{})); err != nil {
		t.Errorf("zero guardrails: %v", err)
	}
	rs = validSpec()
	rs.Profile.Stages[0].Rate = bench.DefaultGuardrails.MaxRate + 1
	if err := spec.Prepare(&rs, testCatalog(bench.Guardrails{})); err == nil {
		t.Error("zero guardrails allow a rate above the default maximum")
	}
}

func sec(s float64) bench.Duration { return bench.Duration(s * float64(time.Second)) }

func hold(s, rate float64) bench.Stage { return bench.Stage{Duration: sec(s), Rate: rate} }

func ramp(s, rate float64) bench.Stage { return bench.Stage{Duration: sec(s), Rate: rate, Ramp: true} }

// Cases are checked as the specs they run under, their faults named
// inside the case; their targets become the run's.
func TestPrepareCases(t *testing.T) {
	valid := func() bench.RunSpec {
		s := validSpec()
		s.Targets = nil
		s.Cases = []bench.Case{
			{Name: "one-thread", Target: bench.TargetJavaPlatform, Java: &bench.JavaOptions{TomcatMaxThreads: 1}},
			{Name: "one-carrier", Target: bench.TargetJavaVirtual + "@21", Java: &bench.JavaOptions{VirtualParallelism: 1}},
			{Name: "go-native", Target: bench.TargetGo, Workload: &bench.Workload{Requests: []bench.Request{{Endpoint: "native"}}}},
		}
		return s
	}
	rs := valid()
	rs.Repeat = 3
	if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(rs.Targets, ","), "java-platform,java-virtual@21,go"; got != want {
		t.Errorf("targets %s, want the cases' %s", got, want)
	}
	if rs.Cases[2].Workload.Requests[0].Weight != 1 || rs.Cases[2].Workload.Timeout == 0 {
		t.Errorf("a case's workload got no defaults: %+v", rs.Cases[2].Workload)
	}
	eff := rs.ForCase(rs.Cases[0])
	if eff.Java.TomcatMaxThreads != 1 || eff.Java.HeapPercent != bench.DefaultHeapPercent || eff.Workload.Requests[0].Endpoint != "heavy" {
		t.Errorf("case settings: %+v %+v, want its pool over the rs's defaults and the rs's workload", eff.Java, eff.Workload)
	}
	for _, tt := range []struct {
		name   string
		change func(*bench.RunSpec)
		field  string
	}{
		{"targets and cases", func(s *bench.RunSpec) { s.Targets = []string{"go"} }, "targets"},
		{"unnamed case", func(s *bench.RunSpec) { s.Cases[1].Name = "" }, "cases[1].name"},
		{"case named twice", func(s *bench.RunSpec) { s.Cases[2].Name = "one-thread" }, "cases[2].name"},
		{"round marker in a name", func(s *bench.RunSpec) { s.Cases[0].Name = "a#2" }, "cases[0].name"},
		{"unknown target", func(s *bench.RunSpec) { s.Cases[0].Target = "rust" }, "cases[0].target"},
		{"bad java option in a case", func(s *bench.RunSpec) { s.Cases[0].Java.GC = "bogus" }, "cases[0].java.gc"},
		{"bad request in a case", func(s *bench.RunSpec) { s.Cases[2].Workload.Requests[0].Params = map[string]string{"work": "1"} }, "cases[2].workload.requests[0].params.work"},
		{"too many rounds", func(s *bench.RunSpec) { s.Repeat = 21 }, "repeat"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := valid()
			tt.change(&rs)
			err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails))
			var e *bench.Error
			if !asError(err, &e) || e.Field != tt.field {
				t.Errorf("Prepare = %v, want a fault in %s", err, tt.field)
			}
		})
	}
}

func TestPrepareIteration(t *testing.T) {
	valid := func() bench.RunSpec {
		s := closedSpec(bench.Stage{Duration: sec(5), Concurrency: 10})
		heavy := bench.Request{Name: "heavy", Endpoint: "heavy", Params: map[string]string{"duration": "500"}}
		s.Workload = bench.Workload{Iteration: []bench.Step{
			{Request: &heavy}, {Request: &bench.Request{Endpoint: "light"}},
			{Sleep: &bench.Sleep{Min: bench.Duration(100 * time.Millisecond)}},
		}}
		return s
	}
	rs := valid()
	if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil {
		t.Fatal(err)
	}
	if got := len(rs.Workload.IterationRequests()); got != 2 {
		t.Errorf("%d requests in the iteration, want 2", got)
	}
	for _, tt := range []struct {
		name   string
		change func(*bench.RunSpec)
		field  string
	}{
		{"open model", func(s *bench.RunSpec) { s.Profile = validSpec().Profile }, "workload.iteration"},
		{"requests too", func(s *bench.RunSpec) { s.Workload.Requests = []bench.Request{{Endpoint: "light"}} }, "workload.requests"},
		{"only sleeps", func(s *bench.RunSpec) { s.Workload.Iteration = s.Workload.Iteration[2:] }, "workload.iteration"},
		// An empty list is given all the same (api/openapi.yaml's minItems and "not both").
		{"empty iteration", func(s *bench.RunSpec) { s.Workload.Iteration = []bench.Step{} }, "workload.iteration"},
		{"empty requests beside it", func(s *bench.RunSpec) { s.Workload.Requests = []bench.Request{} }, "workload.requests"},
		{"step both", func(s *bench.RunSpec) { s.Workload.Iteration[2].Request = &bench.Request{Endpoint: "light"} }, "workload.iteration[2]"},
		{"empty step", func(s *bench.RunSpec) { s.Workload.Iteration[2].Sleep = nil }, "workload.iteration[2]"},
		{"bad param", func(s *bench.RunSpec) { s.Workload.Iteration[0].Request.Params["duration"] = "x" }, "workload.iteration[0].request.params.duration"},
		{"max below min", func(s *bench.RunSpec) { s.Workload.Iteration[2].Sleep.Max = 1 }, "workload.iteration[2].sleep.max"},
		{"one name, two requests", func(s *bench.RunSpec) { s.Workload.Iteration[1].Request.Name = "heavy" }, "workload.iteration[1].request.name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := valid()
			tt.change(&rs)
			err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails))
			var e *bench.Error
			if !asError(err, &e) || e.Field != tt.field {
				t.Errorf("Prepare = %v, want a fault in %s", err, tt.field)
			}
		})
	}
	// A sleep reads as a duration or as {min, max}.
	doc := "targets: [go]\nprofile: {model: closed, stages: [{duration: 5s, concurrency: 2}]}\nworkload:\n  iteration:\n    - request: {endpoint: light}\n    - sleep: 100ms\n    - sleep: {min: 50ms, max: 150ms}\n"
	got, err := spec.Decode([]byte(doc), "spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s := got.Workload.Iteration; s[1].Sleep.Min.D() != 100*time.Millisecond || s[2].Sleep.Max.D() != 150*time.Millisecond {
		t.Errorf("sleeps decoded as %+v, %+v", *s[1].Sleep, *s[2].Sleep)
	}
}

func TestPrepareDownstreamAndJDK(t *testing.T) {
	fanout := bench.Request{Endpoint: "fanout", Params: map[string]string{"calls": "200", "mode": "semaphore", "limit": "20"}}
	valid := func() bench.RunSpec {
		s := validSpec()
		s.Workload.Requests = []bench.Request{fanout}
		s.Downstream = &bench.Downstream{Target: bench.TargetJavaPlatform, Workers: 40}
		s.Java.JDK = 21
		return s
	}
	rs := valid()
	if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil {
		t.Fatal(err)
	}
	if l := rs.DownstreamLimits(); l != rs.Limits {
		t.Errorf("downstream limits %+v, want the rs's %+v", l, rs.Limits)
	}
	for _, tt := range []struct {
		name   string
		change func(*bench.RunSpec)
		field  string
	}{
		{"fan-out without a downstream", func(s *bench.RunSpec) { s.Downstream = nil }, "workload.requests[0].endpoint"},
		{"unknown downstream", func(s *bench.RunSpec) { s.Downstream.Target = "nginx" }, "downstream.target"},
		{"no workers", func(s *bench.RunSpec) { s.Downstream.Workers = 0 }, "downstream.workers"},
		{"downstream bigger than the host", func(s *bench.RunSpec) { s.Downstream.Limits.CPUs = 64 }, "downstream.limits.cpus"},
		{"unknown JDK", func(s *bench.RunSpec) { s.Java.JDK = 17 }, "java.jdk"},
		{"bad fan-out mode", func(s *bench.RunSpec) { s.Workload.Requests[0].Params["mode"] = "threads" }, "workload.requests[0].params.mode"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := valid()
			tt.change(&rs)
			err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails))
			var e *bench.Error
			if !asError(err, &e) || e.Field != tt.field {
				t.Errorf("Prepare = %v, want a fault in %s", err, tt.field)
			}
		})
	}
}

// Images are the operator's choice: a daemon's callers may not name one, in
// the spec or in a case; a local run's user may.
func TestPrepareImages(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(*bench.RunSpec)
		field  string
	}{
		{"spec", func(s *bench.RunSpec) { s.Java.BaseImage = "127.0.0.1:5999/evil/jre:1" }, "java.baseImage"},
		{"case", func(s *bench.RunSpec) {
			s.Targets = nil
			s.Cases = []bench.Case{{Name: "x", Target: "java-virtual", Java: &bench.JavaOptions{BaseImage: "evil/jre:1"}}}
		}, "cases[0].java.baseImage"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := validSpec()
			tt.change(&rs)
			err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails))
			var e *bench.Error
			if !asError(err, &e) || e.Field != tt.field {
				t.Errorf("daemon: Prepare = %v, want a fault in %s", err, tt.field)
			}
			local := testCatalog(bench.DefaultGuardrails)
			local.AllowImages = true
			rs = validSpec()
			tt.change(&rs)
			if err := spec.Prepare(&rs, local); err != nil {
				t.Errorf("local run: %v", err)
			}
		})
	}
}

// A written-out profile's own workload is checked even when the spec's
// replaces it: it is stored with the run (found by schemathesis).
func TestPrepareProfileWorkload(t *testing.T) {
	rs := validSpec()
	rs.Profile.Workload = &bench.Workload{Requests: []bench.Request{{Endpoint: "light", Weight: -1}}}
	err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails))
	var e *bench.Error
	if !asError(err, &e) || e.Field != "profile.workload.requests[0].weight" {
		t.Errorf("Prepare = %v, want a fault in profile.workload.requests[0].weight", err)
	}
	rs = validSpec()
	rs.Profile.Scale = -1
	if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); !asError(err, &e) || e.Field != "profile.scale" {
		t.Errorf("negative scale: %v", err)
	}
}

func TestApplyDefaults_WarmupUntilSteady(t *testing.T) {
	rs := bench.RunSpec{Warmup: bench.Warmup{UntilSteady: true}}
	rs.ApplyDefaults()
	w := rs.Warmup
	// No fixed length or rate: it runs at the first stage's load.
	if w.MaxDuration != bench.DefaultWarmupMaxDuration || w.Window != bench.DefaultWarmupWindow || w.Duration != 0 || w.Rate != 0 {
		t.Errorf("warm-up = %+v, want maxDuration %s, window %s, no duration or rate", w, bench.DefaultWarmupMaxDuration, bench.DefaultWarmupWindow)
	}
	if got, want := w.Planned(), bench.DefaultWarmupMaxDuration; got != want {
		t.Errorf("Planned = %s, want %s", got, want)
	}
}

// A warm-up until steady that names no window is judged over as many
// seconds as its first stage, the test that stage is then put to: at least
// 10 s, at most half its maximum (when that is over 10 s). A window named
// is kept.
func TestApplyDefaults_WarmupWindowFollowsTheStage(t *testing.T) {
	for _, tt := range []struct {
		name       string
		stage, max bench.Duration
		window     bench.Duration // named in the rs, 0 for none
		want       bench.Duration
	}{
		{"a 30 s stage", sec(30), 0, 0, sec(30)},
		{"a 5 s stage", sec(5), 0, 0, bench.DefaultWarmupWindow},
		{"a 5 min stage, 2 min at most", sec(300), 0, 0, sec(60)},
		{"a 30 s stage, 40 s at most", sec(30), sec(40), 0, sec(20)},
		{"a 30 s stage, 15 s at most", sec(30), sec(15), 0, bench.DefaultWarmupWindow},
		{"a window named", sec(30), 0, sec(7), sec(7)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := closedSpec(bench.Stage{Duration: tt.stage, Concurrency: 10})
			rs.Warmup = bench.Warmup{UntilSteady: true, MaxDuration: tt.max, Window: tt.window}
			rs.ApplyDefaults()
			if rs.Warmup.Window != tt.want {
				t.Errorf("window = %s, want %s", rs.Warmup.Window, tt.want)
			}
		})
	}
	rs := validSpec() // and Prepare keeps it valid: the window never passes the maximum
	rs.Profile = bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{{Duration: sec(30), Concurrency: 10}}}
	rs.Warmup = bench.Warmup{UntilSteady: true, MaxDuration: sec(12)}
	if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil || rs.Warmup.Window != bench.DefaultWarmupWindow {
		t.Errorf("Prepare = %v, window %s; want valid, %s", err, rs.Warmup.Window, bench.DefaultWarmupWindow)
	}
}

// A service of one's own serves no contract endpoint: every request a spec
// (or a case) sends it must be its own, by uri; the first by endpoint is
// named. The built-in targets take either.
func TestPrepareOwnService(t *testing.T) {
	catalog := testCatalog(bench.DefaultGuardrails)
	catalog.Targets = append(catalog.Targets, bench.TargetInfo{Name: "orders", Kind: "java", Variant: bench.VariantOwn, Variants: []string{"platform", "virtual"}, Own: true})
	own := func(reqs ...bench.Request) bench.RunSpec {
		s := validSpec()
		s.Targets = []string{"go", "orders@virtual"}
		s.Workload = bench.Workload{Requests: reqs}
		return s
	}
	byURI, byEndpoint := bench.Request{URI: "/orders"}, bench.Request{Endpoint: "light"}
	for _, tt := range []struct {
		name  string
		rs    bench.RunSpec
		field string // "" when valid
	}{
		{"own requests", own(byURI, bench.Request{URI: "/orders?page=2", Method: "POST"}), ""},
		{"an endpoint", own(byURI, byEndpoint), "workload.requests[1].endpoint"},
		{"no request at all", own(), "workload.requests"},
		{"an endpoint in an iteration", func() bench.RunSpec {
			s := closedSpec(bench.Stage{Duration: sec(10), Concurrency: 2})
			s.Targets = []string{"orders@platform"}
			s.Workload = bench.Workload{Iteration: []bench.Step{{Request: &byURI}, {Request: &byEndpoint}}}
			return s
		}(), "workload.iteration[1].request.endpoint"},
		{"an endpoint in a case of its own", func() bench.RunSpec {
			s := own(byURI)
			s.Targets = nil
			s.Cases = []bench.Case{{Name: "go", Target: "go"}, {Name: "mine", Target: "orders", Workload: &bench.Workload{Requests: []bench.Request{byEndpoint}}}}
			return s
		}(), "cases[1].workload.requests[0].endpoint"},
		{"a built-in target, either", func() bench.RunSpec { s := own(byURI, byEndpoint); s.Targets = []string{"go"}; return s }(), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := tt.rs
			err := spec.Prepare(&rs, catalog)
			var e *bench.Error
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("Prepare = %v, want it valid", err)
			case tt.field != "" && (!asError(err, &e) || e.Field != tt.field || !strings.Contains(e.Message, "is a service of your own, which serves no contract endpoint")):
				t.Errorf("Prepare = %v, want a fault in %s", err, tt.field)
			}
		})
	}
}

// A database is checked field by field before anything starts; /api/db
// without one is refused on the request that asks it.
func TestPrepareDatabase(t *testing.T) {
	valid := func() bench.RunSpec {
		s := validSpec()
		s.Workload.Requests = []bench.Request{{Endpoint: "db", Params: map[string]string{"delay": "20"}}}
		s.Database = &bench.Database{Kind: bench.DatabasePostgres, Pool: 100}
		return s
	}
	rs := valid()
	if err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails)); err != nil {
		t.Fatal(err)
	}
	if l := rs.DatabaseLimits(); l != rs.Limits || rs.Database.PoolSize() != 100 {
		t.Errorf("database limits %+v pool %d, want the rs's %+v and 100", l, rs.Database.PoolSize(), rs.Limits)
	}
	if got := (bench.Database{Kind: "postgres"}).PoolSize(); got != bench.DefaultDatabasePool {
		t.Errorf("default pool %d, want HikariCP's %d", got, bench.DefaultDatabasePool)
	}
	for _, tt := range []struct {
		name   string
		change func(*bench.RunSpec)
		field  string
	}{
		{"db endpoint without a database", func(s *bench.RunSpec) { s.Database = nil }, "workload.requests[0].endpoint"},
		{"unknown kind", func(s *bench.RunSpec) { s.Database.Kind = "oracle" }, "database.kind"},
		{"pool too large", func(s *bench.RunSpec) { s.Database.Pool = bench.MaxDatabasePool + 1 }, "database.pool"},
		{"negative pool", func(s *bench.RunSpec) { s.Database.Pool = -1 }, "database.pool"},
		{"init too long", func(s *bench.RunSpec) { s.Database.Init = strings.Repeat("x", bench.MaxDatabaseInit+1) }, "database.init"},
		{"not a variable's name", func(s *bench.RunSpec) { s.Database.Env.URL = "DB URL=1" }, "database.env.url"},
		{"database bigger than the host", func(s *bench.RunSpec) { s.Database.Limits.CPUs = 64 }, "database.limits.cpus"},
		{"delay out of range", func(s *bench.RunSpec) { s.Workload.Requests[0].Params["delay"] = "60001" }, "workload.requests[0].params.delay"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := valid()
			tt.change(&rs)
			err := spec.Prepare(&rs, testCatalog(bench.DefaultGuardrails))
			var e *bench.Error
			if !asError(err, &e) || e.Field != tt.field {
				t.Errorf("Prepare = %v, want a fault in %s", err, tt.field)
			}
		})
	}
}

// A service of one's own configured with its database brings it to a run
// that names the service and starts none; a run that starts one keeps it,
// with the variable names the service reads; two services configured with
// different servers are refused, as is a database beside a remote engine.
func TestPrepareConfiguredDatabase(t *testing.T) {
	c := testCatalog(bench.DefaultGuardrails)
	c.Engines = []bench.CatalogEngine{{Name: "lab", Machine: bench.Machine{CPUs: 8, MemoryBytes: 16 << 30}}}
	orders := &bench.Database{Kind: bench.DatabasePostgres, Init: "create table t (id int);", Pool: 20,
		Env: bench.DatabaseEnv{URL: "QUARKUS_DATASOURCE_JDBC_URL"}}
	c.Targets = append(c.Targets,
		bench.TargetInfo{Name: "orders", Kind: "java", Own: true, Variant: "variant", Variants: []string{"platform", "virtual"}, DefaultVariant: "platform", Database: orders},
		bench.TargetInfo{Name: "billing", Kind: "java", Own: true, Database: &bench.Database{Kind: bench.DatabaseMySQL}},
		bench.TargetInfo{Name: "plain", Kind: "java", Own: true})
	own := func(targets ...string) bench.RunSpec {
		s := validSpec()
		s.Targets = targets
		s.Workload.Requests = []bench.Request{{URI: "/api/orders"}}
		return s
	}
	rs := own("orders@virtual", "plain")
	if err := spec.Prepare(&rs, c); err != nil {
		t.Fatal(err)
	}
	if rs.Database == nil || *rs.Database != *orders || rs.Database == orders {
		t.Errorf("database %+v, want a copy of the configured %+v", rs.Database, orders)
	}
	rs = own("orders")
	rs.Database = &bench.Database{Kind: bench.DatabaseMySQL}
	if err := spec.Prepare(&rs, c); err != nil {
		t.Fatal(err)
	}
	if d := rs.Database; d.Kind != bench.DatabaseMySQL || d.Init != "" || d.Env != orders.Env {
		t.Errorf("database %+v, want the run's mysql with the service's variable names %+v", d, orders.Env)
	}
	rs = own("plain")
	if err := spec.Prepare(&rs, c); err != nil || rs.Database != nil {
		t.Errorf("a service configured with none: database %+v, err %v; want none", rs.Database, err)
	}
	for _, tt := range []struct {
		name  string
		rs    bench.RunSpec
		field string
	}{
		{"two servers", own("orders", "billing"), "targets"},
		{"remote engine", func() bench.RunSpec { s := own("orders"); s.Engine = "lab"; return s }(), "database"},
	} {
		err := spec.Prepare(&tt.rs, c)
		var e *bench.Error
		if !asError(err, &e) || e.Field != tt.field {
			t.Errorf("%s: Prepare = %v, want a fault in %s", tt.name, err, tt.field)
		}
	}
}

// A service reads its datasource from Spring Boot's variables unless the
// spec names others; the built-in targets read the contract's DB_*.
func TestDatabaseConnEnv(t *testing.T) {
	c := bench.DatabaseConn{Kind: bench.DatabaseMySQL, Host: "127.0.0.1", Port: 3307, Name: "threadbench", User: "u", Password: "p"}
	env := c.Env(10, bench.Database{Env: bench.DatabaseEnv{URL: "QUARKUS_DATASOURCE_JDBC_URL"}}.EnvNames())
	for k, want := range map[string]string{
		"QUARKUS_DATASOURCE_JDBC_URL": "jdbc:mysql://127.0.0.1:3307/threadbench", "SPRING_DATASOURCE_USERNAME": "u",
		"SPRING_DATASOURCE_HIKARI_MAXIMUMPOOLSIZE": "10", bench.EnvDBKind: "mysql", bench.EnvDBPort: "3307",
	} {
		if env[k] != want {
			t.Errorf("%s = %q, want %q", k, env[k], want)
		}
	}
	if _, ok := env["SPRING_DATASOURCE_URL"]; ok {
		t.Error("SPRING_DATASOURCE_URL set though the spec named another variable for the URL")
	}
	if got, want := c.DSN(), "u:p@tcp(127.0.0.1:3307)/threadbench"; got != want {
		t.Errorf("mysql DSN %q, want %q", got, want)
	}
	pg := bench.DatabaseConn{Kind: bench.DatabasePostgres, Host: "127.0.0.1", Port: 5433, Name: "threadbench", User: "u", Password: "p"}
	if got, want := pg.DSN(), "postgres://u:p@127.0.0.1:5433/threadbench?sslmode=disable"; got != want {
		t.Errorf("postgres DSN %q, want %q", got, want)
	}
}

// manyLabels returns n labels k0=v ... k(n-1)=v.
func manyLabels(n int) map[string]string {
	labels := map[string]string{}
	for i := range n {
		labels[fmt.Sprintf("k%d", i)] = "v"
	}
	return labels
}
