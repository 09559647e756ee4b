package swarm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/merge"
)

// session is one attack sent by the linked generators, as the
// orchestrator follows it.
type session struct {
	ctx    context.Context
	plan   bench.Plan
	obs    bench.Observer
	links  []*link
	placed Placed
	events chan event
	done   chan struct{} // closed when the session is over: nobody reads events then
	start  time.Time     // the common start, on our clock
	first  int           // the generator that failed first, -1 while none

	prepared []bool
	probed   []bool      // answered the probe of this round
	probeAt  []time.Time // when this round's probe left, for each
	control  time.Duration
	armed    []bool
	answered []bool // sent its result (nil when it measured nothing)
	results  []*bench.AttackResult
	errs     []string                // each generator's failure, "" while none
	seconds  [][]bench.Bucket        // what each reported, second by second
	pending  map[int][]*bench.Bucket // seconds not yet reported by all, by index
	reported int                     // the seconds told to the observer
	stopped  bool                    // the generators were told to stop
}

func newSession(ctx context.Context, plan bench.Plan, obs bench.Observer, links []*link, placed Placed) *session {
	n := len(links)
	return &session{ctx: ctx, plan: plan, obs: obs, links: links, placed: placed, events: make(chan event, 64),
		done: make(chan struct{}), first: -1, prepared: make([]bool, n), probed: make([]bool, n), probeAt: make([]time.Time, n), armed: make([]bool, n), answered: make([]bool, n), results: make([]*bench.AttackResult, n), errs: make([]string, n),
		seconds: make([][]bench.Bucket, n), pending: map[int][]*bench.Bucket{}}
}

// Margins of the common start.
const (
	// probeRounds are the probes each generator answers once all are
	// prepared; the slowest sets the margins.
	probeRounds = 3
	// minGuard is the least guard, on an idle machine.
	minGuard = 250 * time.Millisecond
	// controlFactor is how many of the slowest probe's round trips the
	// guard is at least: the begin and its armed make one such round
	// trip, and a machine's busy moments come and go between the probe
	// and the begin. At 3 (and 100 ms at least), a generator on a
	// machine saturated by a whole suite's JVMs and databases was not
	// armed 158 ms before the start after a 53 ms probe (clean-clone run
	// on Intel Xeon); a later start costs a few hundred ms once.
	controlFactor = 5
)

// margins are how far ahead the common start is set once every generator
// is prepared (lead, two guards: long enough for a begin to reach them
// all before any sends), and how long past it an armed is waited for
// (guard). They follow what was measured: the
// handshake's round trip, and the probes' taken when every generator was
// prepared and its machine as busy as at the start. A fixed 100 ms was
// too short for a generator on two CPUs saturated by other tests: its
// armed came later (clean-clone run 29).
func (s *session) margins() (lead, guard time.Duration) {
	var rtt time.Duration
	for _, l := range s.links {
		rtt = max(rtt, l.rtt)
	}
	guard = max(minGuard+2*rtt, controlFactor*s.control)
	return 2 * guard, guard
}

// probe sends every generator probeRounds clocks in turn, each answered by
// the way its armed will come, and keeps the slowest whole round trip as
// control. A generator that does not answer by deadline fails the attack
// before any load.
func (s *session) probe(deadline time.Time) error {
	for range probeRounds {
		clear(s.probed)
		for i, l := range s.links {
			s.probeAt[i] = time.Now()
			if err := l.probe(s.probeAt[i]); err != nil {
				return fmt.Errorf("%s could not be probed: %w", l.name(), err)
			}
		}
		if err := s.waitAll(s.probed, deadline, "answering its probes"); err != nil {
			return err
		}
	}
	return nil
}

// run hands every generator its share, starts them all at one time once
// every one is prepared, follows them to their results and merges those.
func (s *session) run(baseURL string, prepare time.Duration) (*bench.AttackResult, error) {
	defer close(s.done)
	for i, l := range s.links {
		if err := l.send(baseURL, s.plan); err != nil {
			s.abortAll("could not send the attack to " + l.name())
			return nil, fmt.Errorf("%s: %w", l.name(), err)
		}
		go l.listen(i, s.events, s.done)
	}
	if err := s.begin(prepare); err != nil {
		s.abortAll(err.Error())
		s.drain(time.Now().Add(resultTimeout))
		return nil, err
	}
	s.follow()
	return s.outcome()
}

