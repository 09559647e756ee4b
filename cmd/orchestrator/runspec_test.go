package main

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/spec"
	"github.com/threadbench/threadbench/internal/targets"
)

// parseSpec parses run flags the way the run command registers them and
// builds the spec from them.
func parseSpec(t *testing.T, args ...string) (bench.RunSpec, error) {
	t.Helper()
	return parseSpecEnv(t, nil, args...)
}

// parseSpecEnv is parseSpec in an environment of env.
func parseSpecEnv(t *testing.T, env map[string]string, args ...string) (bench.RunSpec, error) {
	t.Helper()
	var f specFlags
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	f.register(fs, targets.DefaultCatalog().DefaultNames())
	fs.String("java-base-image", "", "")
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return f.spec(fs, func(k string) string { return env[k] })
}

func secs(n float64) bench.Duration { return bench.Duration(n * float64(time.Second)) }

// fullSpec is what testdata/spec/full.yaml and full.json hold.
func fullSpec() bench.RunSpec {
	return bench.RunSpec{
		Name:    "nightly",
		Targets: []string{"go", "java-virtual"},
		Profile: bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{
			{Name: "warm", Duration: secs(5), Rate: 20, Ramp: true},
			{Name: "hold", Duration: secs(10), Rate: 40},
		}},
		Workload: bench.Workload{
			Requests: []bench.Request{
				{Endpoint: "heavy", Params: map[string]string{"duration": "200"}, Weight: 3},
				{Endpoint: "light"},
			},
			Timeout: secs(2),
		},
		Warmup: bench.Warmup{Duration: secs(4), Rate: 10},
		Limits: bench.Limits{CPUs: 1.5, MemoryMiB: 768},
		Java:   bench.JavaOptions{TomcatMaxThreads: 100, GC: "G1"},
	}
}

// with returns fullSpec changed by edit.
func with(edit func(*bench.RunSpec)) bench.RunSpec {
	s := fullSpec()
	edit(&s)
	return s
}

