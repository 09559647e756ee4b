package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// CapacitySpec asks a run for a capacity search instead of its profile's
// stages: per target, under the open model, the highest arrival rate whose
// trials meet Objective. Each trial is stored as a stage of the target.
// Zero fields take internal/capacity's defaults.
type CapacitySpec struct {
	Objective     string  `json:"objective" yaml:"objective"`                             // e.g. "p99<=250ms,errors<=0.1%"
	Precision     float64 `json:"precision,omitempty" yaml:"precision,omitempty"`         // relative width at which bisection stops
	Confirmations int     `json:"confirmations,omitempty" yaml:"confirmations,omitempty"` // full-length trials at the answer
	// MustPass is how many of the confirmations must each pass for a rate to be
	// confirmed: the strict rule, judged window by window ("windows"). 0
	// for the default, the confirmations' pooled time judged ("pooled",
	// see GoalDuration).
	MustPass int `json:"mustPass,omitempty" yaml:"mustPass,omitempty"`
	// GoalDuration is the time over which the objective is judged at a
	// rate: its confirmations' latency histograms merged and the
	// percentile taken over their sum, which must be at least this long
	// (more confirmations run where theirs is shorter). 0 for the default,
	// the confirmations' own time (3 × 10 s).
	GoalDuration    Duration `json:"goalDuration,omitempty" yaml:"goalDuration,omitempty"`
	TrialDuration   Duration `json:"trialDuration,omitempty" yaml:"trialDuration,omitempty"`     // of a bracketing or bisecting trial
	ConfirmDuration Duration `json:"confirmDuration,omitempty" yaml:"confirmDuration,omitempty"` // of a confirmation
	Settle          Duration `json:"settle,omitempty" yaml:"settle,omitempty"`                   // pause between trials
	Budget          Duration `json:"budget,omitempty" yaml:"budget,omitempty"`                   // for all the run's targets together
	StartRate       float64  `json:"startRate,omitempty" yaml:"startRate,omitempty"`             // req/s of the first trial
	MaxRate         float64  `json:"maxRate,omitempty" yaml:"maxRate,omitempty"`                 // req/s above which the search does not go
}

// CapacityResult is what a capacity search found for one target.
type CapacityResult struct {
	Objective string `json:"objective"`
	// Rate is the highest rate whose confirmations passed as many as the
	// search asked (MustPass of them), req/s; 0 when none did.
	Rate float64 `json:"rate"`
	// Confirmations are the figures of the full-length trials at Rate,
	// each with its verdict: with a majority asked, one may have failed.
	Confirmations []CapacityTrial `json:"confirmations,omitempty"`
	// MustPass is how many of the confirmations asked had to pass
	// (Asked); absent from runs stored before a majority was asked, whose
	// confirmations all had to pass.
	MustPass int `json:"mustPass,omitempty"`
	Asked    int `json:"asked,omitempty"`
	// Failed is the next rate up that failed, with what failed; nil when
	// none did.
	Failed *CapacityTrial `json:"failed,omitempty"`
	Width  float64        `json:"width,omitempty"` // the bracket's final relative width
	Stop   string         `json:"stop"`            // precision, budget, generator-bound, max-rate, no-pass
	Reason string         `json:"reason"`          // a sentence saying why it stopped
	Trials int            `json:"trials"`
	Spent  Duration       `json:"spent"`
	// Start is the first trial's rate, req/s; StartFrom says where it came
	// from when the search chose it ("" for the spec's or the default).
	Start     float64 `json:"start,omitempty"`
	StartFrom string  `json:"startFrom,omitempty"`
	// Steps are every trial of the search in order, as it judged them
	// (absent from runs stored before they were kept).
	Steps []CapacityTrial `json:"steps,omitempty"`
	// Rule says how a rate's confirmations were judged: RulePooled or
	// RuleWindows; absent from runs stored before the rule was said
	// (window by window). RuleNote says why a search asked to pool judged
	// window by window (its windows had no histograms to merge).
	Rule     string `json:"rule,omitempty"`
	RuleNote string `json:"ruleNote,omitempty"`
	// GoalDuration is the time the objective is judged over at a rate.
	GoalDuration Duration `json:"goalDuration,omitempty"`
	// Pooled is the objective judged over the confirmations at Rate
	// pooled: their histograms merged. Absent where they had none.
	Pooled *CapacityPooled `json:"pooled,omitempty"`
	// Unconfirmed says why Rate is not confirmed, when it is not: the
	// search ended (its budget spent) after it passed, and the answer is
	// the highest rate that passed, with a lower confidence. Its evidence
	// is Confirmations: the trials that passed at it.
	Unconfirmed string `json:"unconfirmed,omitempty"`
	// PauseNote says how the target's recurring pauses (a JVM's full
	// collections) sized the rounds, or that the budget could not.
	PauseNote string `json:"pauseNote,omitempty"`
}