// begin waits until every generator is prepared (within prepare), sets
// the common start a lead ahead and tells each, and waits until every one
// said it was armed, at most a guard past the start. A generator too slow
// to prepare fails the attack before any load, one not armed by the start
// fails it before the others have sent for more than a guard: the caller
// then stops them all.
func (s *session) begin(prepare time.Duration) error {
	if err := s.waitAll(s.prepared, time.Now().Add(prepare), "prepared within "+prepare.String()); err != nil {
		return err
	}
	if err := s.probe(time.Now().Add(prepare)); err != nil {
		return err
	}
	lead, guard := s.margins()
	s.start = time.Now().Add(lead)
	for _, l := range s.links {
		if err := l.begin(s.start); err != nil {
			return fmt.Errorf("%s could not be told to begin: %w", l.name(), err)
		}
	}
	// A generator says it is armed only where its begin came before the
	// start, and one that came later fails its attack: an armed that is
	// slow on its way back is waited for, a guard past the start (on CPUs
	// a clean clone saturated, one came more than 250 ms after its begin
	// was sent, after probes of 11 ms, and failed a run whose generators
	// were all in time). Until then the others may have begun.
	return s.waitAll(s.armed, s.start.Add(guard), fmt.Sprintf("armed by the common start (the slowest probe took %s)",
		s.control.Round(time.Millisecond)))
}

// waitAll handles messages until every flag is set, or fails at deadline
// saying which generators were not what.
func (s *session) waitAll(flags []bool, deadline time.Time, what string) error {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for !all(flags) {
		select {
		case ev := <-s.events:
			s.handle(ev)
			if i := s.failed(); i >= 0 {
				return fmt.Errorf("%s could not start: %s", s.links[i].name(), s.errs[i])
			}
		case <-timer.C:
			return fmt.Errorf("%s could not start in time: not %s", strings.Join(s.unset(flags), ", "), what)
		case <-s.ctx.Done():
			return s.ctx.Err()
		}
	}
	return nil
}

// follow handles the generators' messages until each has sent its result
// or failed; a failure, or ctx cancelled, stops the others.
func (s *session) follow() {
	cancelled := s.ctx.Done()
	var deadline <-chan time.Time
	for !s.over() {
		select {
		case ev := <-s.events:
			s.handle(ev)
			if i := s.failed(); i >= 0 && !s.stopped {
				s.abortAll(s.links[i].name() + " failed")
				deadline = time.After(resultTimeout)
			}
		case <-cancelled:
			cancelled = nil
			s.abortAll("the run was cancelled")
			deadline = time.After(resultTimeout)
		case <-deadline:
			for i, ok := range s.answered {
				if !ok && s.errs[i] == "" {
					s.fail(i, fmt.Sprintf("no result within %s of being stopped", resultTimeout))
				}
			}
		}
	}
}

// drain waits until every generator has answered, or deadline.
func (s *session) drain(deadline time.Time) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for !s.over() {
		select {
		case ev := <-s.events:
			s.handle(ev)
		case <-timer.C:
			return
		}
	}
}

// handle takes one generator's message in.
func (s *session) handle(ev event) {
	i := ev.from
	switch {
	case ev.err != nil:
		if !s.answered[i] && s.errs[i] == "" {
			s.fail(i, s.lost(i, ev.err))
		}
	case ev.msg.Kind == kindPrepared:
		s.prepared[i] = true
	case ev.msg.Kind == kindClock:
		if !s.probeAt[i].IsZero() && !s.probed[i] {
			s.control = max(s.control, time.Since(s.probeAt[i]))
			s.probed[i] = true
		}
	case ev.msg.Kind == kindArmed:
		s.armed[i] = true
	case ev.msg.Kind == kindStage && i == 0 && ev.msg.Stage != nil && s.obs.Stage != nil:
		st := *ev.msg.Stage
		st.Rate, st.Concurrency = merge.Level(s.plan, st)
		s.obs.Stage(st)
	case ev.msg.Kind == kindT0 && i == 0 && s.obs.Start != nil:
		s.obs.Start(ev.msg.At.Add(-s.links[0].offset))
	case ev.msg.Kind == kindSecond && ev.msg.Second != nil:
		s.second(i, *ev.msg.Second)
	case ev.msg.Kind == kindResult:
		s.answered[i], s.results[i] = true, ev.msg.Result
		if ev.msg.Message != "" && !s.stopped {
			s.fail(i, ev.msg.Message)
		}
	case ev.msg.Kind == kindError:
		s.fail(i, ev.msg.Message)
	}
}

