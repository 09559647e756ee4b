package load

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// Contract limits of the endpoints' query parameters (targets/CONTRACT.md).
const (
	MaxDurationParam = 60000  // ms, heavy/native/synchronized ?duration
	MaxWorkParam     = 100000 // rounds, cpu ?work
	MinMemoryMiB     = 64     // below this no JVM starts
)

// endpointParams lists, per endpoint, the parameters it takes and their
// maximum (the minimum is 0 for all of them).
var endpointParams = map[string]map[string]int{
	"light":        {},
	"heavy":        {"duration": MaxDurationParam},
	"native":       {"duration": MaxDurationParam},
	"synchronized": {"duration": MaxDurationParam},
	"cpu":          {"work": MaxWorkParam},
}

// PrepareSpec makes spec ready to run, or says what is wrong with it. It
// resolves a profile given only by name to the built-in (scaled by
// spec.Profile.Scale), takes the profile's workload when the spec has no
// requests, applies the defaults, and validates everything against targets
// (the known target names) and the guardrails g (zero fields take
// bench.DefaultGuardrails). It returns the first problem as an EINVALID
// *bench.Error whose field is the JSON path of the offending input.
func PrepareSpec(spec *bench.RunSpec, targets []string, g bench.Guardrails) error {
	g = withDefaultGuardrails(g)
	if err := resolveProfile(spec); err != nil {
		return err
	}
	if len(spec.Workload.Requests) == 0 && spec.Profile.Workload != nil {
		spec.Workload.Requests = cloneRequests(spec.Profile.Workload.Requests)
		if spec.Workload.Timeout == 0 {
			spec.Workload.Timeout = spec.Profile.Workload.Timeout
		}
	}
	spec.ApplyDefaults()
	for _, check := range []func(*bench.RunSpec, []string, bench.Guardrails) error{
		checkTargets, checkProfile, checkWorkload, checkWarmup, checkTotal, checkLimits,
	} {
		if err := check(spec, targets, g); err != nil {
			return err
		}
	}
	return nil
}

func withDefaultGuardrails(g bench.Guardrails) bench.Guardrails {
	d := bench.DefaultGuardrails
	if g.MaxRate <= 0 {
		g.MaxRate = d.MaxRate
	}
	if g.MaxConcurrency <= 0 {
		g.MaxConcurrency = d.MaxConcurrency
	}
	if g.MaxDuration <= 0 {
		g.MaxDuration = d.MaxDuration
	}
	if g.MaxTimeout <= 0 {
		g.MaxTimeout = d.MaxTimeout
	}
	return g
}

// resolveProfile replaces a profile given by name only with the built-in.
func resolveProfile(spec *bench.RunSpec) error {
	p := spec.Profile
	if len(p.Stages) > 0 || p.Name == "" {
		return nil
	}
	b, err := LookupProfile(p.Name, p.Scale)
	if err != nil {
		if bench.ErrorCode(err) == bench.ENOTFOUND {
			return bench.FieldErrorf("profile.name", "%s", bench.ErrorMessage(err))
		}
		return err
	}
	spec.Profile = b
	return nil
}

func checkTargets(spec *bench.RunSpec, known []string, _ bench.Guardrails) error {
	if len(spec.Targets) == 0 {
		return bench.FieldErrorf("targets", "name at least one target (%s)", strings.Join(known, ", "))
	}
	for i, t := range spec.Targets {
		field := fmt.Sprintf("targets[%d]", i)
		if !slices.Contains(known, t) {
			return bench.FieldErrorf(field, "unknown target %q (known: %s)", t, strings.Join(known, ", "))
		}
		if slices.Index(spec.Targets, t) < i {
			return bench.FieldErrorf(field, "target %q is listed twice", t)
		}
	}
	return nil
}

func checkProfile(spec *bench.RunSpec, _ []string, g bench.Guardrails) error {
	p := spec.Profile
	if p.Model != bench.ModelOpen && p.Model != bench.ModelClosed {
		return bench.FieldErrorf("profile.model", "must be %q or %q, got %q", bench.ModelOpen, bench.ModelClosed, p.Model)
	}
	if len(p.Stages) == 0 {
		return bench.FieldErrorf("profile.stages", "a profile needs at least one stage (or name a built-in: %s)", strings.Join(BuiltinNames(), ", "))
	}
	check := checkOpenStage
	if p.Model == bench.ModelClosed {
		check = checkClosedStage
	}
	for i, st := range p.Stages {
		field := fmt.Sprintf("profile.stages[%d]", i)
		if st.Duration <= 0 {
			return bench.FieldErrorf(field+".duration", "must be positive, got %s", st.Duration)
		}
		if err := check(st, field, g); err != nil {
			return err
		}
	}
	if !sendsRequests(p) {
		return bench.FieldErrorf("profile.stages", "no stage sends any request (every rate or concurrency is 0)")
	}
	return nil
}