// The rules a capacity search judges a rate's confirmations by.
const (
	// RulePooled judges the objective over the confirmations' time
	// pooled: their latency histograms merged, the percentile taken over
	// the sum, which must be as long as the goal duration.
	RulePooled = "pooled"
	// RuleWindows asks MustPass of the confirmations to pass each (every
	// one: the strict rule).
	RuleWindows = "windows"
)

// CapacityPooled is the objective judged over a rate's confirmations
// pooled: their latency histograms merged exactly, the percentiles taken
// over their whole time.
type CapacityPooled struct {
	Windows  int      `json:"windows"`  // confirmations pooled
	Held     int      `json:"held"`     // of which passed on their own
	Duration Duration `json:"duration"` // their time together
	P99      float64  `json:"p99"`      // ms, over the whole
	Pass     bool     `json:"pass,omitempty"`
	// Violations are the objective's bounds the pooled figures broke, or
	// why the pool did not pass (shorter than the goal, a window the
	// target died in).
	Violations []string `json:"violations,omitempty"`
}

// LastPassed is the last confirmation at the answer that passed: the
// answer's figures (a majority asked, one after it may have failed).
// Confirmations of runs stored before they kept a verdict all passed.
func (c *CapacityResult) LastPassed() (CapacityTrial, bool) {
	for i := len(c.Confirmations) - 1; i >= 0; i-- {
		if conf := c.Confirmations[i]; conf.Pass || c.Asked == 0 {
			return conf, true
		}
	}
	return CapacityTrial{}, false
}

// Passed counts the confirmations at the answer that passed (all of them
// in runs stored before they kept a verdict).
func (c *CapacityResult) Passed() int {
	if c.Asked == 0 {
		return len(c.Confirmations)
	}
	n := 0
	for _, conf := range c.Confirmations {
		if conf.Pass {
			n++
		}
	}
	return n
}

// CapacityPhase says what a trial of a capacity search was for: bracket,
// bisect, confirm (package capacity's phases).
type CapacityPhase string

// CapacityTrial is one trial of a capacity search, as judged: the search
// keeps its trials so (capacity.Step), the run document stores them.
type CapacityTrial struct {
	Stage      int           `json:"stage"` // its index among the target's stages: its number in the search
	Phase      CapacityPhase `json:"phase"`
	Rate       float64       `json:"rate"`
	Throughput float64       `json:"throughput"`
	P99        float64       `json:"p99"` // ms
	Pass       bool          `json:"pass,omitempty"`
	Violations []string      `json:"violations,omitempty"`
	// GeneratorBound says why the load generator limited the trial, which
	// was then neither a pass nor a fail; GeneratorNote what it did in a
	// trial that passed all the same or failed by more than its lag.
	GeneratorBound string `json:"generatorBound,omitempty"`
	GeneratorNote  string `json:"generatorNote,omitempty"`
	// Disturbed is what took the machine's CPUs in a trial that failed
	// and was asked again (the hypervisor's steal): neither a pass nor a
	// fail of the target.
	Disturbed string `json:"disturbed,omitempty"`
	// Cold is what the JVM's compiler did in a failed bracket trial, the
	// first at a rate above every rate the target had been offered, that
	// was asked again for it (capacity's firstMet): the next trial at the
	// rate decided.
	Cold string `json:"cold,omitempty"`
	// WarmAt is the rate the target was warmed up at, until steady,
	// before the trial (a cold failure asked again), and Warmed how that
	// warm-up ended; 0 and empty when it was not.
	WarmAt float64 `json:"warmAt,omitempty"`
	Warmed string  `json:"warmed,omitempty"`
}

