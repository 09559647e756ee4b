package bench_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/threadbench/threadbench/internal/bench"
)

func TestDurationJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{`"30s"`, 30 * time.Second, ""},
		{`"1m30s"`, 90 * time.Second, ""},
		{`"250ms"`, 250 * time.Millisecond, ""},
		{`30`, 0, "must be a string"}, // a bare number's unit would be a guess
		{`"thirty"`, 0, `invalid duration "thirty"`},
	}
	for _, tt := range tests {
		var d bench.Duration
		err := json.Unmarshal([]byte(tt.in), &d)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || d.D() != tt.want {
			t.Errorf("%s: got %v, %v; want %v", tt.in, d.D(), err, tt.want)
		}
		if out, _ := json.Marshal(d); string(out) != fmt.Sprintf("%q", tt.want.String()) {
			t.Errorf("%s: marshals as %s", tt.in, out)
		}
	}
	var y struct {
		D bench.Duration `yaml:"d"`
	}
	if err := yaml.Unmarshal([]byte("d: 2m"), &y); err != nil || y.D.D() != 2*time.Minute {
		t.Errorf("yaml: got %v, %v; want 2m", y.D.D(), err)
	}
}

func TestProfileIsANameOrAnObject(t *testing.T) {
	var byName, object bench.RunSpec
	if err := json.Unmarshal([]byte(`{"targets":["go"],"profile":"smoke"}`), &byName); err != nil {
		t.Fatal(err)
	}
	if byName.Profile.Name != "smoke" || len(byName.Profile.Stages) != 0 {
		t.Errorf("by name: %+v", byName.Profile)
	}
	err := json.Unmarshal([]byte(`{"profile":{"model":"closed","stages":[{"duration":"5s","concurrency":10}]}}`), &object)
	if err != nil {
		t.Fatal(err)
	}
	if object.Profile.Model != bench.ModelClosed || object.Profile.Stages[0].Concurrency != 10 {
		t.Errorf("object: %+v", object.Profile)
	}
	err = json.Unmarshal([]byte(`{"profile":{"stages":[],"bogus":1}}`), &object)
	if err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("unknown profile field: error %v, want one naming it", err)
	}
}

func TestApplyDefaults(t *testing.T) {
	spec := bench.RunSpec{Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "light"}}}}
	spec.ApplyDefaults()
	if spec.Profile.Model != bench.ModelOpen || spec.Workload.Requests[0].Weight != 1 || spec.Workload.Timeout != bench.DefaultTimeout ||
		!spec.Warmup.UntilSteady || spec.Warmup.MaxDuration != bench.DefaultWarmupMaxDuration || spec.Warmup.Duration != 0 || spec.Limits.CPUs != 1 || spec.Limits.MemoryMiB != 1024 ||
		spec.Java.TomcatMaxThreads != 200 {
		t.Errorf("defaults not applied: %+v", spec)
	}
	// A rate alone is a fixed warm-up of the default length; a capacity
	// search's warm-up is fixed too.
	fixed := bench.RunSpec{Warmup: bench.Warmup{Rate: 20}}
	fixed.ApplyDefaults()
	search := bench.RunSpec{Capacity: &bench.CapacitySpec{}}
	search.ApplyDefaults()
	for _, s := range []bench.RunSpec{fixed, search} {
		if w := s.Warmup; w.UntilSteady || w.Duration != bench.DefaultWarmupDuration || w.Rate == 0 {
			t.Errorf("warm-up %+v, want a fixed one of %s", w, bench.DefaultWarmupDuration)
		}
	}
	off := bench.RunSpec{Warmup: bench.Warmup{Disabled: true}}
	off.ApplyDefaults()
	if off.Warmup.Duration != 0 {
		t.Error("a disabled warm-up got a duration")
	}
}

func TestErrors(t *testing.T) {
	field := bench.FieldErrorf("profile.stages[1].rate", "must be at most %d", 100)
	wrapped := fmt.Errorf("prepare: %w", field)
	if got := bench.ErrorCode(wrapped); got != bench.EINVALID {
		t.Errorf("code through wrapping = %q", got)
	}
	if got, want := bench.ErrorMessage(wrapped), "profile.stages[1].rate: must be at most 100"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	if got := bench.ErrorMessage(errors.New("disk on fire at 0xdeadbeef")); got != "internal error" {
		t.Errorf("an untyped error leaks as %q", got)
	}
	if bench.ErrorCode(nil) != "" || bench.ErrorCode(errors.New("x")) != bench.EINTERNAL {
		t.Error("ErrorCode of nil or untyped errors is wrong")
	}
}

func TestEndpointPath(t *testing.T) {
	if got := (bench.Request{Endpoint: "heavy", Params: map[string]string{"duration": "500"}}).Path(); got != "/api/heavy?duration=500" {
		t.Errorf("path = %q", got)
	}
	if got := bench.EndpointPath("light", nil); got != "/api/light" {
		t.Errorf("path = %q", got)
	}
	if got := strings.Join(bench.EndpointNames(), ","); got != "light,heavy,cpu,native,synchronized,lock,fanout,downstream,db" {
		t.Errorf("endpoints = %s", got)
	}
}

func TestRunStatusFinished(t *testing.T) {
	for _, s := range bench.RunStatuses {
		want := s != bench.RunQueued && s != bench.RunRunning
		if s.Finished() != want {
			t.Errorf("%s.Finished() = %v", s, s.Finished())
		}
	}
}

// An environment's host facts are one embedded Machine: its documents keep
// the names and the order of fields they had when each struct spelled them
// out, so stored runs and reports read the same.
func TestEnvironmentJSON(t *testing.T) {
	m := bench.Machine{Host: "h", OS: "linux", Kernel: "6.1", CPUModel: "x", CPUs: 2, MemoryBytes: 1, DockerVersion: "20.10", CgroupVersion: "2"}
	env := bench.Environment{Machine: m, OrchestratorGo: "go1.26.8", LoadCPUSet: "0", TargetCPUSet: "1", CPUSplitApplied: true,
		Engines: []bench.EngineEnvironment{{Name: "lab", Remote: true, Address: "198.18.0.2", Machine: m, TargetCPUSet: "3"}}}
	got, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	host := `"host":"h","os":"linux","kernel":"6.1","cpuModel":"x","cpus":2,"memoryBytes":1,"dockerVersion":"20.10","cgroupVersion":"2"`
	want := `{` + host + `,"orchestratorGo":"go1.26.8","loadCpuset":"0","targetCpuset":"1","cpuSplitApplied":true,` +
		`"engines":[{"name":"lab","remote":true,"address":"198.18.0.2",` + host + `,"targetCpuset":"3"}]}`
	if string(got) != want {
		t.Errorf("environment JSON =\n%s\nwant\n%s", got, want)
	}
	var back bench.Environment
	if err := json.Unmarshal(got, &back); err != nil || back.Engines[0].Host != "h" || back.CPUs != 2 {
		t.Errorf("read back %+v (%v)", back, err)
	}
}
