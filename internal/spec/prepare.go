package spec

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/threadbench/threadbench/internal/bench"
)

// Prepare makes spec ready to run, or says what is wrong with it, before
// anything is built or started: the one place a spec is checked. It
// expands a built-in experiment named by spec.Experiment, resolves a
// profile given only by name to the built-in (scaled by
// spec.Profile.Scale), takes the profile's workload when the spec has no
// requests, applies the defaults, and checks every field against the
// catalog. The first problem is returned as an EINVALID *Error whose Field
// is the JSON path of the offending input.
func Prepare(spec *bench.RunSpec, c bench.Catalog) error {
	c.Guardrails = c.Guardrails.WithDefaults()
	if c.Builtins == nil {
		c.Builtins = noBuiltins{}
	}
	if err := resolveExperiment(spec, c.Builtins); err != nil {
		return err
	}
	if err := resolveCapacity(spec, c.Guardrails); err != nil {
		return err
	}
	if err := resolveProfile(spec, c.Builtins); err != nil {
		return err
	}
	// A workload left out takes the profile's; an empty list given is not
	// left out (it is refused below, as api/openapi.yaml's minItems says).
	if spec.Workload.Requests == nil && spec.Workload.Iteration == nil && spec.Profile.Workload != nil {
		spec.Workload.Requests = bench.CloneRequests(spec.Profile.Workload.Requests)
		spec.Workload.Iteration = bench.CloneSteps(spec.Profile.Workload.Iteration)
		if spec.Workload.Timeout == 0 {
			spec.Workload.Timeout = spec.Profile.Workload.Timeout
		}
	}
	if err := casesToTargets(spec); err != nil {
		return err
	}
	if err := applySpringBoot(spec, c); err != nil {
		return err
	}
	if err := checkProfileWorkload(spec.Profile); err != nil {
		return err
	}
	spec.ApplyDefaults()
	for _, check := range []func(*bench.RunSpec, bench.Catalog) error{
		checkName, checkLabels, checkTargets, checkOwnServices, checkCases, checkRepeat, checkCapacity, checkProfile, checkSpecWorkload, checkLoadEngine, checkGenerators, checkWarmup, checkTotal, checkEngines, checkLimits, checkJava, checkDownstream, checkDatabase,
	} {
		if err := check(spec, c); err != nil {
			return err
		}
	}
	return nil
}

// checkProfileWorkload checks the workload a written-out profile carries,
// used or not: it is stored with the run and must read back as valid.
func checkProfileWorkload(p bench.Profile) error {
	if p.Scale < 0 || math.IsNaN(p.Scale) {
		return bench.FieldErrorf("profile.scale", "must not be negative, got %g", p.Scale)
	}
	if p.Workload == nil {
		return nil
	}
	w := *p.Workload
	w.Requests = bench.CloneRequests(w.Requests)
	w.ApplyDefaults()
	probe := bench.RunSpec{Workload: w, Profile: bench.Profile{Model: p.Model}}
	for i, r := range w.Requests {
		if err := checkRequest(r, fmt.Sprintf("workload.requests[%d]", i)); err != nil {
			return prefixField(err, "profile.")
		}
	}
	if len(w.Iteration) > 0 {
		if probe.Profile.Model == "" {
			probe.Profile.Model = bench.ModelClosed
		}
		if err := checkIteration(w, probe.Profile.Model); err != nil {
			return prefixField(err, "profile.")
		}
	}
	return nil
}

// resolveProfile replaces a profile given by name only with the built-in.
func resolveProfile(spec *bench.RunSpec, builtins bench.Builtins) error {
	p := spec.Profile
	if len(p.Stages) > 0 || p.Name == "" {
		return nil
	}
	b, err := builtins.LookupProfile(p.Name, p.Scale)
	if err != nil {
		if bench.ErrorCode(err) == bench.ENOTFOUND {
			return bench.FieldErrorf("profile.name", "%s", bench.ErrorMessage(err))
		}
		return err
	}
	b.Engine = p.Engine // the load engine is the caller's choice, not the profile's
	spec.Profile = b
	return nil
}