// CapacityTable is a capacity run's answer across its targets, as a
// report shows it.
type CapacityTable struct {
	Objective string        `json:"objective"`
	Rows      []CapacityRow `json:"rows"`
	// Sentences say the answer per target in words.
	Sentences []string `json:"sentences"`
}

// CapacityRow is one target's line of a CapacityTable.
type CapacityRow struct {
	Target string  `json:"target"`
	Rate   float64 `json:"rate"` // highest confirmed rate, req/s; 0 for none
	// ServedLow and ServedHigh are the lowest and highest throughput of the
	// confirmations at Rate: their spread.
	ServedLow  float64 `json:"servedLow"`
	ServedHigh float64 `json:"servedHigh"`
	// Passed of Ran confirmations at Rate passed, MustPass being asked;
	// Misses says what failed in those that did not.
	Passed     int      `json:"passed,omitempty"`
	Ran        int      `json:"ran,omitempty"`
	MustPass   int      `json:"mustPass,omitempty"`
	Misses     []string `json:"misses,omitempty"`
	FailedRate float64  `json:"failedRate,omitempty"` // the next rate up, which failed
	FailedWhy  string   `json:"failedWhy,omitempty"`  // what failed there
	Ratio      float64  `json:"ratio"`                // Rate ÷ the best target's
	Stop       string   `json:"stop"`
	Reason     string   `json:"reason"`
	// PoolThreads and PoolRate are the target's thread pool and the most
	// it serves of the workload (threads ÷ service time), when it has one.
	PoolThreads int     `json:"poolThreads,omitempty"`
	PoolRate    float64 `json:"poolRate,omitempty"`
	// CPUShare is the target's CPU use in its confirmations, a share of
	// its CPU limit (CPUs), when both were recorded.
	CPUShare float64 `json:"cpuShare,omitempty"`
	CPUs     float64 `json:"cpus,omitempty"`
	// Rule is how the confirmations were judged (CapacityResult.Rule),
	// Pooled their pooled figures, and Unconfirmed why Rate is not
	// confirmed when it is not (a lower confidence); PauseNote how the
	// target's recurring pauses sized the rounds (CapacityResult.PauseNote).
	Rule        string          `json:"rule,omitempty"`
	Pooled      *CapacityPooled `json:"pooled,omitempty"`
	Unconfirmed string          `json:"unconfirmed,omitempty"`
	PauseNote   string          `json:"pauseNote,omitempty"`
}

// SearchReport is what a report says of a capacity run's searches: each
// target's trials as judged, and the answers ranked.
type SearchReport struct {
	// Answers ranks the targets by the rate each confirmed. An entry is
	// Same as the one above when their brackets overlap (its confirmed
	// rate is not below the one above's first failing rate): the searches
	// cannot order them. Its VsAbove is absent: the searches, not a test
	// of samples, tell them apart.
	Answers *Rank          `json:"answers,omitempty"`
	Targets []TargetSearch `json:"targets"`
}

// TargetSearch is one target's search, trial by trial: each trial's
// offered rate against the figure of the objective a chart draws.
type TargetSearch struct {
	Target string `json:"target"`
	// Figure is the objective's term drawn (its first latency bound, else
	// its first), Unit its unit ("ms", "%") and Limit its bound in it.
	Figure     string        `json:"figure"`
	Unit       string        `json:"unit"`
	Limit      float64       `json:"limit"`
	Rate       float64       `json:"rate"`                 // the answer, req/s; 0 for none
	FailedRate float64       `json:"failedRate,omitempty"` // the first rate above it that failed
	Trials     []SearchTrial `json:"trials"`
	// Start is the first trial's rate and StartFrom where it came from (as
	// CapacityResult says); Spent the time the search took.
	Start     float64  `json:"start,omitempty"`
	StartFrom string   `json:"startFrom,omitempty"`
	Spent     Duration `json:"spent"`
}

