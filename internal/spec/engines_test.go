package spec_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/spec"
)

func TestPrepareEngineDefault(t *testing.T) {
	rs := validSpec()
	if err := spec.Prepare(&rs, labCatalog()); err != nil {
		t.Fatal(err)
	}
	if got, want := rs.Engine, bench.EngineLocal; got != want {
		t.Errorf("engine %q, want %q", got, want)
	}
	c := labCatalog()
	c.DefaultEngine = "lab"
	rs = validSpec()
	if err := spec.Prepare(&rs, c); err != nil {
		t.Fatal(err)
	}
	if got, want := rs.Engine, "lab"; got != want {
		t.Errorf("engine with default lab: %q, want %q", got, want)
	}
	if rs.MixesEngines() {
		t.Error("a run on one engine mixes engines")
	}
}

// A spec names engines only by the name the configuration gives them:
// never by an address, and only those configured.
func TestPrepareEngineErrors(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(*bench.RunSpec)
		field  string
		want   string
	}{
		// An engine's URL instead of its name.
		{"URL", func(s *bench.RunSpec) { s.Engine = "tcp://198.18.0.2:2375" }, "engine", "never by an address or URL"},
		{"SSH", func(s *bench.RunSpec) { s.Engine = "ssh://bench@lab" }, "engine", "never by an address or URL"},
		{"HostPort", func(s *bench.RunSpec) { s.Engine = "lab:2376" }, "engine", "never by an address or URL"},
		// A name the configuration does not have.
		{"Unknown", func(s *bench.RunSpec) { s.Engine = "staging" }, "engine", `unknown engine "staging" (configured: local, lab)`},
		// A case on an unknown engine.
		{"CaseUnknown", func(s *bench.RunSpec) {
			s.Targets = nil
			s.Cases = []bench.Case{{Name: "a", Target: "go"}, {Name: "b", Target: "go", Engine: "nope"}}
		}, "cases[1].engine", `unknown engine "nope"`},
		// Limits beyond the remote host's CPUs.
		{"LimitsBeyondRemote", func(s *bench.RunSpec) { s.Engine = "lab"; s.Limits.CPUs = 12 }, "limits.cpus", "at most 8 (engine lab's host's CPUs)"},
		// A downstream's targets stay with it.
		{"DownstreamMixed", func(s *bench.RunSpec) {
			s.Targets = nil
			s.Cases = []bench.Case{{Name: "a", Target: "go", Engine: "lab"}}
			s.Workload.Requests = []bench.Request{{Endpoint: "fanout", Params: map[string]string{"calls": "10"}}}
			s.Downstream = &bench.Downstream{Target: bench.TargetGo, Workers: 10}
		}, "cases[0].engine", "keeps every target on the run's engine (local)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := validSpec()
			tt.change(&rs)
			err := spec.Prepare(&rs, labCatalog())
			var e *bench.Error
			if !asError(err, &e) || e.Field != tt.field || !strings.Contains(e.Message, tt.want) {
				t.Errorf("Prepare = %v, want a fault in %s saying %q", err, tt.field, tt.want)
			}
		})
	}
}

// Cases may be placed apart; the run is then marked as mixing engines.
func TestPrepareEngineCases(t *testing.T) {
	rs := validSpec()
	rs.Targets = nil
	rs.Cases = []bench.Case{{Name: "here", Target: "go"}, {Name: "there", Target: "go", Engine: "lab"}}
	if err := spec.Prepare(&rs, labCatalog()); err != nil {
		t.Fatal(err)
	}
	if got, want := rs.Engines(), []string{bench.EngineLocal, "lab"}; !slices.Equal(got, want) {
		t.Errorf("Engines() = %v, want %v", got, want)
	}
	if !rs.MixesEngines() {
		t.Error("a run on local and lab does not mix engines")
	}
	if got, want := rs.ForCase(rs.Cases[1]).Engine, "lab"; got != want {
		t.Errorf("ForCase(there).Engine = %q, want %q", got, want)
	}
	if got, want := rs.ForCase(rs.Cases[0]).Engine, bench.EngineLocal; got != want {
		t.Errorf("ForCase(here).Engine = %q, want %q", got, want)
	}
}

// labCatalog offers a remote engine "lab" of 8 CPUs and 16 GiB besides local.
func labCatalog() bench.Catalog {
	c := testCatalog(bench.DefaultGuardrails)
	c.Engines = []bench.CatalogEngine{{Name: "lab", Machine: bench.Machine{CPUs: 8, MemoryBytes: 16 << 30}}}
	return c
}