func checkName(spec *bench.RunSpec, _ bench.Catalog) error {
	if n := utf8.RuneCountInString(spec.Name); n > bench.MaxNameLength {
		return bench.FieldErrorf("name", "must be at most %d characters, got %d", bench.MaxNameLength, n)
	}
	if strings.IndexFunc(spec.Name, unicode.IsControl) >= 0 {
		return bench.FieldErrorf("name", "must not contain control characters")
	}
	return nil
}

// labelKey is what a label's key may be: a letter or digit, then letters,
// digits, '.', '_', '-' or '/', as a Kubernetes label's name part.
var labelKey = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`)

// checkLabels keeps labels words: a few, short keys without '=', values
// as long as a name at most, with no control characters.
func checkLabels(spec *bench.RunSpec, _ bench.Catalog) error {
	if len(spec.Labels) > bench.MaxLabels {
		return bench.FieldErrorf("labels", "at most %d labels, got %d", bench.MaxLabels, len(spec.Labels))
	}
	for _, key := range slices.Sorted(maps.Keys(spec.Labels)) {
		if len(key) > bench.MaxLabelKey || !labelKey.MatchString(key) {
			return bench.FieldErrorf("labels", "key %q: must be 1 to %d letters, digits, '.', '_', '-' or '/', starting with a letter or digit", key, bench.MaxLabelKey)
		}
		value := spec.Labels[key]
		if utf8.RuneCountInString(value) > bench.MaxNameLength || strings.IndexFunc(value, unicode.IsControl) >= 0 {
			return bench.FieldErrorf("labels."+key, "must be at most %d characters without control characters", bench.MaxNameLength)
		}
	}
	return nil
}

// ParseLabelPairs reads KEY=VALUE pairs (a label given, or a list's label
// filter), a later pair winning over an earlier one of the same key; field
// names them in errors. Prepare checks a spec's keys and values.
func ParseLabelPairs(pairs []string, field string) (map[string]string, error) {
	labels := map[string]string{}
	for _, p := range pairs {
		key, value, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(key) == "" {
			return nil, bench.FieldErrorf(field, "%q: want KEY=VALUE, e.g. branch=main", p)
		}
		labels[strings.TrimSpace(key)] = value
	}
	return labels, nil
}

// casesToTargets lists a spec's cases' targets as its targets (once each,
// in order), so that runs are found by target whatever their form.
func casesToTargets(spec *bench.RunSpec) error {
	if len(spec.Cases) == 0 {
		return nil
	}
	if len(spec.Targets) > 0 {
		return bench.FieldErrorf("targets", "give targets or cases, not both: each case names its target")
	}
	for _, c := range spec.Cases {
		if !slices.Contains(spec.Targets, c.Target) {
			spec.Targets = append(spec.Targets, c.Target)
		}
	}
	return nil
}

// checkCases checks each case as the spec it runs under.
func checkCases(spec *bench.RunSpec, c bench.Catalog) error {
	if len(spec.Cases) > bench.MaxCases {
		return bench.FieldErrorf("cases", "at most %d cases, got %d", bench.MaxCases, len(spec.Cases))
	}
	for i, cs := range spec.Cases {
		field := fmt.Sprintf("cases[%d]", i)
		switch {
		case cs.Name == "" || len(cs.Name) > bench.MaxNameLength || strings.ContainsAny(cs.Name, "#/") || strings.IndexFunc(cs.Name, unicode.IsControl) >= 0:
			return bench.FieldErrorf(field+".name", "must be 1 to %d characters, without '#', '/' or control characters, got %q", bench.MaxNameLength, cs.Name)
		case slices.IndexFunc(spec.Cases[:i], func(o bench.Case) bool { return o.Name == cs.Name }) >= 0:
			return bench.FieldErrorf(field+".name", "case %q is named twice", cs.Name)
		}
		if err := bench.CheckTargetRef(cs.Target, c.Targets, field+".target"); err != nil {
			return err
		}
		if cs.Workload != nil {
			cs.Workload.ApplyDefaults()
		}
		effective := spec.ForCase(cs)
		for _, check := range []func(*bench.RunSpec, bench.Catalog) error{checkWorkload, checkJava} {
			if err := check(&effective, c); err != nil {
				return prefixField(err, field+".")
			}
		}
	}
	return nil
}

// prefixField puts prefix before an error's field.
func prefixField(err error, prefix string) error {
	var e *bench.Error
	if errors.As(err, &e) && e.Field != "" {
		return &bench.Error{Code: e.Code, Field: prefix + e.Field, Message: e.Message}
	}
	return err
}

func checkRepeat(spec *bench.RunSpec, _ bench.Catalog) error {
	if spec.Repeat < 0 || spec.Repeat > bench.MaxRepeat {
		return bench.FieldErrorf("repeat", "must be from 1 to %d rounds (0 means 1), got %d", bench.MaxRepeat, spec.Repeat)
	}
	return nil
}

func checkTargets(spec *bench.RunSpec, c bench.Catalog) error {
	if len(spec.Cases) > 0 {
		return nil // each case's target is checked with the case
	}
	if len(spec.Targets) == 0 {
		return bench.FieldErrorf("targets", "name at least one target (%s)", strings.Join(bench.TargetNames(c.Targets), ", "))
	}
	for i, t := range spec.Targets {
		field := fmt.Sprintf("targets[%d]", i)
		if err := bench.CheckTargetRef(t, c.Targets, field); err != nil {
			return err
		}
		if slices.Index(spec.Targets, t) < i {
			return bench.FieldErrorf(field, "target %q is listed twice", t)
		}
	}
	return expandTargets(spec, c)
}

func checkProfile(spec *bench.RunSpec, c bench.Catalog) error {
	p := spec.Profile
	model, err := bench.CheckModel(p)
	if err != nil {
		return err
	}
	if len(p.Stages) == 0 {
		return bench.FieldErrorf("profile.stages", "a profile needs at least one stage (or name a built-in: %s)", strings.Join(c.Builtins.ProfileNames(), ", "))
	}
	for i, st := range p.Stages {
		field := fmt.Sprintf("profile.stages[%d]", i)
		if st.Duration < bench.MinStageDuration || st.Duration > c.Guardrails.MaxDuration {
			return bench.FieldErrorf(field+".duration", "must be from %s to %s (the configured maximum), got %s", bench.MinStageDuration, c.Guardrails.MaxDuration, st.Duration)
		}
		if err := model.CheckStage(st, field, c.Guardrails); err != nil {
			return err
		}
	}
	if !sendsRequests(p) {
		return bench.FieldErrorf("profile.stages", "no stage sends any request (every rate or concurrency is 0)")
	}
	if err := model.CheckConnections(p.Connections); err != nil {
		return err
	}
	switch {
	case p.Connections < 0 || p.Connections > c.Guardrails.MaxConcurrency:
		return bench.FieldErrorf("profile.connections", "must be from 1 to %d (the configured maximum), or 0 to size them from the rate, got %d", c.Guardrails.MaxConcurrency, p.Connections)
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

// checkSpecWorkload checks the spec's own workload, unless every case
// brings its own (an experiment's cases do), which leaves it unused.
func checkSpecWorkload(spec *bench.RunSpec, c bench.Catalog) error {
	if len(spec.Cases) > 0 && !slices.ContainsFunc(spec.Cases, func(cs bench.Case) bool { return cs.Workload == nil }) {
		return nil
	}
	return checkWorkload(spec, c)
}

func checkWorkload(spec *bench.RunSpec, c bench.Catalog) error {
	w := spec.Workload
	// Given, even empty, is given: api/openapi.yaml says an empty list is
	// not a workload, and that requests and an iteration do not go together.
	if w.Iteration != nil {
		if err := checkIteration(w, spec.Profile.Model); err != nil {
			return err
		}
	} else if len(w.Requests) == 0 {
		return bench.FieldErrorf("workload.requests", "a workload needs at least one request (endpoints: %s)", strings.Join(bench.EndpointNames(), ", "))
	}
	for i, r := range w.Requests {
		field := fmt.Sprintf("workload.requests[%d]", i)
		if err := checkRequest(r, field); err != nil {
			return err
		}
		if j := slices.IndexFunc(w.Requests[:i], func(o bench.Request) bool { return o.Label() == r.Label() }); j >= 0 {
			return bench.FieldErrorf(field+".name", "requests[%d] and requests[%d] are both %q; name them apart (name: ...) to tell their figures apart", j, i, r.Label())
		}
	}
	if w.Timeout <= 0 || w.Timeout > c.Guardrails.MaxTimeout {
		return bench.FieldErrorf("workload.timeout", "must be above 0 and at most %s (the configured maximum), got %s", c.Guardrails.MaxTimeout, w.Timeout)
	}
	return nil
}

// checkIteration checks a closed model's iteration: each step a request or a
// sleep, at least one request, one request per name.
func checkIteration(w bench.Workload, model bench.Model) error {
	if err := bench.ModelOf(model).CheckIteration(); err != nil {
		return err
	}
	switch {
	case w.Requests != nil:
		return bench.FieldErrorf("workload.requests", "give requests (a weighted mix) or an iteration, not both")
	case len(w.IterationRequests()) == 0:
		return bench.FieldErrorf("workload.iteration", "needs at least one request step")
	}
	for i, st := range w.Iteration {
		field := fmt.Sprintf("workload.iteration[%d]", i)
		switch {
		case (st.Request == nil) == (st.Sleep == nil):
			return bench.FieldErrorf(field, "a step is either a request or a sleep")
		case st.Sleep != nil:
			if err := checkSleep(*st.Sleep, field+".sleep"); err != nil {
				return err
			}
		default:
			if err := checkRequest(*st.Request, field+".request"); err != nil {
				return err
			}
			if j := slices.IndexFunc(w.Iteration[:i], func(o bench.Step) bool {
				return o.Request != nil && o.Request.Label() == st.Request.Label() && o.Request.Path() != st.Request.Path()
			}); j >= 0 {
				return bench.FieldErrorf(field+".request.name", "steps %d and %d are both %q but ask different things", j, i, st.Request.Label())
			}
		}
	}
	return nil
}

func checkSleep(s bench.Sleep, field string) error {
	switch {
	case s.Min < 0 || s.Min > bench.MaxSleep:
		return bench.FieldErrorf(field+".min", "must be from 0 to %s, got %s", bench.MaxSleep, s.Min)
	case s.Max != 0 && (s.Max < s.Min || s.Max > bench.MaxSleep):
		return bench.FieldErrorf(field+".max", "must be from min (%s) to %s, got %s", s.Min, bench.MaxSleep, s.Max)
	}
	return nil
}

func checkRequest(r bench.Request, field string) error {
	if err := checkOwnRequest(r, field); err != nil || r.URI != "" {
		return err
	}
	e, ok := bench.LookupEndpoint(r.Endpoint)
	if !ok {
		return bench.FieldErrorf(field+".endpoint", "unknown endpoint %q (endpoints: %s)", r.Endpoint, strings.Join(bench.EndpointNames(), ", "))
	}
	if err := e.CheckParams(r.Params, field); err != nil {
		return err
	}
	if len(r.Name) > bench.MaxNameLength || strings.IndexFunc(r.Name, unicode.IsControl) >= 0 {
		return bench.FieldErrorf(field+".name", "must be at most %d characters without control characters", bench.MaxNameLength)
	}
	if r.Weight < 0 || r.Weight > bench.MaxWeight {
		return bench.FieldErrorf(field+".weight", "must be from 1 to %d, got %d", bench.MaxWeight, r.Weight)
	}
	return nil
}

func checkWarmup(spec *bench.RunSpec, c bench.Catalog) error {
	w := spec.Warmup
	// A disabled warm-up's values are unused, but a stored spec keeps
	// them: they are in range all the same (api/openapi.yaml's minimum).
	if w.Rate < 0 {
		return bench.FieldErrorf("warmup.rate", "must not be negative, got %g", w.Rate)
	}
	if w.Disabled {
		if w.UntilSteady {
			return bench.FieldErrorf("warmup.untilSteady", "a disabled warm-up cannot run until steady")
		}
		return nil
	}
	if w.UntilSteady {
		if spec.Capacity != nil {
			return bench.FieldErrorf("warmup.untilSteady", "a capacity search warms each target up once at a fixed duration and rate: give warmup.duration and warmup.rate instead")
		}
		return checkWarmupUntilSteady(w, c.Guardrails)
	}
	if w.Fraction != 0 {
		return bench.FieldErrorf("warmup.fraction", "applies to a warm-up until steady (untilSteady: true); a fixed warm-up has a rate")
	}
	switch {
	case w.MaxDuration != 0 && spec.Capacity == nil:
		return bench.FieldErrorf("warmup.maxDuration", "applies to a warm-up until steady (untilSteady: true), and to a capacity search's warm-up of a cold JVM")
	case w.MaxDuration != 0 && (w.MaxDuration < bench.DefaultWarmupWindow || w.MaxDuration > c.Guardrails.MaxDuration):
		return bench.FieldErrorf("warmup.maxDuration", "must be from %s (the window) to %s (the configured maximum), got %s", bench.DefaultWarmupWindow, c.Guardrails.MaxDuration, w.MaxDuration)
	}
	if w.Window != 0 {
		return bench.FieldErrorf("warmup.window", "applies to a warm-up until steady (untilSteady: true)")
	}
	if w.Duration < 0 || w.Duration > c.Guardrails.MaxDuration {
		return bench.FieldErrorf("warmup.duration", "must be from 0 to %s (the configured maximum), got %s", c.Guardrails.MaxDuration, w.Duration)
	}
	return bench.CheckRate(w.Rate, "warmup.rate", c.Guardrails)
}

// checkWarmupUntilSteady checks a warm-up that runs at the first stage's
// load until steady: it has a maximum and a window, not a duration or rate.
func checkWarmupUntilSteady(w bench.Warmup, g bench.Guardrails) error {
	switch {
	case w.Duration != 0:
		return bench.FieldErrorf("warmup.duration", "a warm-up until steady has a maxDuration, not a duration")
	case w.Rate != 0:
		return bench.FieldErrorf("warmup.rate", "a warm-up until steady runs at the first stage's load, not at a rate")
	case w.Fraction < 0 || w.Fraction > 1 || math.IsNaN(w.Fraction):
		return bench.FieldErrorf("warmup.fraction", "must be above 0 and at most 1 (0 for the first stage's whole load), got %g", w.Fraction)
	case w.Window < bench.MinWarmupWindow:
		return bench.FieldErrorf("warmup.window", "must be at least %s, got %s", bench.MinWarmupWindow, w.Window)
	case w.MaxDuration < w.Window || w.MaxDuration > g.MaxDuration:
		return bench.FieldErrorf("warmup.maxDuration", "must be from the window (%s) to %s (the configured maximum), got %s", w.Window, g.MaxDuration, w.MaxDuration)
	}
	return nil
}

// checkTotal bounds what one target is attacked for, with the sum checked
// for overflow so that huge stages cannot wrap around the guardrail.
func checkTotal(spec *bench.RunSpec, c bench.Catalog) error {
	total, ok := spec.Profile.Total()
	if ok {
		total, ok = bench.AddDurations(total, spec.Warmup.Planned())
	}
	if !ok || total > c.Guardrails.MaxDuration {
		what := total.String()
		if !ok {
			what = "more than " + bench.MaxDuration.String()
		}
		return bench.FieldErrorf("profile.stages", "warm-up plus profile last %s, above the configured maximum of %s per target", what, c.Guardrails.MaxDuration)
	}
	return nil
}

// checkLimits checks the limits against every host the run places targets
// on: each must be able to give them.
func checkLimits(spec *bench.RunSpec, c bench.Catalog) error {
	l := spec.Limits
	maxCPUs, cpuHost := 1024.0, "the host's"
	maxMiB, memoryHost := int64(bench.MaxMemoryMiB), "the host's"
	engines := spec.Engines()
	if len(engines) == 0 { // a downstream's limits, checked alone
		engines = []string{spec.EngineOf(bench.Case{})}
	}
	for _, engine := range engines {
		cpus, memory := c.HostBounds(engine)
		host := "the host's"
		if engine != bench.EngineLocal {
			host = "engine " + engine + "'s host's"
		}
		if cpus > 0 && float64(cpus) < maxCPUs {
			maxCPUs, cpuHost = float64(cpus), host
		}
		if memory > 0 && memory>>20 < maxMiB {
			maxMiB, memoryHost = memory>>20, host
		}
	}
	if !(l.CPUs > 0 && l.CPUs <= maxCPUs) {
		return bench.FieldErrorf("limits.cpus", "must be above 0 and at most %g (%s CPUs), got %g", maxCPUs, cpuHost, l.CPUs)
	}
	if l.MemoryMiB < bench.MinMemoryMiB || l.MemoryMiB > maxMiB {
		return bench.FieldErrorf("limits.memoryMiB", "must be from %d to %d MiB (%s memory), got %d", bench.MinMemoryMiB, maxMiB, memoryHost, l.MemoryMiB)
	}
	return nil
}

func checkJava(spec *bench.RunSpec, c bench.Catalog) error {
	j := spec.Java
	switch {
	case j.TomcatMaxThreads < 1 || j.TomcatMaxThreads > bench.MaxTomcatThreads:
		return bench.FieldErrorf("java.tomcatMaxThreads", "must be from 1 to %d, got %d", bench.MaxTomcatThreads, j.TomcatMaxThreads)
	case j.VirtualParallelism < 0 || j.VirtualParallelism > bench.MaxParallelism:
		return bench.FieldErrorf("java.virtualParallelism", "must be from 1 to %d (0 for the JVM's default, the CPU count), got %d", bench.MaxParallelism, j.VirtualParallelism)
	case !(j.HeapPercent > 0 && j.HeapPercent <= 100):
		return bench.FieldErrorf("java.heapPercent", "must be above 0 and at most 100, got %g", j.HeapPercent)
	}
	if j.BaseImage != "" && !c.AllowImages {
		return bench.FieldErrorf("java.baseImage", "a run may not name an image here: the daemon builds on the images its operator configured (javaBaseImage, javaBaseImages in its configuration)")
	}
	if j.GC != "" {
		if _, ok := bench.LookupGC(j.GC); !ok {
			return bench.FieldErrorf("java.gc", "unknown garbage collector %q (use %s)", j.GC, bench.WordsOr(bench.GarbageCollectors))
		}
	}
	return checkJDK(j.JDK, c)
}

// checkJDK checks a run-wide JDK against what the Java targets offer.
func checkJDK(jdk int, c bench.Catalog) error {
	if jdk == 0 {
		return nil
	}
	var offered []string
	for _, t := range c.Targets {
		if axis, ok := t.AxisOf(bench.AxisJDK); ok {
			if slices.Contains(axis.Values, strconv.Itoa(jdk)) {
				return nil
			}
			offered = axis.Values
		}
	}
	return bench.FieldErrorf("java.jdk", "no Java target runs on JDK %d (offered: %s)", jdk, strings.Join(offered, ", "))
}