// SearchTrial is one trial of a search as a report shows it.
type SearchTrial struct {
	Stage      int           `json:"stage"` // its index among the target's stages
	Phase      CapacityPhase `json:"phase"` // bracket, bisect, confirm
	Rate       float64       `json:"rate"`  // offered, req/s
	Throughput float64       `json:"throughput"`
	Value      float64       `json:"value"` // the objective's figure, in TargetSearch.Unit
	Pass       bool          `json:"pass"`
	// GeneratorBound says the load generator, not the target, limited it:
	// neither a pass nor a fail.
	GeneratorBound bool `json:"generatorBound,omitempty"`
	// Verdict says how the search judged it: "pass", the bounds it broke,
	// or why the generator, not the target, limited it.
	Verdict string `json:"verdict"`
	// Steady is a confirmation's steady part: whether its seconds settled.
	// Absent for short trials, where no seconds were stored, and where they
	// were too few to judge (TooShort).
	Steady *SteadyPart `json:"steady,omitempty"`
	// TooShort says a confirmation kept too few seconds for its steadiness
	// to be judged (fewer than the steady-state detector's minimum).
	TooShort bool `json:"tooShort,omitempty"`
}

// ScalabilityFit is the Universal Scalability Law fitted to one target's
// closed-model sweep.
type ScalabilityFit struct {
	Target        string  `json:"target"`
	Points        int     `json:"points"`
	Sigma         float64 `json:"sigma"`  // contention
	Kappa         float64 `json:"kappa"`  // coherency
	Lambda        float64 `json:"lambda"` // req/s of one client
	Peak          float64 `json:"peak"`   // N*, clients; 0 when throughput never falls
	MaxThroughput float64 `json:"maxThroughput"`
	R2            float64 `json:"r2"`
	Poor          string  `json:"poor,omitempty"` // why the fit is too poor to use
	Sentence      string  `json:"sentence"`
	// Measured are the sweep's points the fit was made to.
	Measured []ScalabilityPoint `json:"measured"`
}

// ScalabilityPoint is one step of a sweep: clients in flight and the
// throughput they measured.
type ScalabilityPoint struct {
	Concurrency float64 `json:"concurrency"`
	Throughput  float64 `json:"throughput"` // req/s
}

// Defaults of a capacity search, for the fields a spec leaves out. The
// budget is the five minutes for three targets, per target.
const (
	DefaultCapacityPrecision     = 0.02
	DefaultCapacityConfirmations = 3
	DefaultCapacityTrial         = Duration(3e9)
	DefaultCapacityConfirm       = Duration(10e9)
	DefaultCapacitySettle        = Duration(1e9)
	DefaultCapacityBudget        = Duration(100e9)
)

// MustPassOf is how many of n confirmations must pass under the window
// rule (RuleWindows) when none was asked, and for windows the pooled rule
// cannot pool (they carry no histogram): a majority. A target's figures over one confirmation can be taken by a
// rare event of its own (a full garbage collection pausing it for a
// quarter of a second every half-minute fails a 10 s trial's p99 when it
// falls inside it, and passes the next); asking every confirmation to pass
// then asks how long the target runs between two such events, and the
// answer is the luck of where they fell. A majority is MLRsearch's goal
// exceed ratio of one half (RFC 9971): the rate holds the objective in
// most trials at full length, and the trials that did not are shown.
// MustPass = Confirmations asks every one.
func MustPassOf(n int) int { return n/2 + 1 }

// OrDefault returns v, or def when v is zero.
func OrDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// MinBudget is the least time a search of c needs for one target: one
// short trial and the confirmations of a rate (Windows), with their
// pauses.
func (c CapacitySpec) MinBudget() Duration {
	confirm := OrDefault(c.ConfirmDuration, DefaultCapacityConfirm) + OrDefault(c.Settle, DefaultCapacitySettle)
	return OrDefault(c.TrialDuration, DefaultCapacityTrial) + Duration(c.Windows())*confirm
}

