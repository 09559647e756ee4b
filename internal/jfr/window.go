package jfr

import (
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/flame"
)

// Window is a span of wall-clock time, [From, To): a stage, or the part of
// one a diagnosis looks at.
type Window struct {
	Stage    int // StageResult.Index
	From, To time.Time
}

// Seconds returns the window's length.
func (w Window) Seconds() float64 { return w.To.Sub(w.From).Seconds() }

// StageWindows returns the wall-clock windows of stages whose offsets count
// from t0, the attack's time zero (its first measured request): the
// clocks of the recording (the container's) and of the attack (the
// orchestrator's) are the same kernel's on the local engine; a remote
// engine's may differ by its clock's offset.
func StageWindows(t0 time.Time, stages []bench.StageResult) []Window {
	out := make([]Window, 0, len(stages))
	for _, s := range stages {
		from := t0.Add(s.StartOffset.D())
		out = append(out, Window{Stage: s.Index, From: from, To: from.Add(s.Duration.D())})
	}
	return out
}

// Cut returns the events of events (sorted by start, as Decode returns
// them) that overlap w, with each one's Duration cut to its part inside
// w, so that the time of an event that spans a stage's edge is shared
// between the stages rather than counted in both. Instant events count
// where they happened.
func Cut(events []Event, w Window) []Event {
	var out []Event
	for _, e := range events {
		if !e.Start.Before(w.To) {
			break // sorted by start: none later can overlap
		}
		end := e.End()
		if e.Duration == 0 && e.Start.Before(w.From) || e.Duration > 0 && !end.After(w.From) {
			continue
		}
		if e.Duration > 0 {
			from, to := laterOf(e.Start, w.From), earlierOf(end, w.To)
			e.Start, e.Duration = from, to.Sub(from)
		}
		out = append(out, e)
	}
	return out
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlierOf(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// OfType returns the events of one type.
func OfType(events []Event, typ string) []Event {
	var out []Event
	for _, e := range events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// ExecutionStacks folds the execution samples among events into stacks of
// methods (lines merged), the input of a flame graph and of the top
// frames.
func ExecutionStacks(events []Event) flame.Stacks {
	var b flame.Builder
	for _, e := range events {
		if e.Type == TypeExecutionSample {
			b.Add(e.StackNames(), 1)
		}
	}
	return b.Stacks()
}