func TestSpecFlags(t *testing.T) {
	allTargets := targets.DefaultCatalog().DefaultNames()
	smoke := bench.Profile{Name: "smoke"}
	twoSteps := bench.Profile{Name: "two-steps", Model: bench.ModelClosed, Stages: []bench.Stage{
		{Name: "c4", Duration: secs(3), Concurrency: 4},
		{Name: "c8", Duration: secs(3), Concurrency: 8},
	}}
	for _, tt := range []struct {
		name string
		args []string
		want bench.RunSpec
	}{
		// No flags: every target, the smoke profile by name, nothing else
		// (defaults are PrepareSpec's job).
		{"Defaults", nil, bench.RunSpec{Targets: allTargets, Profile: smoke}},
		// One endpoint with its parameters, weight 1.
		{"EndpointWithParams", []string{"--targets", "go", "--endpoint", "heavy", "--param", "duration=500"},
			bench.RunSpec{Targets: []string{"go"}, Profile: smoke, Workload: bench.Workload{Requests: []bench.Request{
				{Endpoint: "heavy", Params: map[string]string{"duration": "500"}, Weight: 1},
			}}}},
		// Parameters given in one comma-separated --param.
		{"EndpointParamsCommaSeparated", []string{"-e", "cpu", "--param", "work=10,extra=1"},
			bench.RunSpec{Targets: allTargets, Profile: smoke, Workload: bench.Workload{Requests: []bench.Request{
				{Endpoint: "cpu", Params: map[string]string{"work": "10", "extra": "1"}, Weight: 1},
			}}}},
		// A weighted mix: weight after @, 1 when left out, in the given order.
		{"WeightedMix", []string{"--request", "heavy?duration=500@2", "--request", "light"},
			bench.RunSpec{Targets: allTargets, Profile: smoke, Workload: bench.Workload{Requests: []bench.Request{
				{Endpoint: "heavy", Params: map[string]string{"duration": "500"}, Weight: 2},
				{Endpoint: "light", Weight: 1},
			}}}},
		// The same mix in one flag; several parameters joined with &.
		{"WeightedMixOneFlag", []string{"--request", "native?duration=5&x=1@3,light@1"},
			bench.RunSpec{Targets: allTargets, Profile: smoke, Workload: bench.Workload{Requests: []bench.Request{
				{Endpoint: "native", Params: map[string]string{"duration": "5", "x": "1"}, Weight: 3},
				{Endpoint: "light", Weight: 1},
			}}}},
		// A vegeta targets file: its requests, the host dropped; the load engine by flag.
		{"TargetsFile", []string{"--requests", "testdata/targets/shop.txt", "--load-engine", "vegeta"},
			bench.RunSpec{Targets: allTargets, Profile: bench.Profile{Name: "smoke", Engine: "vegeta"}, Workload: bench.Workload{Requests: []bench.Request{
				{URI: "/api/light", Weight: 2},
				{URI: "/api/heavy?duration=5", Method: "POST", Header: map[string][]string{"X-Shop": {"1"}}, Weight: 1},
			}}}},
		// --no-warmup disables the warm-up.
		{"NoWarmup", []string{"--no-warmup"},
			bench.RunSpec{Targets: allTargets, Profile: smoke, Warmup: bench.Warmup{Disabled: true}}},
		// --no-warmup=false leaves the warm-up on.
		{"NoWarmupFalse", []string{"--no-warmup=false"},
			bench.RunSpec{Targets: allTargets, Profile: smoke}},
		// A built-in profile by name, with a scale.
		{"ProfileName", []string{"-p", "ramp", "--scale", "0.5"},
			bench.RunSpec{Targets: allTargets, Profile: bench.Profile{Name: "ramp", Scale: 0.5}}},
		// A profile file is read whole.
		{"ProfileFile", []string{"--profile", "testdata/profile/two-steps.yaml"},
			bench.RunSpec{Targets: allTargets, Profile: twoSteps}},
		// Every other knob lands in its field.
		{"Knobs", []string{"--name", "n1", "--timeout", "5s", "--warmup", "3s", "--warmup-rate", "7",
			"--cpus", "2", "--memory", "512", "--tomcat-max-threads", "50", "--virtual-parallelism", "2",
			"--heap-percent", "60", "--gc", "Z", "--java-base-image", "jre:25"},
			bench.RunSpec{Name: "n1", Targets: allTargets, Profile: smoke,
				Workload: bench.Workload{Timeout: secs(5)},
				Warmup:   bench.Warmup{Duration: secs(3), Rate: 7},
				Limits:   bench.Limits{CPUs: 2, MemoryMiB: 512},
				Java:     bench.JavaOptions{TomcatMaxThreads: 50, VirtualParallelism: 2, HeapPercent: 60, GC: "Z", BaseImage: "jre:25"}}},
		// A warm-up until steady, with its maximum.
		{"WarmupUntilSteady", []string{"--warmup-until-steady", "--warmup-max", "90s"},
			bench.RunSpec{Targets: allTargets, Profile: smoke, Warmup: bench.Warmup{UntilSteady: true, MaxDuration: secs(90)}}},
		// --repeat: rounds of the targets.
		{"Repeat", []string{"--targets", "go,java-virtual", "--repeat", "3"},
			bench.RunSpec{Targets: []string{"go", "java-virtual"}, Profile: smoke, Repeat: 3}},
		// A YAML spec file, read as it is.
		{"SpecFileYAML", []string{"-f", "testdata/spec/full.yaml"}, fullSpec()},
		// The same spec in JSON reads the same.
		{"SpecFileJSON", []string{"--spec", "testdata/spec/full.json"}, fullSpec()},
		// Flags override the file's fields; the rest of the file stays.
		{"SpecFileFlagsOverride", []string{"-f", "testdata/spec/full.yaml", "--targets", "java-platform",
			"--name", "override", "--cpus", "3", "--timeout", "9s", "--no-warmup", "--gc", "Z"},
			with(func(s *bench.RunSpec) {
				s.Name, s.Targets, s.Limits.CPUs, s.Workload.Timeout = "override", []string{"java-platform"}, 3, secs(9)
				s.Warmup.Disabled, s.Java.GC = true, "Z"
			})},
		// --endpoint replaces the file's requests.
		{"SpecFileEndpointReplacesRequests", []string{"-f", "testdata/spec/full.json", "-e", "light"},
			with(func(s *bench.RunSpec) {
				s.Workload.Requests = []bench.Request{{Endpoint: "light", Params: map[string]string{}, Weight: 1}}
			})},
		// --request replaces the file's requests too (it does not add to them).
		{"SpecFileRequestReplacesRequests", []string{"-f", "testdata/spec/full.yaml", "--request", "cpu?work=5@2"},
			with(func(s *bench.RunSpec) {
				s.Workload.Requests = []bench.Request{{Endpoint: "cpu", Params: map[string]string{"work": "5"}, Weight: 2}}
			})},
		// --profile replaces the file's profile.
		{"SpecFileProfileFlag", []string{"-f", "testdata/spec/full.yaml", "--profile", "steps"},
			with(func(s *bench.RunSpec) { s.Profile = bench.Profile{Name: "steps"} })},
		// A file naming a built-in profile keeps it: the flag's default does not apply.
		{"SpecFileBuiltinProfile", []string{"-f", "testdata/spec/builtin-profile.yaml"},
			bench.RunSpec{Profile: bench.Profile{Name: "ramp"}}},
		// A file without a profile gets the --profile default.
		{"SpecFileNoProfile", []string{"-f", "testdata/spec/no-profile.yaml"},
			bench.RunSpec{Targets: []string{"go"}, Profile: smoke}},
		// A YAML file in flow style is YAML, not JSON, though it starts with "{".
		{"SpecFileYAMLFlowStyle", []string{"-f", "testdata/spec/flow.yaml"},
			bench.RunSpec{Targets: []string{"go"}, Profile: bench.Profile{Name: "ramp"},
				Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light"}}}}},
		// Query parameters written as YAML numbers read as their text, as in profile files.
		{"SpecFileNumericParams", []string{"-f", "testdata/spec/numeric-params.yaml"},
			bench.RunSpec{Targets: []string{"go"}, Profile: smoke, Workload: bench.Workload{Requests: []bench.Request{
				{Endpoint: "heavy", Params: map[string]string{"duration": "500"}, Weight: 2},
				{Endpoint: "cpu", Params: map[string]string{"work": "1000"}},
			}}}},
		// A file's profile without stages stays as written, for PrepareSpec
		// to refuse, instead of turning silently into smoke.
		{"SpecFileEmptyStages", []string{"-f", "testdata/spec/empty-stages.yaml"},
			bench.RunSpec{Targets: []string{"go"}, Profile: bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{}},
				Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light"}}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseSpec(t, tt.args...)
			if err != nil {
				t.Fatalf("spec: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("spec\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// The warm-up a run's flags end in, once prepared: until steady unless a
// duration or a rate makes it fixed; a share of the load only until steady.
func TestWarmupFlagsPrepared(t *testing.T) {
	catalog := bench.Catalog{Targets: []bench.TargetInfo{{Name: "go", Kind: "go"}, {Name: "java-platform", Kind: "java"}, {Name: "java-virtual", Kind: "java"}}, Builtins: builtin.Set}
	for _, tt := range []struct {
		args []string
		want bench.Warmup
	}{
		{nil, bench.Warmup{UntilSteady: true, MaxDuration: bench.DefaultWarmupMaxDuration, Window: bench.DefaultWarmupWindow}},
		{[]string{"--warmup-fraction", "0.5", "--warmup-max", "1m"}, bench.Warmup{UntilSteady: true, MaxDuration: secs(60), Window: bench.DefaultWarmupWindow, Fraction: 0.5}},
		{[]string{"--warmup-rate", "20"}, bench.Warmup{Duration: bench.DefaultWarmupDuration, Rate: 20}},
		{[]string{"--warmup", "3s"}, bench.Warmup{Duration: secs(3), Rate: bench.DefaultWarmupRate}},
		{[]string{"--no-warmup"}, bench.Warmup{Disabled: true}},
	} {
		rs, err := parseSpec(t, tt.args...)
		if err == nil {
			err = spec.Prepare(&rs, catalog)
		}
		if err != nil || rs.Warmup != tt.want {
			t.Errorf("%v: %+v, %v; want %+v", tt.args, rs.Warmup, err, tt.want)
		}
	}
	rs, err := parseSpec(t, "--warmup", "3s", "--warmup-fraction", "0.5")
	if err == nil {
		err = spec.Prepare(&rs, catalog)
	}
	var e *bench.Error
	if !errors.As(err, &e) || e.Field != "warmup.fraction" {
		t.Errorf("a share of a fixed warm-up: %v, want an error naming warmup.fraction", err)
	}
}

func TestSpecFlagsErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		args  []string
		field string
	}{
		// --param belongs to --endpoint.
		{"ErrParamWithoutEndpoint", []string{"--param", "duration=5"}, "workload"},
		// One way of naming requests at a time.
		{"ErrEndpointAndRequest", []string{"-e", "heavy", "--request", "light"}, "workload"},
		// A parameter without a value.
		{"ErrParamNotPair", []string{"-e", "heavy", "--param", "duration"}, "workload.requests[0].params"},
		// Weights are positive integers.
		{"ErrWeightZero", []string{"--request", "light@0"}, "workload.requests[0]"},
		// ...and integers at all; the field is the flag's index.
		{"ErrWeightNotNumber", []string{"--request", "light", "--request", "heavy@x"}, "workload.requests[1]"},
		// A parameter in a request without a value.
		{"ErrRequestParamNotPair", []string{"--request", "heavy?duration"}, "workload.requests[0]"},
		// A path that is no file and no built-in.
		{"ErrProfileFileMissing", []string{"-p", "testdata/profile/nope.yaml"}, "profile"},
		// A spec file that is not there.
		{"ErrSpecFileMissing", []string{"-f", "testdata/spec/nope.yaml"}, "spec"},
		// Unknown fields in a spec file are refused.
		{"ErrSpecUnknownField", []string{"-f", "testdata/spec/unknown-field.yaml"}, "threads"},
		// So is YAML that does not parse.
		{"ErrSpecMalformed", []string{"-f", "testdata/spec/malformed.yaml"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseSpec(t, tt.args...)
			var be *bench.Error
			if !errors.As(err, &be) {
				t.Fatalf("error %v, want a *bench.Error", err)
			}
			if got, want := be.Code, bench.EINVALID; got != want {
				t.Errorf("code %q, want %q", got, want)
			}
			if got, want := be.Field, tt.field; got != want {
				t.Errorf("field %q, want %q (%v)", got, want, err)
			}
		})
	}
}

func TestParseRequest(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bench.Request
	}{
		// Endpoint alone: weight 1, no parameters.
		{"light", bench.Request{Endpoint: "light", Weight: 1}},
		// Parameters and a weight.
		{"heavy?duration=500@2", bench.Request{Endpoint: "heavy", Params: map[string]string{"duration": "500"}, Weight: 2}},
		// A weight without parameters.
		{"cpu@10", bench.Request{Endpoint: "cpu", Weight: 10}},
		// An empty value is a value.
		{"heavy?duration=", bench.Request{Endpoint: "heavy", Params: map[string]string{"duration": ""}, Weight: 1}},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseRequest(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseRequest(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}