// Rule is the rule c's confirmations are judged by: the strict one,
// window by window, when MustPass is given; else their time pooled.
func (c CapacitySpec) Rule() string {
	if c.MustPass != 0 {
		return RuleWindows
	}
	return RulePooled
}

// Goal is the time the objective is judged over at a rate: GoalDuration,
// or by default the confirmations' own time.
func (c CapacitySpec) Goal() Duration {
	confirmations := Duration(OrDefault(c.Confirmations, DefaultCapacityConfirmations))
	return OrDefault(c.GoalDuration, confirmations*OrDefault(c.ConfirmDuration, DefaultCapacityConfirm))
}

// Windows is how many confirmations run at a rate: those asked, and under
// the pooled rule as many more as the goal duration needs.
func (c CapacitySpec) Windows() int {
	n := OrDefault(c.Confirmations, DefaultCapacityConfirmations)
	confirm := OrDefault(c.ConfirmDuration, DefaultCapacityConfirm)
	if c.Rule() != RulePooled || n < 0 || confirm <= 0 || c.Goal() <= 0 {
		return n
	}
	return max(n, int((c.Goal()+confirm-1)/confirm))
}

// DefaultCapacityStartRate is the first trial's rate when a search is given
// none, req/s.
const DefaultCapacityStartRate = 50.0

// MinCapacityRate is the lowest rate a search tries, req/s: below it, it
// gives up (nothing passes), so no search starts or stops lower.
const MinCapacityRate = 1.0

// CapacityProfileName names the profile a capacity search stands on.
const CapacityProfileName = "capacity"

// Check checks a search's settings, zero fields standing for their
// defaults, with the budget shared by targets searches: the one place they
// are checked, for a run's spec (Prepare) as for a search's configuration
// (internal/capacity). The error names the field within the capacity
// object ("precision").
func (c CapacitySpec) Check(targets int) error {
	if _, err := ParseObjective(c.Objective); err != nil {
		return FieldErrorf("objective", "%s", strings.TrimPrefix(ErrorMessage(err), "objective: "))
	}
	switch {
	case !(c.Precision >= 0 && c.Precision < 1):
		return FieldErrorf("precision", "%g is not a relative width between 0 and 1 (0.02 is 2%%)", c.Precision)
	case c.Confirmations < 0:
		return FieldErrorf("confirmations", "%d: at least one confirmation is needed (0 for the default, %d)", c.Confirmations, DefaultCapacityConfirmations)
	case c.MustPass < 0 || c.MustPass > OrDefault(c.Confirmations, DefaultCapacityConfirmations):
		return FieldErrorf("mustPass", "%d is not between 1 and the %d confirmations (0 for the default, a majority: %d)",
			c.MustPass, OrDefault(c.Confirmations, DefaultCapacityConfirmations), MustPassOf(OrDefault(c.Confirmations, DefaultCapacityConfirmations)))
	}
	for _, d := range []struct {
		field string
		value Duration
	}{{"trialDuration", c.TrialDuration}, {"confirmDuration", c.ConfirmDuration}, {"settle", c.Settle}, {"budget", c.Budget}} {
		if d.value < 0 {
			return FieldErrorf(d.field, "must not be negative, got %s", d.value)
		}
	}
	if err := c.checkRates(); err != nil {
		return err
	}
	if err := c.checkGoal(targets); err != nil {
		return err
	}
	return c.checkBudget(targets)
}

// checkGoal checks the goal duration: positive (0 for the default), and
// no longer than a target's share of the budget, which the confirmations
// it asks must fit in.
func (c CapacitySpec) checkGoal(targets int) error {
	each := OrDefault(c.Budget/Duration(max(targets, 1)), DefaultCapacityBudget)
	switch {
	case c.GoalDuration < 0:
		return FieldErrorf("goalDuration", "%s: the time the objective is judged over must be positive (0 for the default, the confirmations' own time, %s)", c.GoalDuration, CapacitySpec{Confirmations: c.Confirmations, ConfirmDuration: c.ConfirmDuration}.Goal())
	case c.GoalDuration > each:
		return FieldErrorf("goalDuration", "%s is longer than a target's search may take (%s): its confirmations could never fit in it", c.GoalDuration, each)
	}
	return nil
}