// fail records why generator i failed, and which failed first.
func (s *session) fail(i int, why string) {
	s.errs[i] = why
	if s.first < 0 {
		s.first = i
	}
}

// lost says why a generator's connection ended before its result: what
// its placer knows (a task's exit), else the connection's error.
func (s *session) lost(i int, err error) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	why := "its connection ended (" + err.Error() + ")"
	if placed := s.placed.Why(ctx, i); placed != "" {
		why += "; " + placed
	}
	return why
}

// second keeps generator i's second and tells the observer each second
// every generator has reported, merged, in order.
func (s *session) second(i int, b bench.Bucket) {
	s.seconds[i] = append(s.seconds[i], b)
	parts := s.pending[b.Second]
	if parts == nil {
		parts = make([]*bench.Bucket, len(s.links))
		s.pending[b.Second] = parts
	}
	parts[i] = &b
	for {
		parts, ok := s.pending[s.reported]
		if !ok || !allSet(parts) {
			return
		}
		delete(s.pending, s.reported)
		s.reported++
		if s.obs.Second == nil {
			continue
		}
		if merged, err := merge.Buckets(deref(parts)...); err == nil {
			s.obs.Second(merged)
		}
	}
}

// abortAll tells every generator to stop.
func (s *session) abortAll(reason string) {
	s.stopped = true
	for _, l := range s.links {
		l.abort(reason)
	}
}

// outcome merges the results, or, when a generator failed, what every
// generator reported second by second until then, with the failure.
func (s *session) outcome() (*bench.AttackResult, error) {
	if i := s.failed(); i >= 0 {
		res, err := merge.Seconds(s.plan, s.seconds...)
		failure := fmt.Errorf("%s failed during the attack: %s; the other generators were stopped", s.links[i].name(), s.errs[i])
		if err != nil {
			return nil, errors.Join(failure, err)
		}
		s.describe(res)
		return res, failure
	}
	for i, r := range s.results {
		if r == nil { // stopped before it started
			return nil, errors.Join(s.ctx.Err(), fmt.Errorf("%s measured nothing", s.links[i].name()))
		}
	}
	res, err := merge.Attack(s.plan, s.names(), s.results...)
	if err != nil {
		return nil, fmt.Errorf("merge the generators' results: %w", err)
	}
	s.describe(res)
	return res, s.ctx.Err()
}

// names names the generators, in share order.
func (s *session) names() []string {
	names := make([]string, len(s.links))
	for i, l := range s.links {
		names[i] = l.name()
	}
	return names
}

// describe records each generator's part: where, its share and clock,
// its own figures.
func (s *session) describe(res *bench.AttackResult) {
	for i, l := range s.links {
		g := bench.GeneratorResult{GeneratorEnvironment: bench.GeneratorEnvironment{Share: l.share, Node: l.member.Node, Address: l.member.Address, Machine: l.member.Machine},
			ClockOffsetMs: millis(l.offset), RoundTripMs: millis(l.rtt), Error: s.errs[i]}
		g.Host = l.member.Host
		g.CPUModel, g.Kernel = l.machine.CPUModel, l.machine.Kernel
		if r := s.results[i]; r != nil {
			g.Stages, g.Total = r.Stages, &r.Total
		}
		res.Generators = append(res.Generators, g)
	}
	// Every generator's clock started at the common start: t0, the first
	// measured request, is the warm-up later on ours.
	res.T0 = s.start.Add(s.plan.Warmup.Planned().D())
}

// failed is the generator that failed first, -1 for none.
func (s *session) failed() int { return s.first }

// over reports whether every generator has sent its result or failed.
func (s *session) over() bool {
	for i, ok := range s.answered {
		if !ok && s.errs[i] == "" {
			return false
		}
	}
	return true
}

// unset names the generators whose flag is not set.
func (s *session) unset(flags []bool) []string {
	var names []string
	for i, ok := range flags {
		if !ok {
			names = append(names, s.links[i].name())
		}
	}
	return names
}

func all(flags []bool) bool {
	for _, f := range flags {
		if !f {
			return false
		}
	}
	return true
}

func allSet(parts []*bench.Bucket) bool {
	for _, p := range parts {
		if p == nil {
			return false
		}
	}
	return true
}

func deref(parts []*bench.Bucket) []bench.Bucket {
	out := make([]bench.Bucket, len(parts))
	for i, p := range parts {
		out[i] = *p
	}
	return out
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
