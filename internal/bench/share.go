package bench

import (
	"fmt"
	"math"
)

// Share is one load generator's part of a plan that several send at once
// (a swarm's generators): the Index-th of Of, from 0. The zero value is
// the whole plan, sent by one generator.
//
// A plan is split so that the shares add up to the plan itself: each
// stage's load is its model's share (LoadModel.ShareOf: an open stage's
// rate in Of parts, a closed stage's clients Of ways), and the load engine
// numbers the share's requests and clients across all the generators. In
// the open model request k of the plan is generator k mod Of's: generator
// i's j-th request is due when the whole schedule's request j·Of+i is, i/Of
// of its own interval after the schedule's start, so that the merged
// arrivals are the single schedule's. In the closed model generator i's
// client j is the plan's client j·Of+i: each client keeps its iteration
// and think times, its random think times seeded apart from every other
// generator's.
type Share struct {
	Index int `json:"index"`
	Of    int `json:"of"`
}

// Whole reports whether the share is the whole plan.
func (s Share) Whole() bool { return s.Of <= 1 }

// Offset is the fraction of its own interval the share's open requests lag
// the schedule by: Index/Of, 0 for the whole plan.
func (s Share) Offset() float64 {
	if s.Whole() {
		return 0
	}
	return float64(s.Index) / float64(s.Of)
}

// Global returns the plan's number of the share's n-th request or client
// (from 0): n·Of+Index.
func (s Share) Global(n uint64) uint64 {
	if s.Whole() {
		return n
	}
	return n*uint64(s.Of) + uint64(s.Index)
}

// ClientsOf is the share's part of c clients dealt out one by one (the
// plan's client k is generator k mod Of's): c/Of, one more for the first
// c mod Of generators.
func (s Share) ClientsOf(c int) int {
	if s.Whole() {
		return c
	}
	n := c / s.Of
	if s.Index < c%s.Of {
		n++
	}
	return n
}

// String names the share as "2/3" (1-based), "" for the zero value.
func (s Share) String() string {
	if s.Of < 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index+1, s.Of)
}

// ShareOf returns the part of the plan one of several generators sends:
// every stage's share by its model, a fixed warm-up's rate and the open
// model's connections in Of parts (rounded up), the same workload, and
// share set. The plan's callbacks are kept.
func (p Plan) ShareOf(share Share) Plan {
	if share.Whole() {
		return p
	}
	model := p.Profile.LoadModel()
	out := p
	out.Share = share
	out.Profile.Stages = make([]Stage, len(p.Profile.Stages))
	for i, st := range p.Profile.Stages {
		out.Profile.Stages[i] = model.ShareOf(st, share)
	}
	out.Warmup.Rate = p.Warmup.Rate / float64(share.Of)
	if p.Profile.Connections > 0 {
		out.Profile.Connections = int(math.Ceil(float64(p.Profile.Connections) / float64(share.Of)))
	}
	return out
}

// GeneratorEnvironment is where one of several load generators ran (a
// swarm's): its share, its node, where the orchestrator reached it, and
// its host as the swarm and the generator describe it.
type GeneratorEnvironment struct {
	Share Share  `json:"share"`
	Node  string `json:"node,omitempty"` // the swarm node's ID
	// Address is where the orchestrator reached it.
	Address string `json:"address,omitempty"`
	Machine
}

// GeneratorResult is one load generator's part of an attack that several
// sent (a swarm's generators): where it ran, its share, its clock, and
// what it measured itself, so that the merged figures can be checked
// against its own.
type GeneratorResult struct {
	GeneratorEnvironment
	// ClockOffsetMs is its clock minus the orchestrator's, in ms, as the
	// handshake measured it (the exchange with the shortest round trip,
	// RoundTripMs); the common start time was given on its clock.
	ClockOffsetMs float64 `json:"clockOffsetMs"`
	RoundTripMs   float64 `json:"roundTripMs"`
	// Stages and Total are its own share's figures, each stage with its
	// histograms and its self-watch (Generator, Flags).
	Stages []StageResult `json:"stages,omitempty"`
	Total  *Stats        `json:"total,omitempty"`
	// Error says why it failed, when it did.
	Error string `json:"error,omitempty"`
}

// Name names the generator in messages and reports: "generator 2/3 on
// node-b at 198.18.0.2:7471" (host names need not differ).
func (g GeneratorEnvironment) Name() string {
	name := "generator " + g.Share.String()
	if g.Host != "" {
		name += " on " + g.Host
	}
	if g.Address != "" {
		name += " at " + g.Address
	}
	return name
}