// checkRates checks the first and the highest rate against each other and
// the lowest a search tries; a highest rate of 0 is the configured one.
func (c CapacitySpec) checkRates() error {
	start := OrDefault(c.StartRate, DefaultCapacityStartRate)
	switch {
	case c.MaxRate != 0 && !(c.MaxRate >= MinCapacityRate):
		return FieldErrorf("maxRate", "%g req/s is below the lowest rate a search tries, %g (0 for the configured maximum)", c.MaxRate, MinCapacityRate)
	case c.MaxRate == 0 && !(start >= MinCapacityRate):
		return FieldErrorf("startRate", "%g req/s is below the lowest rate a search tries, %g", start, MinCapacityRate)
	case c.MaxRate != 0 && !(start >= MinCapacityRate && start <= c.MaxRate):
		return FieldErrorf("startRate", "%g req/s is not between the minimum %g and the maximum %g", start, MinCapacityRate, c.MaxRate)
	}
	return nil
}

// checkBudget checks that the budget, shared by targets searches, leaves
// each one search: a short trial and the confirmations.
func (c CapacitySpec) checkBudget(targets int) error {
	targets = max(targets, 1)
	each, which := c.Budget/Duration(targets), ""
	switch {
	case c.Budget == 0:
		each, which = DefaultCapacityBudget, "the default budget of "
	case targets > 1:
		which = fmt.Sprintf("shared by %d targets, ", targets)
	}
	if each >= c.MinBudget() {
		return nil
	}
	return FieldErrorf("budget", "%s%s is below one trial of the search (a %s trial and %d confirmations of %s, with %s pauses: %s)",
		which, each, OrDefault(c.TrialDuration, DefaultCapacityTrial), c.Windows(),
		OrDefault(c.ConfirmDuration, DefaultCapacityConfirm), OrDefault(c.Settle, DefaultCapacitySettle), c.MinBudget())
}

// PoolThreads returns the size of the thread pool that serves a target's
// requests one thread each, as the target recorded it when it started
// (Tomcat's on platform threads); false for a thread per request (virtual
// threads, goroutines) or a target that did not say.
func (t TargetResult) PoolThreads() (int, bool) {
	if t.Settings[SettingJavaThreadModel] != ThreadModelPlatform {
		return 0, false
	}
	n, err := strconv.Atoi(t.Settings[SettingTomcatMaxThreads])
	return n, err == nil && n > 0
}

// PoolBound is the most a pool of threads serves of a workload whose
// requests each hold a thread for their endpoint's duration parameter:
// threads ÷ the mean duration (weighted), in req/s, and that mean in
// seconds. False when a request has no such parameter (its service time
// is not known before it runs) or for an iteration.
func PoolBound(threads int, w Workload) (rate, service float64, ok bool) {
	if threads <= 0 || len(w.Requests) == 0 || len(w.Iteration) > 0 {
		return 0, 0, false
	}
	var total, weight float64
	for _, r := range w.Requests {
		ms, found := r.DurationParam()
		if !found {
			return 0, 0, false
		}
		n := float64(max(r.Weight, 1))
		total, weight = total+n*ms/1000, weight+n
	}
	service = total / weight
	return float64(threads) / service, service, true
}

// DurationParam returns how long, in ms, a request's endpoint is asked to
// take, when it has a duration parameter in milliseconds (given, or its
// default).
func (r Request) DurationParam() (float64, bool) {
	e, ok := LookupEndpoint(r.Endpoint)
	if !ok {
		return 0, false
	}
	p, ok := e.Param("duration")
	if !ok || p.Unit != "ms" {
		return 0, false
	}
	v := r.Params["duration"]
	if v == "" {
		v = p.Default
	}
	ms, err := strconv.ParseFloat(v, 64)
	return ms, err == nil && ms > 0
}