func checkOpenStage(st bench.Stage, field string, g bench.Guardrails) error {
	if st.Concurrency != 0 {
		return bench.FieldErrorf(field+".concurrency", "an open-model stage takes a rate, not a concurrency")
	}
	if st.Rate < 0 || st.Rate > g.MaxRate || math.IsNaN(st.Rate) {
		return bench.FieldErrorf(field+".rate", "must be from 0 to %g requests/s (the configured maximum), got %g", g.MaxRate, st.Rate)
	}
	return nil
}

func checkClosedStage(st bench.Stage, field string, g bench.Guardrails) error {
	if st.Rate != 0 {
		return bench.FieldErrorf(field+".rate", "a closed-model stage takes a concurrency, not a rate")
	}
	if st.Concurrency < 0 || st.Concurrency > g.MaxConcurrency {
		return bench.FieldErrorf(field+".concurrency", "must be from 1 to %d requests in flight (the configured maximum), got %d", g.MaxConcurrency, st.Concurrency)
	}
	if st.Concurrency == 0 && !st.Ramp {
		return bench.FieldErrorf(field+".concurrency", "must be at least 1 (0 only as the target of a ramp, e.g. ramping down)")
	}
	return nil
}

func sendsRequests(p bench.Profile) bool {
	for _, st := range p.Stages {
		if st.Rate > 0 || st.Concurrency > 0 {
			return true
		}
	}
	return false
}

func checkWorkload(spec *bench.RunSpec, _ []string, g bench.Guardrails) error {
	w := spec.Workload
	if len(w.Requests) == 0 {
		return bench.FieldErrorf("workload.requests", "a workload needs at least one request (endpoints: %s)", strings.Join(bench.EndpointNames(), ", "))
	}
	for i, r := range w.Requests {
		if err := checkRequest(r, fmt.Sprintf("workload.requests[%d]", i)); err != nil {
			return err
		}
	}
	if w.Timeout <= 0 || w.Timeout > g.MaxTimeout {
		return bench.FieldErrorf("workload.timeout", "must be above 0 and at most %s (the configured maximum), got %s", g.MaxTimeout, w.Timeout)
	}
	return nil
}

func checkRequest(r bench.Request, field string) error {
	params, ok := endpointParams[r.Endpoint]
	if !ok {
		return bench.FieldErrorf(field+".endpoint", "unknown endpoint %q (endpoints: %s)", r.Endpoint, strings.Join(bench.EndpointNames(), ", "))
	}
	for _, name := range slices.Sorted(maps.Keys(r.Params)) {
		max, ok := params[name]
		if !ok {
			return bench.FieldErrorf(field+".params."+name, "%s takes no parameter %q (%s)", r.Endpoint, name, describeParams(params))
		}
		v, err := strconv.Atoi(r.Params[name])
		if err != nil || v < 0 || v > max {
			return bench.FieldErrorf(field+".params."+name, "must be an integer from 0 to %d, got %q", max, r.Params[name])
		}
	}
	if r.Weight < 0 {
		return bench.FieldErrorf(field+".weight", "must not be negative, got %d", r.Weight)
	}
	return nil
}

func describeParams(params map[string]int) string {
	if len(params) == 0 {
		return "it takes none"
	}
	var parts []string
	for name, max := range params {
		parts = append(parts, fmt.Sprintf("%s from 0 to %d", name, max))
	}
	slices.Sort(parts)
	return "it takes " + strings.Join(parts, ", ")
}

func checkWarmup(spec *bench.RunSpec, _ []string, g bench.Guardrails) error {
	w := spec.Warmup
	if w.Disabled {
		return nil
	}
	if w.Duration < 0 || w.Duration > g.MaxDuration {
		return bench.FieldErrorf("warmup.duration", "must be from 0 to %s (the configured maximum), got %s", g.MaxDuration, w.Duration)
	}
	if w.Rate < 0 || w.Rate > g.MaxRate || math.IsNaN(w.Rate) {
		return bench.FieldErrorf("warmup.rate", "must be from 0 to %g requests/s (the configured maximum), got %g", g.MaxRate, w.Rate)
	}
	return nil
}

func checkTotal(spec *bench.RunSpec, _ []string, g bench.Guardrails) error {
	total := spec.Profile.Duration()
	if !spec.Warmup.Disabled {
		total += spec.Warmup.Duration
	}
	if total > g.MaxDuration {
		return bench.FieldErrorf("profile", "warm-up plus profile last %s, above the configured maximum of %s per target", total, g.MaxDuration)
	}
	return nil
}

func checkLimits(spec *bench.RunSpec, _ []string, _ bench.Guardrails) error {
	l := spec.Limits
	if l.CPUs <= 0 || math.IsNaN(l.CPUs) {
		return bench.FieldErrorf("limits.cpus", "must be above 0, got %g", l.CPUs)
	}
	if l.MemoryMiB < MinMemoryMiB {
		return bench.FieldErrorf("limits.memoryMiB", "must be at least %d MiB, got %d", MinMemoryMiB, l.MemoryMiB)
	}
	return nil
}
